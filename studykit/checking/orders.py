"""Each `O(·)` in a text against the orders its note's claims give (`growth` compares)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final

from studykit.checking.equations import Equation, maths_spans
from studykit.checking.growth import growth_difference
from studykit.checking.skips import SkipCategory
from studykit.content.model import Note
from studykit.expressions import ExpressionError, ExpressionTimeout
from studykit.expressions.texlex import TexError, Token, tokenize
from studykit.expressions.texnodes import render
from studykit.expressions.texparse import parse_tokens

# The names `O(…)` is written with, as the TeX tokenizer reads them.
BIG_O: Final = frozenset({"O", r"\mathcal{O}", r"\mathrm{O}"})


def note_orders(note: Note | None) -> dict[str, str]:
    """Claim id -> its `order`, for every claim of the note that gives one."""
    if note is None:
        return {}
    return {
        claim.id: claim.order
        for section in note.sections
        for claim in section.claims
        if claim.order is not None
    }


def order_equations(
    text: str, orders: Mapping[str, str], *, all_maths: bool = False
) -> list[Equation]:
    """Each `O(…)` in the text's maths (all of it with `all_maths`, as a claim's `says`),
    verified when some claim's order is its order."""
    spans = [(0, text)] if all_maths else maths_spans(text)
    return [
        _check_written(tex, index + start, inner, orders)
        for index, span in spans
        for start, tex, inner in _written_orders(span)
    ]


def _written_orders(span: str) -> Iterator[tuple[int, str, list[Token]]]:
    """(index in the span, the `O(…)` TeX, the tokens inside its brackets)."""
    try:
        tokens = tokenize(span)
    except TexError:
        return
    for k, token in enumerate(tokens[:-1]):
        if token.text not in BIG_O or tokens[k + 1].text != "(":
            continue
        depth = 0
        for end in range(k + 1, len(tokens)):
            depth += (tokens[end].text == "(") - (tokens[end].text == ")")
            if depth == 0:
                yield token.start, span[token.start : tokens[end].end], tokens[k + 2 : end]
                break


def _check_written(tex: str, index: int, inner: list[Token], orders: Mapping[str, str]) -> Equation:
    notation = SkipCategory.NOTATION.value
    try:
        written = render(parse_tokens(inner))
    except (TexError, RecursionError) as error:
        return Equation(tex, index, "skipped", f"cannot read `{tex}`: {error}", category=notation)
    if not orders:
        return Equation(
            tex,
            index,
            "wrong",
            f"`{tex}` is tied to no cost: give its note a claim whose `expr` is the cost and "
            f"`order` is `{written}`",
        )
    same = [claim_id for claim_id, order in orders.items() if order.replace(" ", "") == written]
    if same:  # written as the claim writes it: no sympy needed
        return Equation(tex, index, "verified", expected=same[0])
    for claim_id, order in orders.items():
        try:
            if growth_difference(order, written) is None:
                return Equation(tex, index, "verified", expected=claim_id)
        except (ExpressionError, ExpressionTimeout):
            continue  # that claim's own check reports its order
    known = ", ".join(f"O({order}) ({claim_id})" for claim_id, order in orders.items())
    return Equation(
        tex,
        index,
        "wrong",
        f"`{tex}` is the order of no cost in this note (its claims give {known}): correct it, "
        f"or add a claim whose `expr` is the cost and `order` is `{written}`",
    )

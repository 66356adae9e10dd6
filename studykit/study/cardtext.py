"""Terminal markdown with citations rendered: card fronts and backs, note sections."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from studykit.content.citations import card_side, render_citations
from studykit.content.images import image_placeholders
from studykit.content.model import COMPUTED_KINDS, Card, Note
from studykit.text.clozes import CLOZE_PATTERN
from studykit.text.mathscan import split_code_fences, split_maths
from studykit.text.prose import markdown_to_terminal
from studykit.text.unicodemath import latex_to_unicode

if TYPE_CHECKING:
    from studykit.quiz import Variant


def _cloze_side(ordinal: int, *, answer: bool) -> Callable[[re.Match[str]], str]:
    """How deletions read on one side of cloze ordinal `ordinal`, as Anki shows them: the
    asked one hidden (`[...]` or its hint) or, on the answer, in bold; the others filled in."""

    def one(match: re.Match[str]) -> str:
        if int(match.group(1)) != ordinal:
            return match.group(2)
        if answer:
            return f"**{match.group(2)}**"
        hint = match.group(3)
        return f"**[{hint}]**" if hint else "**[...]**"

    return one


def _inline_maths(tex: str) -> str:
    """`tex` as inline maths, the spaces at its ends kept outside the `$` so that it closes."""
    core = tex.strip()
    if not core:
        return " " if tex else ""
    lead = " " if tex[0].isspace() else ""
    trail = " " if tex[-1].isspace() else ""
    return f"{lead}${core}${trail}"


def _lift_clozes(tex: str) -> str:
    """Maths holding clozes as maths pieces around clozes whose answers are maths."""
    parts: list[str] = []
    last = 0
    for match in CLOZE_PATTERN.finditer(tex):
        hint = f"::{match.group(3)}" if match.group(3) else ""
        answer = _inline_maths(match.group(2))
        parts += [
            _inline_maths(tex[last : match.start()]),
            f"{{{{c{match.group(1)}::{answer}{hint}}}}}",
        ]
        last = match.end()
    parts.append(_inline_maths(tex[last:]))
    return "".join(parts)


def clozes_outside_maths(front: str) -> str:
    """`front` with every cloze moved out of the maths it sits in: `$a = {{c1::b}}$` is
    `$a =$ {{c1::$b$}}`, so the `[...]` and the bold answer are markdown, not maths."""
    out: list[str] = []
    for code, run in split_code_fences(front):
        if code or CLOZE_PATTERN.search(run) is None:
            out.append(run)
            continue
        for piece in split_maths(run):
            if isinstance(piece, str):
                out.append(piece)
            elif CLOZE_PATTERN.search(piece.tex):
                out.append(_lift_clozes(piece.tex))
            else:
                mark = "$$" if piece.display else "$"
                out.append(f"{mark}{piece.tex}{mark}")
    return "".join(out)


def cited_markdown(text: str, note: Note | None, *, pending: bool = False) -> str:
    """A note section's markdown for the terminal: citations rendered, maths as Unicode,
    images `[image: alt]`. A single newline wraps, as in any markdown document.

    With `pending`, claims not computed yet show `…` (see `render_citations`); a timing's
    machine is said once, in a footnote under the section."""
    cited = render_citations(text, note, pending=pending, footnotes=True)
    return markdown_to_terminal(image_placeholders(cited))


def side_markdown(text: str, note: Note | None) -> str:
    """A card side's markdown for the terminal, as `cited_markdown` but each line a line."""
    return markdown_to_terminal(image_placeholders(card_side(text, note)))


def front_markdown(card: Card, note: Note | None = None, ordinal: int = 1) -> str:
    """The question of one ordinal: a cloze's deletion `ordinal` becomes `[...]` (or
    `[hint]`), the others filled in; a reversed card's ordinal 2 asks its back."""
    front = card.front
    if card.kind == "cloze":
        front = CLOZE_PATTERN.sub(_cloze_side(ordinal, answer=False), clozes_outside_maths(front))
    elif card.kind == "reversed" and ordinal == 2:
        front = card.back or ""
    return side_markdown(front, note)


def _answer_maths(card: Card) -> str:
    """A computed card's answer expression as inline maths (as typed, if it does not parse)."""
    from studykit.core.errors import StudykitError
    from studykit.quiz.variants import answer_expression

    try:
        return f"${answer_expression(card).latex()}$"
    except StudykitError:
        return f"`{card.answer}`"


def back_markdown(card: Card, note: Note | None = None, ordinal: int = 1) -> str:
    """The answer of one ordinal; a cloze card shows its text filled in (the asked deletion
    in bold), then any extra `back`; a reversed card's ordinal 2 answers with its front."""
    parts: list[str] = []
    if card.kind == "cloze":
        shown = _cloze_side(ordinal, answer=True)
        parts.append(CLOZE_PATTERN.sub(shown, clozes_outside_maths(card.front)))
    if card.kind == "reversed" and ordinal == 2:
        parts.append(card.front)
    elif card.back and card.back.strip():
        parts.append(card.back)
    elif card.kind in COMPUTED_KINDS and card.answer:
        parts.append(f"Answer: {_answer_maths(card)}")
    return side_markdown("\n\n".join(parts), note)


def expected_text(variant: Variant) -> str:
    """What the student should have typed for a computed card's variant, as Unicode."""
    return latex_to_unicode(variant.expected_latex())


def worked_text(variant: Variant) -> str:
    """The worked steps of a variant (formula, values put in, result), as Unicode."""
    return latex_to_unicode(variant.steps_latex())


def plain_text(markdown: str, width: int = 100) -> str:
    """Terminal markdown laid out as plain text (no colour codes), as `studykit show` prints it."""
    from rich.console import Console
    from rich.markdown import Markdown

    console = Console(width=width, highlight=False, color_system=None, force_terminal=False)
    with console.capture() as captured:
        console.print(Markdown(markdown, hyperlinks=False))
    return "\n".join(line.rstrip() for line in captured.get().strip("\n").splitlines())


def one_line(markdown: str, limit: int = 90) -> str:
    """Terminal markdown as one plain line of at most `limit` characters (lists of cards)."""
    text = " ".join(plain_text(markdown, width=10_000).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def card_markdown(card: Card, note: Note | None, seed: int, ordinal: int = 1) -> tuple[str, str]:
    """(front, back) of one ordinal as review shows them; a computed card as its variant for
    `seed`, answered."""
    if card.kind not in COMPUTED_KINDS:
        return front_markdown(card, note, ordinal), back_markdown(card, note, ordinal)
    from studykit.quiz import draw_variant

    variant = draw_variant(card, seed)
    solution = [
        markdown_to_terminal(f"Expected: ${variant.expected_latex().strip()}$"),
        markdown_to_terminal(f"Worked: ${variant.steps_latex().strip()}$"),
    ]
    back = side_markdown(variant.back() or "", note)
    return side_markdown(variant.front(), note), "\n\n".join([*solution, back]).strip()

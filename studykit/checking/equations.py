"""Equations in prose: every `$…$`/`$$…$$` relation in a text, verified, skipped or wrong.

A text is read in order, and `$T = 512$` or `$k^* = \\lceil … \\rceil$` (a variable alone on
one side of `=`) defines that variable for the equations after it in the same text, so
`$\\gamma = 0.95$ par $k^* = 90$` checks 90 against the formula written earlier. Numeric
sides are decided by `relations`; sides with free variables are checked as identities at
sample points. What cannot be read or decided is skipped with the reason.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import suppress
from dataclasses import dataclass, replace
from typing import Final

from studykit.checking.context import Context, evaluable, has_formula, resolve
from studykit.checking.relations import (
    ORDER,
    Outcome,
    Verdict,
    agrees,
    identity,
    numeric,
)
from studykit.checking.relations import value as value_of
from studykit.checking.skips import SkipCategory
from studykit.expressions import ExpressionError, ExpressionTimeout
from studykit.expressions.statements import Side, Statement, interval, statements
from studykit.expressions.texlex import TexError
from studykit.expressions.texnodes import (
    Name,
    Node,
    Scaled,
    name_nodes,
    names,
    written_number,
)
from studykit.quiz.variants import format_number, placeholders
from studykit.text.clozes import CLOZE_PATTERN
from studykit.text.mathscan import Maths, split_code_fences, split_maths

# One text's equations are checked within this many seconds and up to this many equations;
# the rest are skipped with the reason (each sympy step has its own time limit as well).
TEXT_TIME_BUDGET_S: Final = 10.0
MAX_EQUATIONS_PER_TEXT: Final = 500

_BUDGET: Final = SkipCategory.BUDGET.value
_PARAMETER: Final = SkipCategory.CARD_PARAMETER.value
_NOTATION: Final = SkipCategory.NOTATION.value
_DEFINITION: Final = SkipCategory.DEFINITION.value
_HYPOTHESIS: Final = SkipCategory.HYPOTHESIS.value
_APPROX: Final = SkipCategory.APPROXIMATION.value


@dataclass(frozen=True, slots=True)
class Equation:
    """One relation chain found in a text, at `index`, and what checking it found."""

    tex: str
    index: int
    verdict: Verdict
    reason: str = ""
    expected: str | None = None
    computed: str | None = None
    category: str = ""


def without_cloze(text: str) -> str:
    """A cloze text with each `{{c1::answer::hint}}` replaced by its answer."""
    return CLOZE_PATTERN.sub(lambda match: match.group(2), text)


def maths_spans(text: str) -> Iterator[tuple[int, str]]:
    """(index of the TeX in `text`, TeX) for each `$…$` and `$$…$$` outside code."""
    offset = 0
    for code, run in split_code_fences(text):
        if not code:
            for piece in split_maths(run):
                if isinstance(piece, Maths):
                    delimiter = 2 if piece.display else 1
                    yield offset + piece.end - delimiter - len(piece.tex), piece.tex
        offset += len(run)


def check_text(
    text: str, context: Context | None = None, *, params: Mapping[str, object] = {}
) -> list[Equation]:
    """Every equation in `text`, in order; `params` are a computed card's `{name}` parameters."""
    context = context if context is not None else Context()
    found: list[Equation] = []
    started = time.perf_counter()
    for index, tex in maths_spans(text):
        over = len(found) >= MAX_EQUATIONS_PER_TEXT
        if over or time.perf_counter() - started > TEXT_TIME_BUDGET_S:
            if _might_relate(tex):
                limit = (
                    f"more than {MAX_EQUATIONS_PER_TEXT} equations in one text"
                    if over
                    else f"this text's equations took over {TEXT_TIME_BUDGET_S:g} s"
                )
                found.append(Equation(tex.strip()[:80], index, "skipped", limit, category=_BUDGET))
            continue
        found += check_span(tex, context, index=index, params=params)
    return found


def check_span(
    tex: str, context: Context, *, index: int = 0, params: Mapping[str, object] = {}
) -> list[Equation]:
    """The equations of one maths span (statements without a relation are not equations)."""
    used = [name for name in placeholders(tex) if name in params]
    try:
        chains = statements(tex)
    except TexError as error:
        if not _might_relate(tex):
            return []
        return [Equation(tex.strip(), index, "skipped", str(error))]
    found = []
    for chain in chains:
        if not chain.relations:
            continue
        where = index + chain.start
        if used:
            reason = f"uses the card parameter `{{{used[0]}}}` (its variants are checked as a card)"
            found.append(Equation(chain.tex, where, "skipped", reason, category=_PARAMETER))
            continue
        outcome = check_statement(chain, context)
        verdict, reason = outcome.verdict, outcome.reason
        found.append(
            Equation(
                chain.tex,
                where,
                verdict,
                reason,
                outcome.expected,
                outcome.computed,
                outcome.category,
            )
        )
    return found


def _might_relate(tex: str) -> bool:
    return any(mark in tex for mark in ("=", "<", ">", "\\approx", "\\le", "\\ge", "\\ne"))


def check_statement(chain: Statement, context: Context) -> Outcome:
    """Check each relation of a chain; wrong if any is wrong, verified if any is verified."""
    if not chain.sides:
        return Outcome("skipped", "a relation with one side missing", category=_NOTATION)
    local = context
    if chain.bindings:
        local = context.copy()
        for binding in chain.bindings:
            problem = _bind(binding, local)
            if problem:
                return Outcome("skipped", problem, category=_NOTATION)
    outcomes: list[Outcome] = []
    group: list[Side] = [chain.sides[0]]  # sides joined by = and ≈ so far: one quantity
    for k, relation in enumerate(chain.relations):
        left, right = chain.sides[k], chain.sides[k + 1]
        if relation in ORDER:
            outcomes += [_pair(item, relation, right, local) for item in group]
            group = [right]
        else:
            outcomes.append(_pair(left, relation, right, local))
            group.append(right)
    for verdict in ("wrong", "verified"):
        chosen = [item for item in outcomes if item.verdict == verdict]
        if chosen:
            return chosen[0]
    return outcomes[0]


def _bind(binding: Statement, context: Context) -> str:
    """Add `T = d = 512` to the context; a reason when it is not a plain assignment."""
    sides = binding.sides
    value = sides[-1].node if sides else None
    targets = [side.node for side in sides[:-1]]
    if (
        value is None
        or not targets
        or any(relation != "=" for relation in binding.relations)
        or not all(isinstance(target, Name) for target in targets)
    ):
        return f"cannot read the values given after the equation: `{binding.tex}`"
    for target in targets:
        assert isinstance(target, Name)
        context.definitions[target.ident] = value
    return ""


def _pair(left: Side, relation: str, right: Side, context: Context) -> Outcome:
    """One relation between two sides, with the context's definitions put in."""
    if relation == "\\in" and (within := _within(left, right, context)) is not None:
        return within
    if relation.startswith("\\"):
        return Outcome("skipped", f"`{relation}` is not checked", category=_NOTATION)
    if left.node is None or right.node is None:
        return _unreadable(left, relation, right, context)
    assert left.node is not None and right.node is not None
    defined = _definition(left.node, relation, right.node, context)
    if defined is not None:
        return defined
    try:
        a = resolve(left.node, context)
        b = resolve(right.node, context)
    except TexError as error:
        return Outcome("skipped", str(error))
    try:
        outcome = _decide(a, relation, b)
        raw = names(left.node) | names(right.node)
        substituted = (a, b) != (left.node, right.node)
        if outcome.verdict == "wrong" and raw and relation != "≈" and substituted:
            # `$z = 0$` earlier may have been a condition, not a definition: a statement true
            # for every value (`\tanh'(z) < 1` at sample points) is not wrong.
            general = _symbolic(left.node, relation, right.node, raw)
            if general.verdict == "verified":
                return general
        return _name_the_definition(outcome, left.node, right.node, context)
    except ExpressionTimeout as error:
        return Outcome(
            "skipped", f"could not be decided in time: {error.message}", category=_BUDGET
        )
    except ExpressionError as error:
        return Outcome("skipped", error.message)
    except RecursionError:
        return Outcome("skipped", "nested too deeply", category=_BUDGET)


def _within(left: Side, right: Side, context: Context) -> Outcome | None:
    """`… \\in (a, b]` as its two bounds; None where it is not that (`t \\in [1, T]` names
    a symbol's range: a declaration, not a claim)."""
    bounds = interval(right.tex)
    if bounds is None or left.node is None or isinstance(left.node, Name):
        return None
    checks = [
        _pair(left, relation, bound, context)
        for bound, relation in (
            (bounds.low, "≥" if bounds.low_closed else ">"),
            (bounds.high, "≤" if bounds.high_closed else "<"),
        )
        if bound is not None
    ]
    wrong = next((item for item in checks if item.verdict == "wrong"), None)
    if wrong is not None:
        return replace(wrong, reason=f"not in `{right.tex}`: {wrong.reason}")
    skipped = next((item for item in checks if item.verdict == "skipped"), None)
    return skipped or (checks[0] if checks else None)


def _unreadable(left: Side, relation: str, right: Side, context: Context) -> Outcome:
    """A side sympy cannot read: a form torch checks, or skipped with the reason."""
    from studykit.checking.numerically import check_numerically

    if relation == "=" and isinstance(left.node, Name) and left.tex.strip().startswith("\\"):
        context.written[left.tex.strip()] = right.tex.strip()
    outcome = check_numerically(
        left.tex, relation, right.tex, context.written, _known_sizes(context)
    )
    if outcome is not None:
        return outcome
    side = left if left.node is None else right
    return Outcome("skipped", f"cannot read `{side.tex}`: {side.problem}")


def _known_sizes(context: Context) -> dict[str, float]:
    """The numbers the text gave d, d_k and f (a forget gate) before this equation."""
    known: dict[str, float] = {}
    for name in ("d", "d_k", "f"):
        if name in context.definitions and evaluable(Name(name, name), context):
            with suppress(ExpressionError, TexError):
                known[name] = value_of(resolve(Name(name, name), context))
    return known


def _name_the_definition(outcome: Outcome, left: Node, right: Node, context: Context) -> Outcome:
    """`k^* = 91` is wrong against k^*'s formula: say that the value came from it."""
    if outcome.verdict != "wrong" or outcome.computed is None:
        return outcome
    for name in (left, right):
        if isinstance(name, Name) and has_formula(name, context):
            value, written = outcome.computed, outcome.expected or ""
            if name is right:
                value, written = written, value
            reason = (
                f"`{name.shown}` is {value} by its definition earlier in the text"
                f" (with the values given there), not {written}"
            )
            return Outcome("wrong", reason, outcome.expected, outcome.computed)
    return outcome


def _decide(a: Node, relation: str, b: Node) -> Outcome:
    free = names(a) | names(b)
    return numeric(a, relation, b) if not free else _symbolic(a, relation, b, free)


def _definition(left: Node, relation: str, right: Node, context: Context) -> Outcome | None:
    """`T = 512` defines T (unless T has a formula that the context can evaluate: a check)."""
    if relation != "=":
        for side, other in ((left, right), (right, left)):
            # A name given a plain number (`$f_t = 1$ par …`) names a case; `f_t < 1` later
            # is a condition on another case, not a check. Only a formula makes it a check.
            checked = (
                side.ident in context.declared or has_formula(side, context)
                if isinstance(side, Name)
                else True
            )
            if isinstance(side, Name) and not (checked and evaluable(side, context)):
                if relation == "≈":
                    reason = f"the approximate value of `{side.shown}`"
                    return Outcome("skipped", reason, category=_APPROX)
                if not names(other) or relation in ORDER:
                    reason = f"a condition on `{side.shown}`"
                    return Outcome("skipped", reason, category=_HYPOTHESIS)
        return None
    for name, value in ((left, right), (right, left)):
        if not isinstance(name, Name) or name.ident in names(value):
            continue
        if name.ident in context.declared:
            return _against_declaration(name, value, context)
        if has_formula(name, context) and evaluable(name, context):
            return None
        context.definitions[name.ident] = value
        return Outcome("skipped", f"defines `{name.shown}`", category=_DEFINITION)
    return None


def _against_declaration(name: Name, value: Node, context: Context) -> Outcome | None:
    """A declared symbol given a value: checked (None) when the declaration can be worked out
    here or the value is itself a formula; otherwise skipped, naming what has no value."""
    if names(value) or evaluable(name, context):
        return None
    try:
        missing = name_nodes(resolve(name, context))
    except TexError as error:
        return Outcome("skipped", str(error), category=_BUDGET)
    needed = ", ".join(sorted(f"`{symbol.shown}`" for symbol in missing))
    reason = (
        f"`{name.shown}` is declared as `{context.declared[name.ident]}`, and {needed} "
        "has no value in this text"
    )
    return Outcome("skipped", reason, category=_HYPOTHESIS)


def _symbolic(a: Node, relation: str, b: Node, free: set[str]) -> Outcome:
    listed = ", ".join(f"`{name}`" for name in sorted(free))
    if relation in ("≈", "≠"):
        return Outcome("skipped", f"`{relation}` with free variables {listed}", category=_APPROX)
    if identity(a, relation, b):
        return Outcome("verified")
    if relation == "=" and names(a) and names(b):
        return Outcome("wrong", f"not an identity: the sides differ at sample values of {listed}")
    reason = f"holds only for particular values of {listed} (not an identity)"
    return Outcome("skipped", reason, category=_HYPOTHESIS)


def check_says(says: str, computed: float | None) -> list[Equation]:
    """A claim's `says` as an equation; its written number must also match `computed`."""
    found = check_span(says, Context())
    if not found:
        reason = "no relation to check in `says`"
        return [Equation(says.strip(), 0, "skipped", reason, category=_NOTATION)]
    if computed is None or any(item.verdict == "wrong" for item in found):
        return found
    try:
        chains = [chain for chain in statements(says) if chain.relations and chain.sides]
    except TexError:
        return found
    if not chains:
        return found
    last = chains[-1]
    node = last.sides[-1].node
    written = None if node is None else written_number(node)
    relation = last.relations[-1]
    if written is None or relation not in ("=", "≈"):
        return found
    final = found[-1]
    # A unit (`64 \text{ MiB}`) may or may not be in the claim's value.
    unscaled = written_number(node.operand) if isinstance(node, Scaled) else None
    if agrees(computed, relation, written) or (
        unscaled is not None and agrees(computed, relation, unscaled)
    ):
        if final.verdict == "skipped":
            found[-1] = Equation(final.tex, final.index, "verified")
        return found
    shown = format_number(computed, 10)
    found[-1] = Equation(
        final.tex,
        final.index,
        "wrong",
        f"`says` writes {format_number(float(written[0]), 10)}, but the claim computes {shown}",
        format_number(float(written[0]), 10),
        shown,
    )
    return found

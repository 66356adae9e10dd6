"""A computed card's second source: examples worked by hand, agreeing claims, `defines`, links.

A card's `answer` is one source; `check` compares it with another and reports a card that has
none. Plain `check` counts an experiment `answer:` as evidence but cannot compare it (that
needs a run); `check --run-experiments` does, through `compare_measured`. The loader has
already made sure that example and agreement values name the card's parameters and that each
`agrees_with` names a claim with a value in the deck's note.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Final

from studykit.checking.claims import counterexample
from studykit.checking.findings import EVIDENCE_KINDS, Finding
from studykit.content.model import (
    COMPUTED_KINDS,
    Agreement,
    Card,
    Claim,
    Example,
    Note,
    Origin,
    Tolerance,
)
from studykit.expressions import Expression, ExpressionError, ExpressionTimeout, parse
from studykit.quiz.grading import DEFAULT_TOLERANCE, describe_tolerance, same_expression, within
from studykit.quiz.variants import answer_expression, format_number

NO_EVIDENCE: Final = "no evidence: add examples, agrees_with or an experiment answer"
# Evidence is compared at its own precision, never the card's: a card may accept ±2 from a
# student, but an example or claim one unit off is still a wrong number. A claim's expression
# and the card's answer compute the same number, so they agree to float noise.
AGREEMENT_TOLERANCE: Final = Tolerance(rel=1e-9)
_TEMPLATE: Final = re.compile(r"^\{([A-Za-z_][A-Za-z0-9_]*)\}$")

Located = tuple[Origin | None, Finding]


def evidence_kinds(card: Card) -> tuple[str, ...]:
    """Which kinds of evidence a computed card gives (an experiment only with an `answer`)."""
    if card.kind not in COMPUTED_KINDS:
        return ()
    given = {
        "examples": bool(card.examples),
        "agrees_with": bool(card.agrees_with),
        "defines": card.defines is not None,
        "experiment": card.experiment is not None and card.experiment.answer is not None,
    }
    return tuple(kind for kind in EVIDENCE_KINDS if given[kind])


def _at(values: Mapping[str, float]) -> str:
    shown = ", ".join(f"{name}={format_number(value)}" for name, value in values.items())
    return f" at {shown}" if shown else ""


def _close(
    tolerance: Tolerance,
    expected: float,
    got: float,
    what: str,
    said: str = "expected",
    rule: str | None = None,
) -> Finding | None:
    """None when `got` is within `tolerance` of `expected`; else both, side by side."""
    if within(got, expected, tolerance):
        return None
    shown, computed = format_number(expected, 8), format_number(got, 8)
    rule = rule or describe_tolerance(tolerance)
    return Finding(
        f"{what}: {said} {shown} ({rule}), the answer gives {computed}",
        shown,
        computed,
    )


def written_tolerance(value: float) -> Tolerance:
    """Half a unit in the last digit `value` is written with: `44` ±0.5, `0.366` ±0.0005.

    YAML has read the number already, so the digits are the shortest that give it back:
    `0.50` counts as `0.5`, and a whole number is exact to the unit (`1024000` ±0.5).
    """
    exponent = Decimal(repr(abs(value))).normalize().as_tuple().exponent
    assert isinstance(exponent, int)  # a finite value: the model refuses inf and nan
    return Tolerance(abs=float(Decimal(5).scaleb(min(exponent, 0) - 1)))


def _stray(
    card: Card, answer: Expression, values: Mapping[str, float], what: str
) -> Finding | None:
    """A finding when `values` name something that is neither a parameter nor in the answer."""
    stray = sorted(values.keys() - answer.names - card.params.keys())
    if not stray:
        return None
    listed = ", ".join(f"`{name}`" for name in stray)
    return Finding(f"{what}: {listed} is neither a parameter nor a name in the answer")


def _value_at(answer: Expression, values: Mapping[str, float], what: str) -> float | Finding:
    """The answer's value at `values`, or a finding saying why it has none."""
    try:
        return answer.evaluate(values)
    except ExpressionTimeout:
        raise
    except ExpressionError as error:
        return Finding(f"{what}: the answer has no value there: {error.message}")


def _example(card: Card, answer: Expression, example: Example) -> Finding | None:
    what = f"example{_at(example.params)}"
    names = answer.names | card.params.keys()
    stray = _stray(card, answer, example.params, what)
    if stray is not None:
        return stray
    if example.value is not None:
        got = _value_at(answer, example.params, what)
        if isinstance(got, Finding):
            return got
        if example.tolerance is not None:
            return _close(example.tolerance, example.value, got, what)
        tolerance = written_tolerance(example.value)
        rule = f"{describe_tolerance(tolerance)}, as written"
        return _close(tolerance, example.value, got, what, rule=rule)
    assert example.expr is not None
    try:
        parse(example.expr, names=names)
    except ExpressionError as error:
        return Finding(f"{what}: bad `expr`: {error.message}")
    if same_expression(example.expr, answer.text, names=names, values=example.params):
        return None
    shown = f"the answer `{answer.text}` is not `{example.expr}` there"
    return Finding(f"{what}: {shown}", example.expr)


def _agreement(
    card: Card, answer: Expression, agreement: Agreement, claim: Claim
) -> Finding | None:
    what = f"agrees_with `{claim.id}`{_at(agreement.params)}"
    try:
        stated = parse(claim.expr).evaluate()
    except ExpressionError:
        return None  # the claim's own check reports it
    got = _stray(card, answer, agreement.params, what) or _value_at(answer, agreement.params, what)
    if isinstance(got, Finding):
        return got
    if agreement.tolerance is not None:
        return _close(agreement.tolerance, stated, got, what, "the claim says")
    return _close(AGREEMENT_TOLERANCE, stated, got, what, "the claim says", "to 1e-9 relative")


def _defines(card: Card, answer: Expression, defines: str) -> Finding | None:
    names = answer.names | card.params.keys()
    try:
        parse(defines, names=names)
    except ExpressionError as error:
        return Finding(f"bad `defines` expression: {error.message}")
    if same_expression(answer.text, defines, names=names, values={}):
        return None
    where = counterexample(parse(f"({answer.text}) == ({defines})", names=names))
    return Finding(f"the answer `{answer.text}` is not `{defines}` (`defines`){where}", defines)


def _link_findings(card: Card) -> list[Finding]:
    """An experiment link on a computed card passes the card's parameters and names an answer."""
    link = card.experiment
    if link is None:
        return []
    if link.answer is None:
        return [
            Finding(
                f"the `{link.name}` link names no `answer`: name the answer that measures "
                "this card (and pass the card's parameters), or remove the link"
            )
        ]
    passed = {
        match.group(1)
        for value in link.params.values()
        if isinstance(value, str) and (match := _TEMPLATE.match(value))
    }
    return [
        Finding(
            f'the `{link.name}` link does not pass `{name}`: add `<its parameter>: "{{{name}}}"` '
            "to its params, so the run measures the card's case"
        )
        for name in sorted(card.params.keys() - passed)
    ]


def check_evidence(card: Card, note: Note | None) -> list[Located]:
    """What is wrong with a computed card's evidence, each at the line it concerns."""
    if card.kind not in COMPUTED_KINDS:
        return []
    answer = answer_expression(card)
    claims = {c.id: c for s in note.sections for c in s.claims} if note is not None else {}
    found: list[Located] = [(card.origin, finding) for finding in _link_findings(card)]
    try:
        for example in card.examples:
            finding = _example(card, answer, example)
            if finding is not None:
                found.append((example.origin or card.origin, finding))
        for agreement in card.agrees_with:
            claim = claims.get(agreement.claim)
            finding = _agreement(card, answer, agreement, claim) if claim else None
            if finding is not None:
                found.append((agreement.origin or card.origin, finding))
        if card.defines is not None:
            finding = _defines(card, answer, card.defines)
            if finding is not None:
                found.append((card.origin, finding))
    except ExpressionTimeout as error:
        found.append((card.origin, Finding(f"evidence could not be checked in time: {error}")))
    if not evidence_kinds(card):
        found.append((card.origin, Finding(NO_EVIDENCE)))
    return found


def compare_measured(
    card: Card, values: Mapping[str, float], key: str, measured: object
) -> Finding | None:
    """None when the formula at `values` is within the link's (else the card's) tolerance."""
    assert card.experiment is not None
    what = f"`{key}`{_at(values)}"
    if isinstance(measured, bool) or not isinstance(measured, int | float):
        return Finding(f"{what} is {measured!r}, not a number")
    try:
        got = _value_at(answer_expression(card), values, what)
    except ExpressionTimeout as error:
        return Finding(f"{what}: {error.message}")
    if isinstance(got, Finding):
        return got
    tolerance = card.experiment.tolerance or card.tolerance or DEFAULT_TOLERANCE
    return _close(tolerance, float(measured), got, what, "the experiment measured")

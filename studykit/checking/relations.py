"""Deciding one relation between two sides of an equation written in prose.

`=` is exact: sympy decides where it can (decimals are read as the exact fractions they
write, so `\\sigma(0) = 0.5` holds); where it cannot (irrational values), both sides must
agree to float rounding (relative 1e-14), so a rounded decimal needs `\\approx`.
`\\approx` holds within half a unit in the last digit of the written number
(`0.815` -> ±0.0005, `2.68 \\times 10^{-7}` -> ±0.005e-7, `748` -> ±0.5).
`<`, `\\le`, `>`, `\\ge`, `\\ne` compare the values. With free variables, `=` and the order
relations are checked as identities at sample points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Final, Literal

from studykit.checking.claims import EQUALS_REL_TOL
from studykit.expressions import Expression, ExpressionError, parse
from studykit.expressions.texnodes import Node, render, written_number
from studykit.quiz.variants import format_number

Verdict = Literal["verified", "skipped", "wrong"]
# Float noise allowed on top of half a unit (0.0005 written as 5e-4 is not exact in binary).
_SLACK: Final = 1e-9
ORDER: Final = frozenset({"<", "≤", ">", "≥", "≠"})


@dataclass(frozen=True, slots=True)
class Outcome:
    """The verdict on one relation, and what the author reads about it."""

    verdict: Verdict
    reason: str = ""
    expected: str | None = None
    computed: str | None = None
    category: str = ""  # a SkipCategory's value, for a skip whose reason is known at the source


def value(node: Node) -> float:
    """The float value of a side with no free variables (ExpressionError if it has none)."""
    return expression(node).evaluate()


def expression(node: Node, *, free: bool = False) -> Expression:
    return parse(render(node), free_symbols=free)


def _shown(number: float) -> str:
    return format_number(number, 6)


def numeric(left: Node, relation: str, right: Node) -> Outcome:
    """Both sides are numbers: decide the relation (ExpressionError when one has no value)."""
    a, b = value(left), value(right)
    if relation == "=":
        return _equal(left, right, a, b)
    if relation == "≈":
        return _approx(left, right, a, b)
    holds = {
        "<": a < b,
        ">": a > b,
        "≤": a <= b or math.isclose(a, b, rel_tol=1e-12),
        "≥": a >= b or math.isclose(a, b, rel_tol=1e-12),
        "≠": not math.isclose(a, b, rel_tol=1e-12),
    }[relation]
    if holds:
        return Outcome("verified")
    return Outcome("wrong", f"{_shown(a)} {relation} {_shown(b)} is false")


def _equal(left: Node, right: Node, a: float, b: float) -> Outcome:
    close = math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300)
    if close and expression_equal(left, right):
        return Outcome("verified")
    hint = ""
    if close or _within(a, written_number(right)):
        hint = " (equal only when rounded: write `\\approx`)"
    return Outcome(
        "wrong",
        f"left side is {format_number(a, 10)}, right side {format_number(b, 10)}{hint}",
        format_number(b, 10),
        format_number(a, 10),
    )


def expression_equal(left: Node, right: Node) -> bool:
    """Exactly equal (sympy), or to float rounding where sympy cannot decide."""
    both = parse(f"({render(left)}) == ({render(right)})")
    return both.holds(rel_tol=EQUALS_REL_TOL, abs_tol=1e-300)


def _within(computed: float, written: tuple[Fraction, Fraction] | None) -> bool:
    if written is None:
        return False
    target, half = written
    return abs(computed - float(target)) <= float(half) * (1 + _SLACK) + 1e-300


def _approx(left: Node, right: Node, a: float, b: float) -> Outcome:
    written = written_number(right)
    computed = a
    if written is None:
        written, computed = written_number(left), b
    if written is None:
        reason = "`\\approx` between two expressions: no written digits"
        return Outcome("skipped", reason, category="approximation")
    target, half = written
    if _within(computed, written):
        return Outcome("verified")
    return Outcome(
        "wrong",
        f"computed {_shown(computed)}, which is not {format_number(float(target), 10)} "
        f"to the written digits (±{float(half):g})",
        format_number(float(target), 10),
        _shown(computed),
    )


def agrees(computed: float, relation: str, written: tuple[Fraction, Fraction]) -> bool:
    """A claim's computed value against the number its `says` writes."""
    if relation == "=":
        return math.isclose(computed, float(written[0]), rel_tol=EQUALS_REL_TOL, abs_tol=1e-300)
    return _within(computed, written)


def identity(left: Node, relation: str, right: Node) -> bool:
    """Whether the relation holds at sample points for every free variable."""
    mark = {"=": "==", "<": "<", "≤": "<=", ">": ">", "≥": ">="}[relation]
    both = parse(f"({render(left)}) {mark} ({render(right)})", free_symbols=True)
    return both.holds()


__all__ = ["ORDER", "ExpressionError", "Outcome", "Verdict", "agrees", "identity", "numeric"]

"""Checking one claim: a number within tolerance, an exact value, or an identity."""

from __future__ import annotations

import ast
import math
import warnings
from typing import Final

from studykit.checking.findings import Finding
from studykit.checking.growth import check_order_claim
from studykit.content.model import Claim
from studykit.expressions import Expression, ExpressionError, ExpressionTimeout, parse
from studykit.quiz.variants import format_number

# A claim with `approx` but neither `rel_tol` nor `abs_tol` must match to one part in a million.
DEFAULT_REL_TOL: Final = 1e-6
# `equals` that sympy cannot settle exactly is compared as floats this closely.
EQUALS_REL_TOL: Final = 1e-14
# Where a false identity is shown to differ (the first point where both sides have a value).
_PROBES: Final = (0.7, 1.3, 2.1, -0.4, 3.0)


def check_claim(claim: Claim) -> Finding | None:
    """None when the claim is right; otherwise what is wrong with it."""
    unbounded = _non_finite(claim)
    if unbounded is not None:
        return Finding(f"`{unbounded}` must be a finite number, not {getattr(claim, unbounded)}")
    try:
        if claim.order is not None:
            return check_order_claim(claim)
        if claim.approx is not None:
            return _check_approx(claim, claim.approx)
        if claim.equals is not None:
            return _check_equals(claim, claim.equals)
        return _check_identity(claim)
    except ExpressionTimeout as error:
        return Finding(f"could not be checked in time: {error.message}")
    except ExpressionError as error:
        return Finding(f"bad expression: {error.message}")


def _non_finite(claim: Claim) -> str | None:
    """The first of `approx`, `rel_tol`, `abs_tol` that is NaN or infinite (that check nothing)."""
    for name in ("approx", "rel_tol", "abs_tol"):
        value = getattr(claim, name)
        if value is not None and not math.isfinite(value):
            return name
    return None


def _value(text: str) -> float:
    return parse(text).evaluate()


def _check_approx(claim: Claim, approx: float) -> Finding | None:
    computed = _value(claim.expr)
    rel = claim.rel_tol if claim.rel_tol is not None else 0.0
    absolute = claim.abs_tol if claim.abs_tol is not None else 0.0
    if claim.rel_tol is None and claim.abs_tol is None:
        rel = DEFAULT_REL_TOL
    if math.isclose(computed, approx, rel_tol=rel, abs_tol=absolute):
        return None
    tolerances = [f"rel_tol {rel:g}"] if rel else []
    tolerances += [f"abs_tol {absolute:g}"] if absolute else []
    expected = f"{approx:g} ({', '.join(tolerances)})"
    shown = format_number(computed)
    if shown == format_number(approx):
        shown = format_number(computed, 12)
    off = f" (off by {abs(computed - approx) / abs(approx):.2%})" if approx else ""
    return Finding(f"expected {expected}, computed {shown}{off}", expected, shown)


def _check_equals(claim: Claim, equals: str) -> Finding | None:
    computed = _value(claim.expr)
    try:
        target = _value(equals)
    except ExpressionError as error:
        return Finding(f"bad expression in `equals`: {error.message}")
    # Exact: sympy decides; where it cannot, the floats may differ only by rounding noise.
    if parse(f"({claim.expr}) == ({equals})").holds(rel_tol=EQUALS_REL_TOL, abs_tol=1e-15):
        return None
    expected = equals if format_number(target, 12) == equals else f"{equals} = {target:.12g}"
    shown = format_number(computed, 12)
    return Finding(f"expected {expected}, computed {shown}", expected, shown)


def _check_identity(claim: Claim) -> Finding | None:
    identity = parse(claim.expr, free_symbols=True)
    if not identity.is_identity:
        return Finding(f"`{claim.expr}` is not an identity (`a == b`)")
    if identity.holds():
        return None
    where = counterexample(identity)
    return Finding(f"the identity does not hold{where}", identity.text, where[2:] or None)


def _sides(identity: Expression) -> tuple[Expression, Expression] | None:
    """Both sides as expressions of their own (the text already passed the whitelist)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(identity.text, mode="eval").body
    if not isinstance(tree, ast.Compare):
        return None
    left = ast.get_source_segment(identity.text, tree.left)
    right = ast.get_source_segment(identity.text, tree.comparators[0])
    if left is None or right is None:
        return None
    return parse(left, free_symbols=True), parse(right, free_symbols=True)


def counterexample(identity: Expression) -> str:
    """`: at z = 0.7, left 0.63 but right 0.71`, or "" when no point shows it."""
    sides = _sides(identity)
    if sides is None:
        return ""
    names = sorted(identity.names)
    for probe in _PROBES:
        values = {name: probe * (k + 1) for k, name in enumerate(names)}
        try:
            left = sides[0].evaluate(values)
            right = sides[1].evaluate(values)
        except ExpressionError:
            continue
        if not math.isclose(left, right, rel_tol=1e-9, abs_tol=1e-12):
            at = ", ".join(f"{name} = {format_number(value)}" for name, value in values.items())
            prefix = f" at {at}:" if at else ""
            return f":{prefix} left side is {left:.6g}, right side is {right:.6g}"
    return ""

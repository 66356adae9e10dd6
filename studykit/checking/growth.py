"""Complexity claims: does a cost formula grow as the `O(·)` written for it says?

Two growths are the same order when, for each variable on its own going to infinity (the
others held at any positive value), their ratio stays finite and non-zero: `O(T \\cdot d)`
is the order of `T*d + d`, not of `T*d + T**2`.
"""

from __future__ import annotations

import functools
from typing import Final

from studykit.checking.findings import Finding
from studykit.content.model import Claim
from studykit.expressions import parse
from studykit.expressions.lazysympy import sympy_module
from studykit.expressions.timelimit import with_time_limit

# Seconds sympy may take over one comparison of two growths.
ORDER_TIME_LIMIT_S: Final = 2.0
# How far a measured exponent (a slope between two sizes) may sit from the order's.
GROWTH_SLACK: Final = 0.1


def check_order_claim(claim: Claim) -> Finding | None:
    """None when the claim's `expr` (the cost) grows as its `order` says."""
    assert claim.order is not None
    differs = growth_difference(claim.expr, claim.order)
    if differs is None:
        return None
    return Finding(f"the cost `{claim.expr}` is not O({claim.order}): {differs}")


@functools.lru_cache(maxsize=256)
def growth_difference(cost: str, order: str) -> str | None:
    """None when `cost` grows as `order` does; otherwise in which variable they part."""
    sp = sympy_module()
    a = parse(cost, free_symbols=True).exact()
    b = parse(order, free_symbols=True).exact()

    def compare() -> str | None:
        positive = {s: sp.Symbol(s.name, positive=True) for s in a.free_symbols | b.free_symbols}
        ratio = (a / b).subs(positive)
        for symbol in sorted(positive.values(), key=str):
            limit = sp.limit(ratio, symbol, sp.oo)
            if limit == 0:
                return f"O({order}) grows faster than the cost in `{symbol}`"
            if limit.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
                return f"the cost grows faster than O({order}) in `{symbol}`"
        return None

    result: str | None = with_time_limit(ORDER_TIME_LIMIT_S, compare, what=f"O({order})")
    return result


def check_measured_growth(claim: Claim, exponent: float) -> Finding | None:
    """None when `exponent` (measured) is the claim order's exponent in its variable."""
    assert claim.order is not None and claim.growth is not None
    expected = order_exponent(claim.order, claim.growth.variable)
    if expected is None:
        return Finding(
            f"O({claim.order}) does not grow as a power of `{claim.growth.variable}`, so a "
            "measured exponent cannot back it"
        )
    if abs(exponent - expected) <= GROWTH_SLACK:
        return None
    return Finding(
        f"`{claim.growth.measured}` measured growth exponent {exponent:.3g} in "
        f"`{claim.growth.variable}`, but O({claim.order}) grows as "
        f"{claim.growth.variable}^{expected:g} (±{GROWTH_SLACK:g})",
        expected=f"{expected:g}",
        computed=f"{exponent:.6g}",
    )


@functools.lru_cache(maxsize=256)
def order_exponent(order: str, variable: str) -> float | None:
    """The power of `variable` that `order` grows as (others held fixed), or None."""
    sp = sympy_module()
    growth = parse(order, free_symbols=True).exact()

    def exponent() -> float | None:
        positive = {s: sp.Symbol(s.name, positive=True) for s in growth.free_symbols}
        chosen = next((p for s, p in positive.items() if s.name == variable), None)
        if chosen is None:
            return 0.0
        limit = sp.limit(sp.log(growth.subs(positive)) / sp.log(chosen), chosen, sp.oo)
        return float(limit) if limit.is_finite else None

    result: float | None = with_time_limit(ORDER_TIME_LIMIT_S, exponent, what=f"O({order})")
    return result

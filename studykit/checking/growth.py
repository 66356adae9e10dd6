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

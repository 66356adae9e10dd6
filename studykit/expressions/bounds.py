"""Size guards that keep exact numbers, powers and sum ranges within the limits."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from studykit.expressions.errors import ExpressionError
from studykit.expressions.lazysympy import sympy_module
from studykit.expressions.limits import MAX_EXACT_BITS, MAX_EXPONENT, MAX_LITERAL_ABS, MAX_SUM_TERMS


class TooBig(Exception):
    """An exact or float number past the bounds; turned into an ExpressionError by the caller."""


def guard(value: Any) -> Any:
    """Reject a freshly built number that is too big to keep working with safely."""
    if value.is_Rational:
        if max(abs(value.p).bit_length(), value.q.bit_length()) > MAX_EXACT_BITS:
            raise TooBig("an exact number with more than about 12,000 digits")
    elif value.is_Float and not abs(float(value)) <= MAX_LITERAL_ABS:  # also catches nan
        raise TooBig("a number larger than 1e300")
    return value


def checked_pow(base: Any, exponent: Any) -> Any:
    """sympy.Pow, refused when the exact result would grow past the bounds."""
    sp = sympy_module()
    if exponent.is_Rational:
        size = abs(exponent)
        if exponent.q > MAX_EXPONENT:
            raise TooBig(f"an exponent with denominator over {MAX_EXPONENT}")
        if base.is_Rational:
            bits = max(abs(base.p).bit_length(), base.q.bit_length(), 1)
            if size > MAX_EXACT_BITS or bits * size > MAX_EXACT_BITS:
                raise TooBig("an exact power with more than about 12,000 digits")
        elif not base.is_Float and size > MAX_EXPONENT:
            raise TooBig(f"an exponent over {MAX_EXPONENT}")
    return guard(sp.Pow(base, exponent))


def check_range(
    first: object, last: object, error: Callable[[str], ExpressionError]
) -> tuple[int, int]:
    """Sum bounds as ints, or an error: they must be whole and span at most MAX_SUM_TERMS."""
    bounds: list[int] = []
    for value in (first, last):
        number = float(value) if isinstance(value, int | float) else math.nan
        if not (math.isfinite(number) and number == int(number)):
            raise error(f"sum bounds must be whole numbers in {{piece}} ({{where}}), got {value}")
        bounds.append(int(number))
    if bounds[1] - bounds[0] + 1 > MAX_SUM_TERMS:
        raise error(f"sum {{piece}} has more than {MAX_SUM_TERMS} terms ({{where}})")
    return bounds[0], bounds[1]


def plain_number(value: Any) -> object:
    """A sympy number as a Python int or float where it is real and whole or finite."""
    if value.is_Integer:
        return int(value)
    if value.is_real and value.is_finite:
        return float(value)
    return value

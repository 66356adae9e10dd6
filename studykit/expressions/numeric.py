"""Float evaluation of a built sympy tree (cannot hang: bounded sums, O(1) float operations)."""

from __future__ import annotations

import cmath
import math
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Final

from studykit.expressions.errors import said
from studykit.expressions.lazysympy import sympy_module
from studykit.expressions.limits import MAX_SUM_TERMS, MAX_TOTAL_TERMS


class NoValue(Exception):
    """No real, finite value at this point."""


_REAL: Final[Mapping[str, Callable[[float], float]]] = MappingProxyType(
    {
        "log": math.log,
        "exp": math.exp,
        "sin": math.sin,
        "cos": math.cos,
        "tan": math.tan,
        "asin": math.asin,
        "acos": math.acos,
        "atan": math.atan,
        "sinh": math.sinh,
        "cosh": math.cosh,
        "tanh": math.tanh,
    }
)
_COMPLEX: Final[Mapping[str, Callable[[complex], complex]]] = MappingProxyType(
    {
        "log": cmath.log,
        "exp": cmath.exp,
        "sin": cmath.sin,
        "cos": cmath.cos,
        "tan": cmath.tan,
        "asin": cmath.asin,
        "acos": cmath.acos,
        "atan": cmath.atan,
        "sinh": cmath.sinh,
        "cosh": cmath.cosh,
        "tanh": cmath.tanh,
    }
)


def as_real(value: complex) -> float:
    if abs(value.imag) > 1e-12 * max(1.0, abs(value.real)):
        raise NoValue(f"not a real number ({value.real:g}{value.imag:+g}i)")
    if not math.isfinite(value.real):
        raise NoValue("not finite")
    return value.real


class Numeric:
    """Float (complex where needed) evaluation of a built sympy tree."""

    def __init__(self, env: Mapping[Any, float]) -> None:
        self.sp = sympy_module()
        self.env = dict(env)
        self.terms_left = MAX_TOTAL_TERMS

    def real(self, expr: Any) -> float:
        try:
            return as_real(self.value(expr))
        except ZeroDivisionError:
            raise NoValue("undefined (division by zero)") from None
        except OverflowError:
            raise NoValue("too large") from None
        except ValueError:
            raise NoValue("undefined (outside the function's domain)") from None
        except NoValue:
            raise
        except Exception as exc:  # a sympy node this evaluator does not know misbehaving
            raise NoValue(f"cannot evaluate: {said(exc)}") from None

    def value(self, expr: Any) -> complex:
        sp = self.sp
        if expr.is_Symbol:
            if expr not in self.env:
                raise NoValue(f"no value for `{expr}`")
            return complex(self.env[expr])
        if expr.is_Integer:
            return complex(int(expr))
        if expr.is_Rational:
            return complex(int(expr.p) / int(expr.q))
        if expr.is_Float:
            return complex(float(expr))
        if expr is sp.pi:
            return complex(math.pi)
        if expr is sp.E:
            return complex(math.e)
        if expr is sp.I:
            return 1j
        if expr in (sp.zoo, sp.nan, sp.oo, -sp.oo):
            raise NoValue("undefined (division by zero or an infinite value)")
        if expr.is_Add:
            return sum((self.value(arg) for arg in expr.args), complex(0))
        if expr.is_Mul:
            product = complex(1)
            for arg in expr.args:
                product *= self.value(arg)
            return product
        if expr.is_Pow:
            return self.power(self.value(expr.base), self.value(expr.exp))
        if isinstance(expr, sp.Sum):
            return self.sum(expr)
        name = type(expr).__name__
        if name in _REAL and len(expr.args) == 1:
            argument = self.value(expr.args[0])
            if argument.imag == 0:
                try:
                    return complex(_REAL[name](argument.real))
                except ValueError:
                    pass  # outside the real domain: the complex branch decides
            return _COMPLEX[name](argument)
        return self.real_only(expr, name)

    def real_only(self, expr: Any, name: str) -> complex:
        args = [self.value(arg) for arg in expr.args]
        if name == "Abs":
            return complex(abs(args[0]))
        reals = [as_real(arg) for arg in args]
        if name == "floor":
            return complex(math.floor(reals[0]))
        if name == "ceiling":
            return complex(math.ceil(reals[0]))
        if name == "Max":
            return complex(max(reals))
        if name == "Min":
            return complex(min(reals))
        if name == "sign":
            return complex((reals[0] > 0) - (reals[0] < 0))
        if name == "Heaviside" and reals[0] != 0:
            return complex(1.0 if reals[0] > 0 else 0.0)
        return self.fallback(expr)

    def fallback(self, expr: Any) -> complex:
        # Rare node kinds (e.g. from diff): sympy's own evalf at the same point.
        sp = self.sp
        point = {symbol: sp.Float(value) for symbol, value in self.env.items()}
        try:
            return complex(expr.xreplace(point).evalf(15))
        except (TypeError, ValueError, ArithmeticError):
            raise NoValue(f"cannot evaluate `{expr}`") from None

    @staticmethod
    def power(base: complex, exponent: complex) -> complex:
        if base.imag == 0 and exponent.imag == 0:
            real_base, real_exponent = base.real, exponent.real
            if real_base >= 0 or real_exponent == int(real_exponent):
                return complex(real_base**real_exponent)
        return base**exponent

    def sum(self, expr: Any) -> complex:
        # sympy merges nested sums into one Sum whose first limit is the innermost.
        return self.sum_over(expr.function, list(expr.limits))

    def sum_over(self, body: Any, limits: list[Any]) -> complex:
        if not limits:
            return self.value(body)
        symbol, low, high = limits[-1]
        first, last = as_real(self.value(low)), as_real(self.value(high))
        if first != int(first) or last != int(last):
            raise NoValue(f"sum bounds must be whole numbers, got {first:g} and {last:g}")
        count = int(last) - int(first) + 1
        if count > MAX_SUM_TERMS:
            raise NoValue(f"the sum has {count} terms; at most {MAX_SUM_TERMS}")
        self.terms_left -= max(count, 0)
        if self.terms_left < 0:
            raise NoValue(f"sums expand to more than {MAX_TOTAL_TERMS} terms in all")
        saved = self.env.get(symbol)
        total = complex(0)
        try:
            for index in range(int(first), int(last) + 1):
                self.env[symbol] = float(index)
                total += self.sum_over(body, limits[:-1])
        finally:
            if saved is None:
                self.env.pop(symbol, None)
            else:
                self.env[symbol] = saved
        return total

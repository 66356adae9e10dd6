"""Building sympy objects from a checked tree, and substituting into them, within the bounds."""

from __future__ import annotations

import ast
import functools
import math
from collections.abc import Mapping
from typing import Any

from studykit.expressions.bounds import TooBig, check_range, checked_pow, guard, plain_number
from studykit.expressions.errors import ExpressionError, Source
from studykit.expressions.grammar import ADDITIVE, MULTIPLICATIVE, chain
from studykit.expressions.lazysympy import integer_symbol, real_symbol, sympy_module
from studykit.expressions.numeric import Numeric


@functools.cache
def _bounded_sum() -> Any:
    """sympy.Sum whose numeric value comes from our bounded float loop.

    sympy's own Sum.evalf (Euler-Maclaurin) can crawl for a few thousand plain terms, and
    functions like ceiling() or max() call it while they are being built.
    """
    sp = sympy_module()

    class BoundedSum(sp.Sum):  # type: ignore[misc, name-defined, unused-ignore]
        def _eval_evalf(self, prec: int) -> Any:
            if self.free_symbols:
                return None
            value = _closed_sum_value(self)
            if value is None:
                return None
            dps = max(15, int(prec * math.log10(2)))
            return sp.Float(value.real, dps) + sp.I * sp.Float(value.imag, dps)

    return BoundedSum


@functools.lru_cache(maxsize=256)
def _closed_sum_value(expr: Any) -> complex | None:
    """The float value of a sum without free symbols (cached: sympy asks for it repeatedly)."""
    try:
        return Numeric({}).value(expr)
    except Exception:  # no value here: sympy carries on without one
        return None


class Builder:
    """Checked AST -> sympy (evaluating, all names as real symbols)."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.sp = sympy_module()
        self.bound: dict[str, object] = {}  # sympy symbols of the sums being built

    def node(self, node: ast.expr) -> Any:
        """The sympy object for `node`; a number past the bounds is an ExpressionError here."""
        sp = self.sp
        try:
            if isinstance(node, ast.Constant):
                if isinstance(node.value, int):
                    return sp.Integer(node.value)
                return sp.Float(node.value)
            if isinstance(node, ast.Name):
                return self.name(node.id)
            if isinstance(node, ast.UnaryOp):
                operand = self.node(node.operand)
                return guard(-operand) if isinstance(node.op, ast.USub) else operand
            if isinstance(node, ast.BinOp):
                return self.binop(node)
            if isinstance(node, ast.Call):
                return self.call(node)
        except TooBig as exc:
            raise self.source.error(node, f"{{piece}} would build {exc} ({{where}})") from None
        raise self.source.error(node, "{piece} is not allowed ({where})")  # checked before

    def name(self, name: str) -> Any:
        if name == "pi":
            return self.sp.pi
        if name == "E":
            return self.sp.E
        if name in self.bound:
            return self.bound[name]
        return real_symbol(name)

    def binop(self, node: ast.BinOp) -> Any:
        sp = self.sp
        if isinstance(node.op, ast.Pow):
            return checked_pow(self.node(node.left), self.node(node.right))
        additive = isinstance(node.op, ADDITIVE)
        first, rest = chain(node, ADDITIVE if additive else MULTIPLICATIVE)
        result = self.node(first)
        for op, operand in rest:
            value = self.node(operand)
            if op is ast.Add:
                result = result + value
            elif op is ast.Sub:
                result = result - value
            elif op is ast.Mult:
                result = result * value
            else:
                result = result * checked_pow(value, sp.Integer(-1))
            guard(result)
        return result

    def call(self, node: ast.Call) -> Any:
        sp = self.sp
        name = node.func.id if isinstance(node.func, ast.Name) else ""
        if name == "sum":
            return self.sum(node)
        if name == "diff":
            var = node.args[1]
            assert isinstance(var, ast.Name)
            derivative = sp.diff(self.node(node.args[0]), self.name(var.id))
            if derivative.has(sp.Derivative):
                raise self.source.error(node, "cannot differentiate {piece} ({where})")
            return derivative
        args = [self.node(arg) for arg in node.args]
        if name == "log" and len(args) == 2:
            return guard(sp.log(args[0]) / sp.log(args[1]))
        function = {
            "log": sp.log,
            "ln": sp.log,
            "exp": sp.exp,
            "sqrt": sp.sqrt,
            "sin": sp.sin,
            "cos": sp.cos,
            "tan": sp.tan,
            "asin": sp.asin,
            "acos": sp.acos,
            "atan": sp.atan,
            "sinh": sp.sinh,
            "cosh": sp.cosh,
            "tanh": sp.tanh,
            "ceiling": sp.ceiling,
            "floor": sp.floor,
            "Abs": sp.Abs,
            "abs": sp.Abs,
            "min": sp.Min,
            "max": sp.Max,
        }[name]
        return guard(function(*args))

    def sum(self, node: ast.Call) -> Any:
        sp = self.sp
        body, var, low, high = node.args
        assert isinstance(var, ast.Name)
        first, last = self.node(low), self.node(high)
        if first.is_number and last.is_number:
            first, last = (
                sp.Integer(bound)
                for bound in check_range(
                    plain_number(first),
                    plain_number(last),
                    lambda message: self.source.error(node, message),
                )
            )
        symbol = integer_symbol(var.id)
        self.bound[var.id] = symbol
        try:
            return _bounded_sum()(self.node(body), (symbol, first, last))
        finally:
            del self.bound[var.id]


def rebuild(expr: Any, mapping: Mapping[Any, Any]) -> Any:
    """`expr` with symbols replaced, node by node through the same bounds as building."""
    sp = sympy_module()
    if expr in mapping:
        return mapping[expr]
    if not expr.args or not (expr.free_symbols & mapping.keys()):
        return expr
    args = [rebuild(arg, mapping) for arg in expr.args]
    if isinstance(expr, sp.Pow):
        return checked_pow(*args)
    if isinstance(expr, sp.Sum):

        def error(message: str) -> ExpressionError:
            where = "with the given values"
            text = message.replace("{where}", where)
            return ExpressionError(text.replace("{piece}", f"`{expr}`"))

        limits = []
        for var, first, last in args[1:]:
            if first.is_number and last.is_number:
                first, last = check_range(plain_number(first), plain_number(last), error)
            limits.append((var, first, last))
        return expr.func(args[0], *limits)
    return guard(expr.func(*args))

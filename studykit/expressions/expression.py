"""The Expression object: evaluate, substitute, decide and print a checked expression."""

from __future__ import annotations

import ast
import math
import numbers
import random
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from studykit.expressions.bounds import TooBig
from studykit.expressions.build import rebuild
from studykit.expressions.errors import ExpressionError, ExpressionTimeout, said
from studykit.expressions.latex import Latex
from studykit.expressions.lazysympy import preorder, real_symbol, sympy_module, to_sympy
from studykit.expressions.limits import (
    MAX_LITERAL_ABS,
    MAX_LITERAL_DIGITS,
    SAMPLE_ATTEMPTS,
    SAMPLE_POINTS,
    SIMPLIFY_TIME_LIMIT_S,
    TIME_LIMIT_S,
)
from studykit.expressions.numeric import NoValue, Numeric
from studykit.expressions.scripts import nfkc
from studykit.expressions.timelimit import with_time_limit

if TYPE_CHECKING:
    import sympy  # type: ignore[import-untyped, unused-ignore]

_NO_VALUES: Final[Mapping[str, float]] = MappingProxyType({})


def _number(name: str, value: object) -> int | float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ExpressionError(f"value for `{name}` must be a number, got {value!r}")
    value = int(value) if isinstance(value, numbers.Integral) else float(value)
    if isinstance(value, int) and abs(value) >= 10**MAX_LITERAL_DIGITS:
        raise ExpressionError(f"value for `{name}` has more than {MAX_LITERAL_DIGITS} digits")
    if isinstance(value, float) and not (math.isfinite(value) and abs(value) <= MAX_LITERAL_ABS):
        raise ExpressionError(f"value for `{name}` must be finite and at most 1e300")
    return value


def _exact(values: Mapping[str, int | float]) -> dict[Any, Any]:
    """Each name's symbol -> its value as an exact sympy number."""
    return {real_symbol(name): to_sympy(value) for name, value in values.items()}


@dataclass(frozen=True)
class Expression:
    """A checked expression: the text, the names it uses, and its sympy form."""

    text: str
    names: frozenset[str]
    relation: str | None  # "==", "<", "<=", ">", ">=" when the top node is a comparison
    _node: ast.expr = field(repr=False, compare=False)
    _lhs: Any = field(repr=False, compare=False)  # sympy; the whole expression if no relation
    _rhs: Any = field(repr=False, compare=False)  # sympy; None if no relation

    @property
    def is_identity(self) -> bool:
        """The top node is `==`: a claim that both sides are equal."""
        return self.relation == "=="

    def _values(self, values: Mapping[str, float]) -> dict[str, int | float]:
        given = {nfkc(name): value for name, value in values.items()}
        return {name: _number(name, given[name]) for name in self.names if name in given}

    def _fail(self, reason: str) -> ExpressionError:
        return ExpressionError(f"`{self.text}` {reason}", fragment=self.text)

    def evaluate(self, values: Mapping[str, float] = _NO_VALUES) -> float:
        """The value as a float with `values` substituted; every name needs a value."""
        if self.relation is not None:
            raise self._fail("is a comparison; use holds() to decide it")
        given = self._values(values)
        missing = sorted(self.names - given.keys())
        if missing:
            raise self._fail("needs a value for " + ", ".join(f"`{name}`" for name in missing))
        env = {real_symbol(name): float(value) for name, value in given.items()}

        def run() -> float:
            try:
                return Numeric(env).real(self._lhs)
            except NoValue as exc:
                raise self._fail(f"has no value: {exc}") from None

        return with_time_limit(TIME_LIMIT_S, run, what=f"evaluating `{self.text}`")

    def exact(self, values: Mapping[str, float] = _NO_VALUES) -> sympy.Expr:
        """The sympy expression (a relation for comparisons), `values` substituted exactly."""
        sp = sympy_module()
        mapping = _exact(self._values(values))

        def run() -> Any:
            try:
                lhs = rebuild(self._lhs, mapping)
                if self.relation is None:
                    return lhs
                rhs = rebuild(self._rhs, mapping)
            except TooBig as exc:
                raise self._fail(f"would build {exc}") from None
            except ExpressionError:
                raise
            except Exception as exc:  # sympy refusing the values, e.g. max(sqrt(x), 1) at x=-1
                raise self._fail(f"cannot take these values: {said(exc)}") from None
            relation = {"==": sp.Eq, "<": sp.Lt, "<=": sp.Le, ">": sp.Gt, ">=": sp.Ge}
            return relation[self.relation](lhs, rhs, evaluate=False)

        return with_time_limit(TIME_LIMIT_S, run, what=f"substituting into `{self.text}`")

    def holds(
        self,
        values: Mapping[str, float] = _NO_VALUES,
        *,
        rel_tol: float = 1e-9,
        abs_tol: float = 1e-12,
    ) -> bool:
        """Whether the comparison is true; names without a value are checked at sample points.

        `==` is first decided by `simplify(lhs - rhs) == 0`; where that cannot decide (or runs
        out of time), both sides are evaluated at seeded random points and compared within the
        tolerances. Other relations are decided numerically. Points where either side has no
        real value are skipped.
        """
        if self.relation is None:
            raise self._fail("is not a comparison (==, <, <=, >, >=)")
        given = self._values(values)
        if self.relation == "==":
            try:
                verdict = with_time_limit(
                    SIMPLIFY_TIME_LIMIT_S,
                    lambda: self._simplified_verdict(given),
                    what=f"simplifying `{self.text}`",
                )
            except ExpressionTimeout:
                verdict = None
            if verdict is not None:
                return verdict
        return with_time_limit(
            TIME_LIMIT_S,
            lambda: self._numeric_verdict(given, rel_tol, abs_tol),
            what=f"checking `{self.text}`",
        )

    def _simplified_verdict(self, given: Mapping[str, int | float]) -> bool | None:
        sp = sympy_module()
        mapping = _exact(given)
        try:
            difference = rebuild(self._lhs, mapping) - rebuild(self._rhs, mapping)
        except TooBig as exc:
            raise self._fail(f"would build {exc}") from None
        # A sum with symbolic bounds only simplifies once it is in closed form.
        try:
            open_sums = {
                node: node.doit()
                for node in preorder(difference)
                if isinstance(node, sp.Sum)
                and not all(bound.is_number for limit in node.limits for bound in limit[1:])
            }
            simplified = sp.simplify(difference.xreplace(open_sums))
        except Exception:  # sympy gave up; the numeric check decides
            return None
        if simplified == 0:
            return True
        if simplified.is_Rational:
            return False
        return None

    def _numeric_verdict(
        self, given: Mapping[str, int | float], rel_tol: float, abs_tol: float
    ) -> bool:
        base = {real_symbol(name): float(value) for name, value in given.items()}
        free = sorted(self.names - given.keys())
        if not free:
            try:
                return self._compare(base, rel_tol, abs_tol)
            except NoValue as exc:
                raise self._fail(f"cannot be decided: {exc}") from None
        integral = self._names_in_sum_bounds()
        rng = random.Random(zlib.crc32(self.text.encode()))
        agreed = 0
        for attempt in range(SAMPLE_ATTEMPTS):
            point = dict(base)
            for name in free:
                if name in integral:
                    point[real_symbol(name)] = float(rng.randint(0, 12))
                elif attempt % 2 == 0:
                    point[real_symbol(name)] = rng.uniform(0.1, 3.0)
                else:
                    point[real_symbol(name)] = rng.uniform(-3.0, 3.0)
            try:
                if not self._compare(point, rel_tol, abs_tol):
                    return False
            except NoValue:
                continue
            agreed += 1
            if agreed >= SAMPLE_POINTS:
                break
        if agreed == 0:
            raise self._fail("cannot be decided: no sample point gives both sides a real value")
        return True

    def _compare(self, env: Mapping[Any, float], rel_tol: float, abs_tol: float) -> bool:
        left, right = Numeric(env).real(self._lhs), Numeric(env).real(self._rhs)
        close = math.isclose(left, right, rel_tol=rel_tol, abs_tol=abs_tol)
        if self.relation == "==":
            return close
        if self.relation == "<":
            return left < right
        if self.relation == ">":
            return left > right
        if self.relation == "<=":
            return left <= right or close
        return left >= right or close

    def _names_in_sum_bounds(self) -> set[str]:
        sp = sympy_module()
        names: set[str] = set()
        for side in (self._lhs, self._rhs):
            for node in preorder(side):
                if isinstance(node, sp.Sum):
                    for limit in node.limits:
                        for bound in limit[1:]:
                            names.update(str(symbol) for symbol in bound.free_symbols)
        return names

    def latex(self) -> str:
        """LaTeX of the expression as written."""
        return Latex(_NO_VALUES).top(self._node)

    def substituted_latex(self, values: Mapping[str, float]) -> str:
        """LaTeX of the expression as written, with `values` put in for their names."""
        return Latex(self._values(values)).top(self._node)

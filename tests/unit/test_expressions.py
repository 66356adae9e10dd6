"""The safe expression parser: hostile text is refused, good maths is evaluated and checked."""

from __future__ import annotations

import ast
import contextlib
import math
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studykit import expressions
from studykit.core.errors import StudykitError
from studykit.expressions import (
    Expression,
    ExpressionError,
    ExpressionTimeout,
    parse,
    timelimit,
    with_time_limit,
)
from studykit.expressions import expression as expression_module

# A generous ceiling that only a hang would reach; it guards, it does not measure.
HANG_GUARD_S = 30.0


def finishes(fn: Callable[[], Any]) -> Any:
    """Run fn in a thread and return its outcome (value or exception); fail if it hangs."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(fn())
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(HANG_GUARD_S)
    assert not worker.is_alive(), "did not return: hung"
    return outcome[0]


HOSTILE = [
    "__import__('os').system('ls')",
    "__import__",
    "().__class__.__bases__[0].__subclasses__()",
    "open('/etc/passwd').read()",
    "open('/etc/passwd')",
    "lambda: 1",
    "(lambda: 1)()",
    "[x for x in range(10)]",
    "{x for x in (1, 2)}",
    "(x for x in (1,))",
    "'a'*10",
    "b'a'",
    "9**9**9",
    "10**10**10",
    "9**999999",
    "10**100000",
    "2**-1001",
    "(2**1000)**1000",
    "sqrt(2)**(9**9)",
    "floor(exp(1e300))",
    "floor(10.0**(10.0**300))",
    "(" * 200 + "1" + ")" * 200,
    "(" * 51 + "1" + ")" * 51,
    "-(" * 60 + "1" + ")" * 60,
    "sin(" * 60 + "1" + ")" * 60,
    "1+(" * 60 + "1" + ")" * 60,
    "-" * 1999 + "1",
    "1+" * 5000,
    "1+" * 999 + "1" + " " * 3,  # 2,002 characters
    "x.real",
    "pi.evalf()",
    "E.__class__",
    "exec('1')",
    "eval('1')",
    "compile('1', 'f', 'eval')",
    "sympify('1')",
    "parse_expr('1')",
    "S('1')",
    "Symbol('x')",
    "getattr(1,'real')",
    "globals()",
    "breakpoint()",
    "f'{1}'",
    "x:=1",
    "(x:=1)",
    "x if x else 1",
    "1 and 2",
    "1 or x",
    "not x",
    "~1",
    "1 < 2 < 3",
    "1 != 2",
    "x is 1",
    "x in (1, 2)",
    "(1 < 2) + 1",
    "log(1 < 2)",
    "1 // 2",
    "7 % 2",
    "2 ^ 3",
    "1 << 2",
    "x @ x",
    "1 & 2",
    "log(x=1)",
    "log(*x)",
    "max(**x)",
    "[1, 2]",
    "(1, 2)",
    "{1: 2}",
    "x[0]",
    "x[1:2]",
    "1j",
    "1e400",
    "123456789012345678901234567890123",
    "0.1234567890123456789012345678901234",
    "True",
    "None",
    "...",
    "(yield)",
    "await x",
    "import os",
    "x = 1",
    "1; 2",
    "\x00",
    "",
    "   ",
    "log",
    "log(x)(1)",
    "log()",
    "log(1, 2, 3)",
    "sin(1, 2)",
    "min(1)",
    "sum(1, k, 1)",
    "sum(1, k, 1, 10**6)",
    "sum(1, k, 1, 2.5)",
    "sum(1, 2, 1, 3)",
    "sum(1, x, 1, 3)",
    "sum(1, log, 1, 3)",
    "sum(sum(1, k, 1, 2), k, 1, 2)",
    "diff(x, 2)",
    "diff(floor(x), x)",
    "diff(x, y)",
    "y",
    "__x",
    "_x_",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_is_refused_with_an_expression_error(text: str) -> None:
    outcome = finishes(lambda: parse(text, names={"x"}))
    assert isinstance(outcome, ExpressionError), f"{text!r} was accepted: {outcome!r}"
    assert outcome.message


@pytest.mark.parametrize("text", ["x.real", "__x", "__import__"])
def test_dunders_and_attributes_stay_refused_with_free_symbols(text: str) -> None:
    with pytest.raises(ExpressionError):
        parse(text, free_symbols=True)


def test_expression_error_is_a_studykit_error_with_column_and_fragment() -> None:
    with pytest.raises(ExpressionError) as caught:
        parse("1 + __import__('os').system('ls')")
    error = caught.value
    assert isinstance(error, StudykitError)
    assert error.fragment == "__import__('os').system"
    assert error.column == 5
    assert str(error) == "attribute access not allowed: `__import__('os').system` (col 5)"


def test_disallowed_function_is_named_with_its_column_and_the_allowed_list() -> None:
    with pytest.raises(ExpressionError) as caught:
        parse("2 * exec(1)")
    assert caught.value.fragment == "exec"
    assert caught.value.column == 5
    message = str(caught.value)
    assert message.startswith("`exec` is not an allowed function (col 5); allowed: log, ln, exp")


def test_column_counts_characters_not_bytes() -> None:
    with pytest.raises(ExpressionError) as caught:
        parse("γ + δ.real", names={"γ", "δ"})
    assert caught.value.column == 5
    assert caught.value.fragment == "δ.real"


def test_syntax_error_becomes_an_expression_error_with_a_column() -> None:
    with pytest.raises(ExpressionError) as caught:
        parse("1 + * 2")
    assert caught.value.column == 5
    assert "not a valid expression" in str(caught.value)


def test_undeclared_name_lists_the_declared_ones() -> None:
    with pytest.raises(ExpressionError) as caught:
        parse("ceiling(log(0.01)/log(gama))", names={"gamma", "rho"})
    message = str(caught.value)
    assert "unknown name `gama` (col 23)" in message
    assert "did you mean `gamma`?" in message
    assert "declared: gamma, rho" in message
    assert caught.value.column == 23


def test_undeclared_name_without_declarations_says_so() -> None:
    with pytest.raises(ExpressionError, match="takes no names"):
        parse("x + 1")


def test_a_parameter_may_not_take_a_function_or_constant_name() -> None:
    with pytest.raises(ExpressionError, match="`E` cannot be a parameter name"):
        parse("E + 1", names={"E"})


def test_multi_line_text_reports_the_line() -> None:
    with pytest.raises(ExpressionError) as caught:
        parse("(1 +\n x.real)", names={"x"})
    assert (caught.value.line, caught.value.column) == (2, 2)
    assert "line 2, col 2" in str(caught.value)


def test_long_flat_sums_are_fine_but_length_is_capped() -> None:
    assert parse("+".join(["1"] * 900)).evaluate() == 900
    with pytest.raises(ExpressionError, match="too long"):
        parse("+".join(["1"] * 1001))


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_only_ever_raises_expression_error(text: str) -> None:
    outcome = finishes(lambda: parse(text, names={"x", "gamma"}))
    assert isinstance(outcome, Expression | ExpressionError), repr(outcome)


LEAVES = st.sampled_from(
    ["0", "1", "2", "9", "-1", "0.5", "1e3", "1000", "1e-300", "1e300", "x", "n", "pi", "E"]
)
UNARY = ["-", "+", "log", "ln", "exp", "sqrt", "sin", "asin", "acos", "tanh", "ceiling", "floor"]
UNARY += ["abs", "Abs", "cos", "tan", "atan", "sinh", "cosh"]


def _compound(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pair = st.tuples(children, children)
    return st.one_of(
        st.tuples(children, st.sampled_from(["+", "-", "*", "/", "**"]), children).map(
            lambda parts: f"({parts[0]} {parts[1]} {parts[2]})"
        ),
        st.tuples(st.sampled_from(UNARY), children).map(lambda parts: f"{parts[0]}({parts[1]})"),
        st.tuples(st.sampled_from(["log", "max", "min"]), pair).map(
            lambda parts: f"{parts[0]}({parts[1][0]}, {parts[1][1]})"
        ),
        st.tuples(
            st.sampled_from(["j", "k"]),
            children,
            st.sampled_from(["1", "0", "n", "x", "-3", "2.5"]),
            children,
        ).map(lambda parts: f"sum({parts[0]} * {parts[1]}, {parts[0]}, {parts[2]}, {parts[3]})"),
        children.map(lambda body: f"diff({body}, x)"),
    )


EXPRESSIONS = st.recursive(LEAVES, _compound, max_leaves=12)
RELATIONS = st.sampled_from(["", " == ", " < ", " >= "])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS, RELATIONS, EXPRESSIONS)
def test_random_maths_evaluates_or_raises_expression_error(left: str, op: str, right: str) -> None:
    text = left + op + right if op else left

    def run() -> object:
        expression = parse(text, free_symbols=True)
        values = {"x": 0.7, "n": 3}
        expression.latex()
        expression.substituted_latex(values)
        expression.exact(values)
        if expression.relation is not None:
            return expression.holds(values)
        return expression.evaluate(values)

    outcome = finishes(run)
    assert isinstance(outcome, bool | float | ExpressionError), repr(outcome)


@pytest.mark.parametrize(
    ("text", "values", "expected"),
    [
        ("log(0.01)/log(0.95)", {}, math.log(0.01) / math.log(0.95)),
        ("ceiling(log(0.01)/log(gamma))", {"gamma": 0.99}, 459),
        ("ceiling(log(0.01)/log(gamma))", {"gamma": 0.9}, 44),
        ("0.95**295", {}, 0.95**295),
        ("32*512", {}, 16384),
        ("log(32000, 2)*50", {}, math.log2(32000) * 50),
        ("sum(1/k**2, k, 1, 100)", {}, sum(1 / k**2 for k in range(1, 101))),
        ("sum(1/k**2, k, 1, 10000)", {}, sum(1 / k**2 for k in range(1, 10001))),
        (
            "sum(sum(j*k, j, 1, k), k, 1, 30)",
            {},
            sum(j * k for k in range(31) for j in range(k + 1)),
        ),
        ("sum(gamma**t, t, 0, n - 1)", {"gamma": 0.5, "n": 4}, 1.875),
        ("ln(E**2) + exp(0) + sqrt(16)", {}, 7),
        ("2**0.5 * 2**(1/2)", {}, 2),
        ("-2**2 + (-2)**2", {}, 0),
        ("abs(-3) + Abs(-2) + max(1, 5, 2) - min(4, 3)", {}, 7),
        ("floor(2.7) + ceiling(2.1)", {}, 5),
        ("sin(pi/6) + cos(0) + tan(0) + asin(1) + acos(1) + atan(1)", {}, 1.5 + math.pi * 0.75),
        ("sinh(0.5) + cosh(0.5) - exp(0.5)", {}, 0),
        ("diff(x**3, x)", {"x": 2}, 12),
        ("(-8)**(1/3) * 0 + 1", {}, 1),
        ("1e-300 * 1e-300", {}, 0),
    ],
)
def test_good_expressions_evaluate(text: str, values: dict[str, float], expected: float) -> None:
    expression = parse(text, names=values.keys())
    assert expression.evaluate(values) == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_effective_context_matches_the_closed_form_for_every_choice() -> None:
    expression = parse("ceiling(log(0.01)/log(gamma))", names={"gamma"})
    for gamma in (0.9, 0.95, 0.97, 0.99):
        assert expression.evaluate({"gamma": gamma}) == math.ceil(math.log(0.01) / math.log(gamma))


def test_known_values() -> None:
    assert parse("log(0.01)/log(0.95)").evaluate() == pytest.approx(89.78, abs=0.005)
    assert parse("0.95**295").evaluate() == pytest.approx(2.68e-7, rel=1e-3)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("log(-1)", "not a real number"),
        ("log(0)", "undefined"),
        ("1/0", "undefined"),
        ("0**-1", "undefined"),
        ("asin(2)", "not a real number"),
        ("sqrt(-4)", "not a real number"),
        ("10.0**300 * 10.0**300", "larger than 1e300"),
        ("exp(1000)", "too large"),
        ("sum(sum(1, j, 1, 10000), k, 1, 10000)", "more than 100000 terms"),
        ("max(log(-1), 1)", "cannot be built"),
    ],
)
def test_no_real_value_raises_expression_error(text: str, reason: str) -> None:
    with pytest.raises(ExpressionError, match=reason):
        parse(text).evaluate()


def test_evaluate_needs_every_name_and_numbers_only() -> None:
    expression = parse("gamma * rho", names={"gamma", "rho"})
    assert expression.names == frozenset({"gamma", "rho"})
    with pytest.raises(ExpressionError, match="needs a value for `rho`"):
        expression.evaluate({"gamma": 0.5})
    with pytest.raises(ExpressionError, match="must be a number"):
        expression.evaluate({"gamma": 0.5, "rho": True})
    with pytest.raises(ExpressionError, match="must be finite"):
        expression.evaluate({"gamma": 0.5, "rho": math.inf})
    assert expression.evaluate({"gamma": 0.5, "rho": 4, "unused": 1}) == 2


def test_values_cannot_smuggle_huge_exact_powers() -> None:
    expression = parse("x**k", names={"x", "k"})
    outcome = finishes(lambda: expression.exact({"x": 10, "k": 10**20}))
    assert isinstance(outcome, ExpressionError)
    assert "would build an exact power" in str(outcome)
    with pytest.raises(ExpressionError, match="too large"):
        expression.evaluate({"x": 10, "k": 10**20})
    assert expression.exact({"x": 2, "k": 10}) == 1024


def test_sum_bounds_from_values_are_checked() -> None:
    expression = parse("sum(k, k, 1, n)", names={"n"})
    assert expression.evaluate({"n": 100}) == 5050
    with pytest.raises(ExpressionError, match="terms"):
        expression.evaluate({"n": 10**6})
    with pytest.raises(ExpressionError, match="whole numbers"):
        expression.evaluate({"n": 2.5})


def test_sum_over_an_empty_range_is_zero() -> None:
    assert parse("sum(k, k, 5, 4)").evaluate() == 0


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("diff(tanh(z), z) == 1 - tanh(z)**2", True),
        ("sin(x)**2 + cos(x)**2 == 1", True),
        ("(x+1)**2 == x**2 + 1", False),
        ("(x+1)**2 == x**2 + 2*x + 1", True),
        ("log(x*y) == log(x) + log(y)", True),  # where both sides are real
        ("sqrt(x**2) == x", False),
        ("sum(k, k, 1, n) == n*(n+1)/2", True),
        ("sum(k, k, 1, n) == n**2/2", False),
        ("diff(exp(a*t), t) == a*exp(a*t)", True),
        ("exp(x) > 0", True),
        ("x**2 >= 0", True),
        ("x < 1", False),
        ("32*512 == 16384", True),
        ("0.1 + 0.2 == 0.3", True),
        ("pi < 3", False),
        ("log(32000, 2) * 50 > 700", True),
    ],
)
def test_identities_and_comparisons(text: str, holds: bool) -> None:
    expression = parse(text, free_symbols=True)
    assert expression.holds() is holds


def test_is_identity_only_for_equality() -> None:
    assert parse("x == x", free_symbols=True).is_identity
    assert not parse("x <= x", free_symbols=True).is_identity
    assert not parse("x", free_symbols=True).is_identity


def test_holds_uses_given_values_and_tolerances() -> None:
    expression = parse("0.95**k == approx", names={"k", "approx"})
    assert not expression.holds({"k": 295, "approx": 2.7e-7})
    assert expression.holds({"k": 295, "approx": 2.7e-7}, rel_tol=0.01)
    assert parse("gamma < 1", names={"gamma"}).holds({"gamma": 0.99})


def test_holds_falls_back_to_sample_points_when_simplify_runs_out_of_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(expression_module, "SIMPLIFY_TIME_LIMIT_S", 1e-6)
    assert parse("sin(x)**2 + cos(x)**2 == 1", free_symbols=True).holds()
    assert not parse("sin(x)**2 - cos(x)**2 == 1", free_symbols=True).holds()


def test_holds_without_any_real_sample_point_is_an_error() -> None:
    with pytest.raises(ExpressionError, match="no sample point"):
        parse("log(-x**2 - 1) == 0", free_symbols=True).holds()


def test_evaluate_and_holds_refuse_the_wrong_kind() -> None:
    with pytest.raises(ExpressionError, match="use holds"):
        parse("1 == 1").evaluate()
    with pytest.raises(ExpressionError, match="not a comparison"):
        parse("1 + 1").holds()


def test_exact_gives_sympy_with_values_substituted() -> None:
    import sympy  # type: ignore[import-untyped, unused-ignore]

    assert parse("32*512").exact() == sympy.Integer(16384)
    expression = parse("x**2 + 1/3", names={"x"})
    assert expression.exact({"x": 3}) == sympy.Rational(28, 3)
    assert expression.exact().free_symbols == {sympy.Symbol("x", real=True)}
    relation = parse("x == 2", names={"x"}).exact({"x": 2})
    assert isinstance(relation, sympy.Eq)


def test_latex_keeps_the_written_form() -> None:
    expression = parse("ceiling(log(0.01)/log(gamma))", names={"gamma"})
    assert expression.latex() == (
        r"\left\lceil \frac{\log\left(0.01\right)}{\log\left(\gamma\right)} \right\rceil"
    )
    substituted = expression.substituted_latex({"gamma": 0.99})
    assert r"\log\left(0.99\right)" in substituted
    assert r"\gamma" not in substituted


@pytest.mark.parametrize(
    ("text", "values", "latex"),
    [
        ("x**2", {"x": -3}, r"\left(-3\right)^{2}"),
        ("a - (b + c)", {}, r"a - \left(b + c\right)"),
        ("a + -b", {}, r"a + \left(-b\right)"),
        ("(a + b) * c", {}, r"\left(a + b\right) \cdot c"),
        ("sum(1/k**2, k, 1, n)", {"n": 100}, r"\sum_{k=1}^{100} \frac{1}{k^{2}}"),
        ("log(x, 2)", {}, r"\log_{2}\left(x\right)"),
        (
            "diff(tanh(z), z)",
            {"z": 0.5},
            r"\left. \frac{d}{dz} \tanh\left(z\right) \right|_{z=0.5}",
        ),
        ("W_hh * h", {}, r"W_{hh} \cdot h"),
        ("10000**(2*i/d)", {}, r"10000^{\frac{2i}{d}}"),  # as prose writes it: `2i`
        ("10000**(2*i/d)", {"i": 4}, r"10000^{\frac{2 \cdot 4}{d}}"),
        ("x <= 2.5e-7", {}, r"x \le 2.5 \times 10^{-7}"),
        ("sqrt(abs(x)) == E**pi", {}, r"\sqrt{\left|x\right|} = e^{\pi}"),
    ],
)
def test_latex_forms(text: str, values: dict[str, float], latex: str) -> None:
    assert parse(text, free_symbols=True).substituted_latex(values) == latex


def test_with_time_limit_interrupts_python_work() -> None:
    def spin() -> None:
        stop = time.monotonic() + HANG_GUARD_S
        while time.monotonic() < stop:
            pass

    with pytest.raises(ExpressionTimeout, match="took too long"):
        with_time_limit(0.2, spin, what="spinning")
    assert with_time_limit(5.0, lambda: 42) == 42
    time.sleep(0.3)  # no interruption is left pending after a result came back in time


def test_with_time_limit_works_in_a_worker_thread() -> None:
    def spin() -> str:
        stop = time.monotonic() + HANG_GUARD_S
        while time.monotonic() < stop:
            pass
        return "not interrupted"

    outcome = finishes(lambda: with_time_limit(0.2, spin))
    assert isinstance(outcome, ExpressionTimeout)


def test_with_time_limit_never_cuts_an_import_short(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "slow_module_for_time_limit.py").write_text(
        "import time\ntime.sleep(0.5)\nVALUE = 1\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))

    def import_then_spin() -> None:
        import slow_module_for_time_limit  # type: ignore[import-not-found]  # noqa: F401

        stop = time.monotonic() + HANG_GUARD_S
        while time.monotonic() < stop:
            pass

    with pytest.raises(ExpressionTimeout):
        with_time_limit(0.05, import_then_spin)
    assert sys.modules["slow_module_for_time_limit"].VALUE == 1
    del sys.modules["slow_module_for_time_limit"]


def test_with_time_limit_leaves_nothing_pending_after_near_misses() -> None:
    def work() -> int:
        return sum(range(5_000))

    for attempt in range(300):
        with contextlib.suppress(ExpressionTimeout):
            with_time_limit(0.0001 * (attempt % 7), work)
        total = 0
        for step in range(200):  # an interruption that escaped would land here
            total += step
    assert with_time_limit(5.0, work) == sum(range(5_000))


def test_an_interruption_dropped_in_a_weakref_callback_is_fired_again() -> None:
    """Python cannot raise out of a weakref callback (the collector may run one at any point
    of sympy's work): an interruption landing there is dropped, so it is fired again."""
    import weakref

    class Thing:
        pass

    spins = [1.0]  # the first callback is still running when the limit passes

    def callback(_ref: object) -> None:
        stop = time.monotonic() + (spins.pop() if spins else 0.0)
        while time.monotonic() < stop:
            pass

    def work() -> str:
        end = time.monotonic() + HANG_GUARD_S
        while time.monotonic() < end:
            thing = Thing()
            ref = weakref.ref(thing, callback)
            del thing  # the callback runs now
            del ref
        return "ran past its limit"

    started = time.monotonic()
    outcome = finishes(lambda: with_time_limit(0.1, work))
    assert isinstance(outcome, ExpressionTimeout), outcome
    assert time.monotonic() - started < 5.0


def test_calls_in_two_threads_at_once_each_keep_their_own_limit() -> None:
    """One watchdog serves every thread: a short limit in one thread interrupts only that one."""

    def spin_for(seconds: float) -> str:
        stop = time.monotonic() + seconds
        while time.monotonic() < stop:
            pass
        return "finished"

    outcomes: dict[str, Any] = {}

    def limited(name: str, limit: float, work: float) -> None:
        outcomes[name] = finishes(lambda: with_time_limit(limit, lambda: spin_for(work)))

    threads = [
        threading.Thread(target=limited, args=("short", 0.2, HANG_GUARD_S)),
        threading.Thread(target=limited, args=("long", 10.0, 0.6)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG_GUARD_S)
    assert isinstance(outcomes["short"], ExpressionTimeout)
    assert outcomes["long"] == "finished"


def test_near_misses_in_several_threads_at_once_never_stop_the_others() -> None:
    """Interruptions landing in several threads at once, at any point of a call (as a check
    and the app's grading worker do): every thread finishes, none is left waiting on another."""

    def work() -> int:
        return sum(range(5_000))

    def near_misses() -> int:
        for attempt in range(300):
            with contextlib.suppress(ExpressionTimeout):
                with_time_limit(0.0001 * (attempt % 7), work)
        return with_time_limit(5.0, work)

    outcomes: list[Any] = []
    threads = [
        threading.Thread(target=lambda: outcomes.append(finishes(near_misses))) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG_GUARD_S + 5)
    assert outcomes == [sum(range(5_000))] * 4


def test_calls_that_ended_do_not_pile_up_in_the_watchdog() -> None:
    """Each call's watch waits for its deadline (5 s for an expression); thousands of quick
    calls inside that time keep the watchdog's heap bounded."""
    started = time.monotonic()
    for _ in range(5 * timelimit.PRUNE_ABOVE):
        with_time_limit(5.0, lambda: 1)
    with_time_limit(5.0, lambda: 1)
    deadline = started + 4.0  # before the first of them comes due and leaves on its own
    while len(timelimit._WATCHDOG.due) > timelimit.PRUNE_ABOVE + 1:
        assert time.monotonic() < deadline, len(timelimit._WATCHDOG.due)
        time.sleep(0.01)


def test_a_forked_child_is_still_interrupted() -> None:
    """A child forked after a limited call (the experiment server forks) has no watchdog thread
    of its parent's; its own calls are still cut off at their limit."""
    code = (
        "import os, sys, time\n"
        "from studykit.expressions import ExpressionTimeout, with_time_limit\n"
        "with_time_limit(1.0, lambda: 1)\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    def spin():\n"
        "        stop = time.monotonic() + 20\n"
        "        while time.monotonic() < stop:\n"
        "            pass\n"
        "    try:\n"
        "        with_time_limit(0.2, spin)\n"
        "    except ExpressionTimeout:\n"
        "        os._exit(0)\n"
        "    os._exit(1)\n"
        "_, status = os.waitpid(pid, 0)\n"
        "sys.exit(os.waitstatus_to_exitcode(status))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_GUARD_S
    )
    assert result.returncode == 0, result.stderr


def test_importing_the_module_does_not_import_sympy() -> None:
    code = "import sys, studykit.expressions; print('sympy' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_the_module_never_runs_content_as_code() -> None:
    modules = sorted(Path(expressions.__file__).parent.glob("*.py"))
    assert len(modules) > 1
    banned = {"eval", "exec", "compile", "sympify", "parse_expr", "S", "__import__"}
    called = set()
    for module in modules:
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and ast.unparse(func) == "re.compile":
                    continue  # a regular expression, not Python's compile()
                called.add(func.id if isinstance(func, ast.Name) else getattr(func, "attr", ""))
    assert not called & banned


@pytest.mark.parametrize(
    ("name", "latex", "terminal"),
    [
        ("seq_len", r"\mathrm{seq\_len}", "seq_len"),  # one name, not `seq` with `len` below
        ("lr_max_step", r"\mathrm{lr\_max\_step}", "lr_max_step"),
        ("d_model", r"d_{model}", "d_model"),
        ("x_1", r"x_{1}", "x₁"),
        ("alpha_t", r"\alpha_{t}", "αₜ"),
        ("gamma", r"\gamma", "γ"),
    ],
)
def test_names_become_latex_that_reads_as_the_name(name: str, latex: str, terminal: str) -> None:
    from studykit.text.unicodemath import latex_to_unicode

    assert parse(name, names={name}).latex() == latex
    assert latex_to_unicode(latex) == terminal

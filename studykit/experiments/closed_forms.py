"""Comparing a run's named answers with the closed forms its experiment declares."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from studykit.experiments.base import ClosedForm, Experiment, Result, Value, format_value
from studykit.expressions import Expression, parse


@dataclass(frozen=True)
class Comparison:
    """One declared answer of a run against its closed form."""

    form: ClosedForm
    measured: float | int | str | None
    expected: float | None
    problem: str | None = None

    @property
    def agrees(self) -> bool:
        return self.problem is None

    def describe(self) -> str:
        """`<answer> measured X, closed form Y` (or why it could not be compared)."""
        if self.measured is None or self.expected is None:
            return f"{self.form.answer}: {self.problem}"
        return (
            f"{self.form.answer} measured {format_value(self.measured)}, "
            f"closed form {format_value(self.expected)}"
        )


def numeric_params(params: Mapping[str, Value]) -> dict[str, float]:
    """The parameters an expression can use: numbers (not flags or choices)."""
    return {
        name: value
        for name, value in params.items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }


@lru_cache(maxsize=128)
def _parsed(expr: str, names: frozenset[str]) -> Expression:
    return parse(expr, names=names)


def expression(experiment: Experiment, form: ClosedForm) -> Expression:
    """The closed form parsed over the experiment's parameter names (ExpressionError if bad)."""
    return _parsed(form.expr, frozenset(p.name for p in experiment.params))


def applicable(experiment: Experiment, params: Mapping[str, Value]) -> tuple[ClosedForm, ...]:
    """The closed forms that a run with these parameters should agree with."""
    return tuple(form for form in experiment.closed_forms if form.applies(params))


def compare(experiment: Experiment, result: Result) -> list[Comparison]:
    """Each applicable closed form against the run's answer of the same key."""
    answers = {answer.key: answer.value for answer in result.outcome.answers}
    values = numeric_params(result.params)
    out = []
    for form in applicable(experiment, result.params):
        expected = expression(experiment, form).evaluate(values)
        measured = answers.get(form.answer)
        if measured is None:
            out.append(Comparison(form, None, expected, "the run gave no such answer"))
        elif isinstance(measured, str) or not math.isclose(
            measured, expected, rel_tol=form.rel_tol, abs_tol=form.abs_tol
        ):
            out.append(Comparison(form, measured, expected, "disagrees"))
        else:
            out.append(Comparison(form, measured, expected))
    return out

"""A run's budget (memory and time) and the check of an estimate against it, before any run."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Final

from studykit.core.budget import (
    GIB,
    MIB,
    Budget,
    BudgetError,
    describe_bytes,
    machine_bytes,
)
from studykit.core.budget import parse_budget as parse_spec
from studykit.experiments.errors import ExperimentError, ExperimentFailed, ParamError

if TYPE_CHECKING:
    from studykit.experiments.base import Cost, Experiment, Params

__all__ = [
    "GIB",
    "MIB",
    "RAISE_HINT",
    "Budget",
    "LimitExceeded",
    "OverBudget",
    "check_budget",
    "describe_bytes",
    "describe_cost",
    "estimate",
    "machine_bytes",
    "over_budget",
    "parse_budget",
]

RAISE_HINT: Final = "raise the budget (--budget, or experiment_budget in config.toml)"


class OverBudget(ExperimentError):
    """A run whose estimate exceeds the budget; refused before it starts."""


class LimitExceeded(ExperimentFailed):
    """A run stopped because it hit its memory or time limit."""


def estimate(experiment: Experiment, params: Params) -> Cost | None:
    """The experiment's cost estimate for validated `params`, or None if it declares none."""
    return None if experiment.estimate is None else experiment.estimate(params)


def describe_cost(cost: Cost) -> str:
    """`~1.2 GiB, ~14 s` for a form or an error line."""
    seconds = f"{cost.seconds:.1f} s" if cost.seconds < 10 else f"{cost.seconds:.0f} s"
    return f"~{describe_bytes(cost.peak_bytes)}, ~{seconds}"


def over_budget(experiment: Experiment, cost: Cost, budget: Budget) -> str | None:
    """Why `cost` does not fit `budget` (one line naming what to lower), or None if it fits."""
    over = []
    if cost.peak_bytes > budget.bytes:
        over.append(f"memory {describe_bytes(cost.peak_bytes)} > {describe_bytes(budget.bytes)}")
    if cost.seconds > budget.seconds:
        over.append(f"time {cost.seconds:.0f} s > {budget.seconds:.0f} s")
    if not over:
        return None
    needs = (
        f"{experiment.name} would need {describe_cost(cost)}, over the budget ({'; '.join(over)})"
    )
    if cost.fixed_bytes > budget.bytes or cost.fixed_seconds > budget.seconds:
        return (
            f"{needs}; even its smallest run needs {describe_bytes(cost.fixed_bytes)} "
            f"(torch included) and {cost.fixed_seconds:.1f} s, so {RAISE_HINT}"
        )
    lower = ", ".join(f"`{name}`" for name in cost.drivers) or "its parameters"
    return f"{needs}; lower {lower}, or {RAISE_HINT}"


def check_budget(experiment: Experiment, params: Params, budget: Budget) -> Cost | None:
    """The estimate, or OverBudget (before anything is allocated) when it does not fit."""
    cost = estimate(experiment, params)
    if cost is not None:
        reason = over_budget(experiment, _helpful(experiment, params, cost, budget), budget)
        if reason is not None:
            raise OverBudget(reason)
    return cost


def _helpful(experiment: Experiment, params: Params, cost: Cost, budget: Budget) -> Cost:
    """`cost` naming only the drivers whose lowering lowers what is over (time, memory)."""
    assert experiment.estimate is not None
    helpful = []
    for name in cost.drivers:
        value = params.get(name)
        param = experiment.param(name)
        if param is None or isinstance(value, bool) or not isinstance(value, int | float):
            continue
        lowered = value // 2 if param.kind == "int" else value / 2
        low = param.low
        if low is not None and (lowered < low or (param.low_open and lowered <= low)):
            continue  # as low as it goes: nothing to gain by asking
        try:
            less = experiment.estimate({**params, name: lowered})
        except (ArithmeticError, ValueError):
            continue
        if (cost.peak_bytes > budget.bytes and less.peak_bytes < cost.peak_bytes) or (
            cost.seconds > budget.seconds and less.seconds < cost.seconds
        ):
            helpful.append(name)
    return replace(cost, drivers=tuple(helpful) or cost.drivers)


def parse_budget(spec: str, *, base: Budget | None = None) -> Budget:
    """`--budget SPEC` over `base`: a form that is not accepted is a bad parameter."""
    try:
        return parse_spec(spec, base=base)
    except BudgetError as error:
        raise ParamError(str(error)) from error

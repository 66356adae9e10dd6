"""A run's budget (memory and time) and the check of an estimate against it, before any run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from studykit.experiments.base import Cost, Experiment, ExperimentError, Params

GIB: Final = 1 << 30
MIB: Final = 1 << 20
DEFAULT_BYTES: Final = 2 * GIB
DEFAULT_SECONDS: Final = 60.0


class OverBudget(ExperimentError):
    """A run whose estimate exceeds the budget; refused before it starts."""


@dataclass(frozen=True)
class Budget:
    """How much one run may use: peak memory in bytes and wall-clock seconds."""

    bytes: int = DEFAULT_BYTES
    seconds: float = DEFAULT_SECONDS


def estimate(experiment: Experiment, params: Params) -> Cost | None:
    """The experiment's cost estimate for validated `params`, or None if it declares none."""
    return None if experiment.estimate is None else experiment.estimate(params)


def describe_bytes(value: float) -> str:
    """Bytes for people: `512 MiB`, `2.0 GiB`."""
    if value >= GIB:
        return f"{value / GIB:.1f} GiB"
    return f"{max(value, 0) / MIB:.0f} MiB"


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
    lower = ", ".join(f"`{name}`" for name in cost.drivers) or "its parameters"
    return (
        f"{experiment.name} would need {describe_cost(cost)}, over the budget "
        f"({'; '.join(over)}); lower {lower}, or raise the budget with --budget"
    )


def check_budget(experiment: Experiment, params: Params, budget: Budget) -> Cost | None:
    """The estimate, or OverBudget (before anything is allocated) when it does not fit."""
    cost = estimate(experiment, params)
    if cost is not None:
        reason = over_budget(experiment, cost, budget)
        if reason is not None:
            raise OverBudget(reason)
    return cost

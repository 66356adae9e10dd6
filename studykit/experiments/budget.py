"""A run's budget (memory and time) and the check of an estimate against it, before any run."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final

# Not the contract (base) at import: settings hold a Budget, and start-up needs no more.
from studykit.experiments.errors import ExperimentError, ExperimentFailed, ParamError

if TYPE_CHECKING:
    from studykit.experiments.base import Cost, Experiment, Params

GIB: Final = 1 << 30
MIB: Final = 1 << 20
DEFAULT_BYTES: Final = 2 * GIB
DEFAULT_SECONDS: Final = 60.0
MIN_BYTES: Final = 64 * MIB
MIN_SECONDS: Final = 1.0
MAX_SECONDS: Final = 24 * 3600.0
RAISE_HINT: Final = "raise the budget (--budget, or experiment_budget in config.toml)"
_UNITS: Final = {"mib": MIB, "gib": GIB, "tib": GIB << 10}
_SECONDS: Final = {"s": 1.0, "min": 60.0, "h": 3600.0}
_PART: Final = re.compile(r"(\d+(?:\.\d+)?)([a-z]+)")


class OverBudget(ExperimentError):
    """A run whose estimate exceeds the budget; refused before it starts."""


class LimitExceeded(ExperimentFailed):
    """A run stopped because it hit its memory or time limit."""


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


def machine_bytes() -> int:
    """This machine's physical memory: the most any budget may ask for."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def parse_budget(spec: str, *, base: Budget | None = None) -> Budget:
    """`8GiB`, `300s` or `8GiB,300s` over `base`; ParamError saying what is accepted."""
    budget = base or Budget()
    seen: set[str] = set()
    for part in spec.lower().replace(" ", "").split(","):
        match = _PART.fullmatch(part)
        unit = match.group(2) if match else ""
        if match is None or (unit not in _UNITS and unit not in _SECONDS):
            raise ParamError(
                f"budget {spec!r}: each part must be a size like 512MiB or 8GiB, or a time "
                "like 90s, 5min or 1h (comma between them, e.g. 8GiB,300s)"
            )
        what = "memory" if unit in _UNITS else "time"
        if what in seen:
            raise ParamError(f"budget {spec!r} gives the {what} twice")
        seen.add(what)
        number = float(match.group(1))
        if what == "memory":
            budget = replace(budget, bytes=_checked_bytes(spec, number * _UNITS[unit]))
        else:
            budget = replace(budget, seconds=_checked_seconds(spec, number * _SECONDS[unit]))
    return budget


def _checked_bytes(spec: str, value: float) -> int:
    most = machine_bytes()
    if not MIN_BYTES <= value <= most:
        raise ParamError(
            f"budget {spec!r}: memory must be from {describe_bytes(MIN_BYTES)} to this "
            f"machine's {describe_bytes(most)}"
        )
    return int(value)


def _checked_seconds(spec: str, value: float) -> float:
    if not MIN_SECONDS <= value <= MAX_SECONDS:
        raise ParamError(
            f"budget {spec!r}: time must be from {MIN_SECONDS:.0f} s to {MAX_SECONDS / 3600:.0f} h"
        )
    return value


def describe_budget(budget: Budget) -> str:
    """`2.0 GiB, 60 s`."""
    return f"{describe_bytes(budget.bytes)}, {budget.seconds:.0f} s"

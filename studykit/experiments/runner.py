"""Running one experiment: validate, pick the device, seed, time, wrap failures."""

from __future__ import annotations

import time
from collections.abc import Mapping

from studykit.experiments import registry
from studykit.experiments.base import (
    DEFAULT_SEED,
    CancelFn,
    Cancelled,
    Experiment,
    ExperimentError,
    ExperimentFailed,
    Params,
    ProgressFn,
    Result,
    RunContext,
)
from studykit.experiments.device import (
    check_device_name,
    load_torch,
    machine_description,
    resolve_device,
    torch_version,
)
from studykit.experiments.params import validate


def lookup(experiment: Experiment | str) -> Experiment:
    """An Experiment, by name or as given."""
    return registry.get(experiment) if isinstance(experiment, str) else experiment


def prepare(
    experiment: Experiment | str, params: Mapping[str, object], device: str
) -> tuple[Experiment, Params]:
    """The experiment and its checked parameters; torch is not needed for this."""
    found = lookup(experiment)
    check_device_name(device)
    return found, validate(found, params)


def run_experiment(
    experiment: Experiment | str,
    params: Mapping[str, object] | None = None,
    *,
    device: str = "auto",
    seed: int = DEFAULT_SEED,
    progress: ProgressFn | None = None,
    cancelled: CancelFn | None = None,
) -> Result:
    """Run with validated parameters on the resolved device; Cancelled if the check trips."""
    found, values = prepare(experiment, params or {}, device)
    torch = load_torch()
    chosen = resolve_device(device, torch)
    torch.manual_seed(seed)
    context = RunContext(device=chosen, seed=seed, progress=progress, cancelled=cancelled)
    started = time.perf_counter()
    context.check()
    try:
        outcome = found.run(values, context)
    except (Cancelled, ExperimentError):
        raise
    except (RuntimeError, ValueError, ArithmeticError, MemoryError) as error:
        raise ExperimentFailed(f"{found.name} failed: {type(error).__name__}: {error}") from error
    elapsed = time.perf_counter() - started
    if progress is not None:
        progress(1.0, "done")
    return Result(
        name=found.name,
        params=values,
        seed=seed,
        device=chosen,
        torch_version=torch_version(),
        machine=machine_description(chosen, torch),
        elapsed_s=elapsed,
        outcome=outcome,
    )

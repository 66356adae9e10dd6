"""Running one experiment: validate, check the budget, then run it in a child process."""

from __future__ import annotations

import time
import warnings
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
    RunFn,
    TorchMissing,
)
from studykit.experiments.budget import Budget, check_budget
from studykit.experiments.device import (
    check_device_name,
    load_torch,
    machine_description,
    resolve_device,
    torch_version,
)
from studykit.experiments.installed import torch_installed
from studykit.experiments.params import check_seed, validate


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
    budget: Budget | None = None,
) -> Result:
    """Run in a child process within `budget` (default 2 GiB, 60 s); OverBudget before it starts.

    Cancelled within about a second of `cancelled()` turning true; the child never outlives
    the call (cancel, error, KeyboardInterrupt: it is terminated, killed if need be, reaped).
    """
    from studykit.experiments.process import run_child
    from studykit.experiments.protocol import Request, target_of

    found, values = prepare(experiment, params or {}, device)
    check_seed(seed)
    limits = budget or Budget()
    check_budget(found, values, limits)
    if not torch_installed():
        raise TorchMissing()
    if cancelled is not None and cancelled():
        raise Cancelled("the experiment was cancelled")
    target = target_of(found)
    if target is None:
        warnings.warn(
            f"{found.name}: its run function is not importable by module path (defined in "
            "__main__ or inside a function), so it runs in this process without the memory "
            "and time limits",
            RuntimeWarning,
            stacklevel=2,
        )
        return execute(
            found.name, found.run, values, device=device, seed=seed, progress=progress,
            cancelled=cancelled,
        )  # fmt: skip
    request = Request(
        name=found.name,
        target=target,
        params=values,
        device=device,
        seed=seed,
        budget_bytes=limits.bytes,
        budget_seconds=limits.seconds,
    )
    return run_child(request, progress=progress, cancelled=cancelled)


def run_in_process(
    experiment: Experiment | str,
    params: Mapping[str, object] | None = None,
    *,
    device: str = "auto",
    seed: int = DEFAULT_SEED,
    progress: ProgressFn | None = None,
    cancelled: CancelFn | None = None,
) -> Result:
    """Run here, in this process, with no limits (the child uses `execute`; benchmarks this)."""
    found, values = prepare(experiment, params or {}, device)
    check_seed(seed)
    return execute(
        found.name, found.run, values, device=device, seed=seed, progress=progress,
        cancelled=cancelled,
    )  # fmt: skip


def execute(
    name: str,
    run: RunFn,
    values: Params,
    *,
    device: str,
    seed: int,
    progress: ProgressFn | None = None,
    cancelled: CancelFn | None = None,
) -> Result:
    """Run validated `values` on the resolved device; Cancelled if the check trips."""
    torch = load_torch()
    chosen = resolve_device(device, torch)
    torch.manual_seed(seed)
    context = RunContext(device=chosen, seed=seed, progress=progress, cancelled=cancelled)
    started = time.perf_counter()
    context.check()
    try:
        outcome = run(values, context)
    except (Cancelled, ExperimentError):
        raise
    except (RuntimeError, ValueError, ArithmeticError, MemoryError) as error:
        raise ExperimentFailed(f"{name} failed: {type(error).__name__}: {error}") from error
    elapsed = time.perf_counter() - started
    if progress is not None:
        progress(1.0, "done")
    return Result(
        name=name,
        params=values,
        seed=seed,
        device=chosen,
        torch_version=torch_version(),
        machine=machine_description(chosen, torch),
        elapsed_s=elapsed,
        outcome=outcome,
    )

"""Runs through the store's experiment cache: same inputs, same result, no second run."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from studykit.experiments.availability import device_without_torch
from studykit.experiments.base import DEFAULT_SEED, CancelFn, Experiment, ProgressFn, Result
from studykit.experiments.budget import Budget
from studykit.experiments.device import torch_version
from studykit.experiments.runner import prepare, run_experiment


class ExperimentCache(Protocol):
    """What the cache needs from the session (StudySession provides it)."""

    def cached_experiment(
        self, *, name: str, params: dict[str, Any], seed: int, device: str, torch_version: str
    ) -> dict[str, Any] | None: ...

    def store_experiment(self, result: dict[str, Any]) -> None: ...


Runner = Callable[..., Result]


def lookup(
    cache: ExperimentCache,
    experiment: Experiment | str,
    params: Mapping[str, object],
    *,
    device: str = "auto",
    seed: int = DEFAULT_SEED,
) -> Result | None:
    """The cached result for these inputs (parameters checked first), or None."""
    found, values = prepare(experiment, params, device)
    chosen = device_without_torch(device)
    stored = cache.cached_experiment(
        name=found.name,
        params=dict(values),
        seed=seed,
        device=chosen,
        torch_version=torch_version(),
    )
    return None if stored is None else Result.from_json(stored, cached=True)


def run_cached(
    cache: ExperimentCache,
    experiment: Experiment | str,
    params: Mapping[str, object],
    *,
    device: str = "auto",
    seed: int = DEFAULT_SEED,
    progress: ProgressFn | None = None,
    cancelled: CancelFn | None = None,
    runner: Runner = run_experiment,
    budget: Budget | None = None,
) -> Result:
    """A cached result when there is one; otherwise run (within `budget`), store and return it."""
    hit = lookup(cache, experiment, params, device=device, seed=seed)
    if hit is not None:
        return hit
    result: Result = runner(
        experiment,
        params,
        device=device,
        seed=seed,
        progress=progress,
        cancelled=cancelled,
        budget=budget,
    )
    cache.store_experiment(result.to_json())
    return result

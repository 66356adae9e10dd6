"""Runs through the store's experiment cache: same inputs, same result, no second run."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from studykit.core.jsontypes import JsonObject
from studykit.experiments.availability import device_without_torch
from studykit.experiments.base import (
    DEFAULT_SEED,
    CancelFn,
    Experiment,
    Params,
    ProgressFn,
    Result,
)
from studykit.experiments.budget import Budget
from studykit.experiments.device import torch_version
from studykit.experiments.runner import prepare, run_experiment


class ExperimentCache(Protocol):
    """What the cache needs from the session (StudySession provides it)."""

    def cached_experiment(
        self, *, name: str, params: Params, seed: int, device: str, torch_version: str
    ) -> JsonObject | None: ...

    def store_experiment(self, result: JsonObject) -> None: ...


Runner = Callable[..., Result]


def lookup(
    cache: ExperimentCache,
    experiment: Experiment | str,
    params: Mapping[str, object],
    *,
    device: str = "auto",
    seed: int = DEFAULT_SEED,
) -> Result | None:
    """The cached result for these inputs (parameters checked first), or None; a stored row
    that no longer reads as a Result (a field missing or of the wrong type) is a miss, so
    `run_cached` runs again and replaces it."""
    found, values = prepare(experiment, params, device)
    chosen = device_without_torch(device)
    stored = cache.cached_experiment(
        name=found.name,
        params=dict(values),
        seed=seed,
        device=chosen,
        torch_version=torch_version(),
    )
    if stored is None:
        return None
    try:
        return Result.from_json(stored, cached=True)
    except ValueError:
        return None


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

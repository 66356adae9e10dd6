"""`export anki --run-experiments`: the linked runs without a cached result, run first.

The export itself never runs an experiment (`media.py`); this finds the runs it would miss by
planning the same notes (fields left as written: only the experiment links matter), then
runs each through the experiment cache, so that the export that follows finds every result.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from studykit.content.loading import Library
from studykit.experiments.base import DEFAULT_SEED
from studykit.experiments.budget import Budget
from studykit.experiments.cache import ExperimentCache, run_cached
from studykit.experiments.errors import ExperimentError, TorchMissing
from studykit.export.media import MediaPack, MissingRun


def _as_written(text: str, _cloze: bool) -> str:
    return text


def missing_runs(
    library: Library, deck_ids: Sequence[str], *, variants: int, cache: ExperimentCache
) -> list[MissingRun]:
    """The linked runs of the decks (all, or `deck_ids`) that have no result in `cache`."""
    from studykit.export.plan import plan_export, selected_decks
    from studykit.export.variants import variant_source

    with tempfile.TemporaryDirectory(prefix="studykit-media-") as staging:
        media = MediaPack(library.root, Path(staging), cache=cache)
        plan_export(
            library,
            selected_decks(library, deck_ids),
            variants=variants,
            variant_source=variant_source(),
            render=_as_written,
            media=media,
        )
    return list(media.report.missing)


def run_missing(
    runs: Sequence[MissingRun],
    cache: ExperimentCache,
    *,
    budget: Budget,
    starting: Callable[[MissingRun], None],
    done: Callable[[MissingRun], None],
) -> list[str]:
    """Run each of `runs` within `budget` into `cache`; the failures, one line each.

    `starting(run)` is told before each run and `done(run)` after it.

    A run that fails (refused by its budget, over its limits, a bad parameter) is one line of
    the list and the others still run; without torch none can, which raises TorchMissing.
    """
    failed: list[str] = []
    for run in runs:
        starting(run)
        try:
            run_cached(cache, run.experiment, dict(run.params), seed=DEFAULT_SEED, budget=budget)
        except TorchMissing:
            raise
        except ExperimentError as error:
            failed.append(f"{run.experiment} ({_params(run)}) did not run: {error}")
        done(run)
    return failed


def _params(run: MissingRun) -> str:
    return ", ".join(f"{key}={value}" for key, value in run.params) or "defaults"

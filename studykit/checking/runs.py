"""The experiment runs one check makes: each distinct run once, side by side where it is safe.

Runs in child processes (the default runner) go two or more at a time, one per core: each
child's torch uses one thread. A timing runs alone, after the rest, so that nothing beside it
slows it down. Any other runner (one in this process) runs one at a time.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from studykit.core.errors import StudykitError

if TYPE_CHECKING:
    from studykit.experiments.base import Result
    from studykit.experiments.cache import Runner

MAX_SIDE_BY_SIDE: Final = 4  # children at once, however many cores: each holds torch (~300 MiB)


@dataclass(frozen=True)
class Run:
    """One experiment run a check needs."""

    experiment: str
    params: Mapping[str, object] = field(hash=False)
    seed: int
    device: str
    alone: bool = False  # a timing: nothing runs beside it

    @property
    def key(self) -> str:
        """The same for two runs that would give the same result."""
        return json.dumps(
            [self.experiment, dict(self.params), self.seed, self.device], sort_keys=True
        )


def side_by_side(runner: Runner) -> int:
    """How many runs go at once through `runner`: one per core for child processes, else 1."""
    from studykit.experiments.runner import run_experiment

    if runner is not run_experiment:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(MAX_SIDE_BY_SIDE, cores or 1))


class Runs:
    """The runs one check has made, by `Run.key`; each is made once."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.made: dict[str, Result | StudykitError] = {}
        self.seconds = 0.0  # wall time spent making them

    def make(self, runs: Iterable[Run]) -> None:
        """Make those of `runs` not made yet, side by side where safe."""
        started = time.perf_counter()
        self.made.update(run_all((run for run in runs if run.key not in self.made), self.runner))
        self.seconds += time.perf_counter() - started

    def get(self, run: Run) -> Result | StudykitError:
        """`run`'s result or the error that stopped it (made now if need be)."""
        self.make([run])
        return self.made[run.key]


def run_all(runs: Iterable[Run], runner: Runner) -> dict[str, Result | StudykitError]:
    """Each distinct run's result, or the error that stopped it, by `Run.key`."""
    distinct = {run.key: run for run in runs}
    outcomes: dict[str, Result | StudykitError] = {}
    together = [run for run in distinct.values() if not run.alone]
    workers = min(side_by_side(runner), len(together))
    if workers > 1:
        from studykit.experiments.process import prewarm_if_useful

        prewarm_if_useful()  # the children are forked from one server that imported torch once
        stop = threading.Event()
        with ThreadPoolExecutor(workers, thread_name_prefix="check-run") as pool:
            futures = {run.key: pool.submit(_one, run, runner, stop.is_set) for run in together}
            try:
                for key, future in futures.items():
                    outcomes[key] = future.result()
            except BaseException:  # Ctrl-C: each running child is stopped within a second
                stop.set()
                raise
    else:
        outcomes.update((run.key, _one(run, runner, None)) for run in together)
    outcomes.update((run.key, _one(run, runner, None)) for run in distinct.values() if run.alone)
    return outcomes


def _one(run: Run, runner: Runner, cancelled: Callable[[], bool] | None) -> Result | StudykitError:
    extra = {} if cancelled is None else {"cancelled": cancelled}
    try:
        result: Result = runner(
            run.experiment, run.params, device=run.device, seed=run.seed, **extra
        )
    except StudykitError as error:
        return error
    return result

"""A run in a child process vs in this process: time to the first progress message and to
the result, for a small default run (positional-encoding). Asserts nothing.

`python bench_child.py cold` times one in-process run in a fresh Python (torch imported by
the run, as the app's first run did before runs moved to a child) and prints JSON.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import PYTHON, REPO, report

from studykit.experiments.base import Result
from studykit.experiments.process import prewarm, stop_server
from studykit.experiments.runner import run_experiment, run_in_process

NAME = "positional-encoding"
SERVER_HEAD_START_S = 3.0  # a fork server started a few seconds before the first Run
Runner = Callable[..., Result]


def timed(runner: Runner) -> tuple[float, float]:
    """Seconds from the call to the first progress message, and to the result."""
    first: list[float] = []
    started = time.perf_counter()

    def progress(fraction: float, message: str) -> None:
        if not first:
            first.append(time.perf_counter() - started)

    runner(NAME, {}, device="cpu", progress=progress)
    return first[0], time.perf_counter() - started


def medians(samples: list[tuple[float, float]]) -> tuple[float, float]:
    """Median of each column."""
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def cold() -> tuple[float, float]:
    """One in-process run in a fresh interpreter, torch not yet imported."""
    done = subprocess.run(
        [PYTHON, __file__, "cold"], check=True, capture_output=True, text=True, cwd=REPO
    )
    first, total = json.loads(done.stdout)
    return float(first), float(total)


def main(repeat: int = 5) -> None:
    """Print child vs in-process (warm: torch already imported; cold: first run of a process)."""
    cold_runs = medians([cold() for _ in range(3)])
    run_in_process(NAME, {"positions": 4, "d_model": 4}, device="cpu")  # torch imported here
    warm_runs = medians([timed(run_in_process) for _ in range(repeat)])
    child_runs = medians([started_cold() for _ in range(repeat)])
    prewarm()
    time.sleep(SERVER_HEAD_START_S)
    forked_runs = medians([timed(run_experiment) for _ in range(repeat)])
    stop_server()
    for index, what in enumerate(("first progress", "result")):
        label = f"{NAME} → {what}"
        report(f"{label}, new child", child_runs[index], baseline=warm_runs[index], goal="≤ +1 s")
        report(f"{label}, forked child", forked_runs[index], baseline=warm_runs[index])
        report(f"{label}, in-process first run", cold_runs[index])
    for label, runs in (("new", child_runs), ("forked", forked_runs)):
        extra = runs[1] - warm_runs[1]
        print(
            f"{label + ' child: cost over a warm in-process run':<46} {extra:>8.2f} s", flush=True
        )


def started_cold() -> tuple[float, float]:
    """A run with no fork server up: the run starts one, which imports torch first."""
    stop_server()
    return timed(run_experiment)


if __name__ == "__main__":
    if sys.argv[1:] == ["cold"]:
        print(json.dumps(timed(run_in_process)))
    else:
        main()

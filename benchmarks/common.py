"""Shared helpers for the benchmark scripts: timing, subprocess timing, printing."""

from __future__ import annotations

import compileall
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


QUIET_REFERENCE_S = 1.2
"""The reference loop's CPU time on the development machine when it was quiet."""


def reference_loop() -> float:
    """CPU seconds of a fixed pure-Python loop: how fast the machine is running right now.

    Times in `make bench` scale with it (a shared machine's neighbours slow every figure);
    the ratios against baselines mostly do not, since both sides run interleaved.
    """
    start = time.process_time()
    sum(i * i for i in range(20_000_000))
    return time.process_time() - start


def say_machine_speed(when: str) -> None:
    """Print the reference loop's time, `when` saying at which point of the run."""
    seconds = reference_loop()
    print(
        f"machine speed ({when}): reference loop {seconds:.2f} s of CPU "
        f"({QUIET_REFERENCE_S} s when quiet: ×{seconds / QUIET_REFERENCE_S:.1f})",
        flush=True,
    )


def time_call(fn: Callable[[], object], *, repeat: int = 5) -> float:
    """Median wall time of `fn()` in seconds over `repeat` runs."""
    samples: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def time_command(
    argv: Sequence[str], *, repeat: int = 5, env: dict[str, str] | None = None
) -> float:
    """Median wall time of a subprocess, in seconds (one warm-up run first)."""
    full_env = {**os.environ, **(env or {})}
    subprocess.run(argv, check=True, capture_output=True, env=full_env, cwd=REPO)
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, env=full_env, cwd=REPO)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def compile_bytecode() -> None:
    """Write studykit's .pyc files, as installing it does, so that no start compiles source.

    Textual's bytecode is cached in site-packages; with PYTHONDONTWRITEBYTECODE set (as in
    the project's shells) studykit's never is, and each start would compile ~40 modules
    (~50 ms of CPU). compileall writes regardless of that setting; Python reads what is there.
    """
    compileall.compile_dir(REPO / "studykit", quiet=1)


def cpu_calls_side_by_side(
    ours: Callable[[], object], baseline: Callable[[], object], *, repeat: int = 3
) -> tuple[float, float]:
    """Median CPU seconds (this process, all threads) of two calls made in turn."""
    ours_samples: list[float] = []
    base_samples: list[float] = []
    for _ in range(repeat):
        for fn, samples in ((baseline, base_samples), (ours, ours_samples)):
            start = time.process_time()
            fn()
            samples.append(time.process_time() - start)
    return statistics.median(ours_samples), statistics.median(base_samples)


def cpu_command(argv: Sequence[str], *, env: dict[str, str] | None = None) -> float:
    """CPU seconds (user + system) one run of a subprocess took, its children included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        argv, check=True, capture_output=True, env={**os.environ, **(env or {})}, cwd=REPO
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def cpu_side_by_side(
    ours: Sequence[str],
    baseline: Sequence[str],
    *,
    repeat: int = 7,
    before_each: Callable[[], object] | None = None,
) -> tuple[float, float]:
    """Median CPU seconds of two commands run in turn (one warm-up each, then interleaved).

    CPU time, not wall time, and interleaved: other work on the machine slows both alike
    instead of whichever ran while it was busy. `before_each` runs before each `ours`.
    """
    ours_samples, base_samples = [], []
    for round_ in range(repeat + 1):
        base = cpu_command(baseline)
        if before_each is not None:
            before_each()
        mine = cpu_command(ours)
        if round_:
            base_samples.append(base)
            ours_samples.append(mine)
    return statistics.median(ours_samples), statistics.median(base_samples)


def fmt_seconds(seconds: float) -> str:
    """Human units: µs, ms or s."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def report(name: str, value: float, *, baseline: float | None = None, goal: str = "") -> None:
    """Print one benchmark line: value, baseline and ratio where there is one, and the goal."""
    line = f"{name:<46} {fmt_seconds(value):>10}"
    if baseline is not None:
        line += f"   baseline {fmt_seconds(baseline):>10}   ratio {value / baseline:5.2f}×"
    if goal:
        line += f"   (goal {goal})"
    print(line, flush=True)

"""Shared helpers for the benchmark scripts: timing, subprocess timing, printing."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def time_call(fn: Callable[[], object], *, repeat: int = 5) -> float:
    """Median wall time of `fn()` in seconds over `repeat` runs."""
    samples = []
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

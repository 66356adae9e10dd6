"""Measuring runs' real cost the way users get it: in the child process, its peak and time."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from studykit.experiments.base import Value
from studykit.experiments.budget import Budget, machine_bytes

# A child as `process.spawn` starts one, up to where it waits for its request.
_READY = (
    "from studykit.experiments.child import preload\n"
    "from studykit.experiments.fences import resident_bytes\n"
    "preload()\n"
    "print(resident_bytes())\n"
)


@dataclass(frozen=True)
class Measured:
    """What one run took in its child: peak resident memory (the whole process), wall time."""

    peak_bytes: int
    seconds: float


def measure(name: str, params: Mapping[str, Value], *, seconds: float = 3600.0) -> Measured:
    """Run on the CPU in a fresh child, under a budget that never binds; its peak and time."""
    from studykit.experiments.runner import run_experiment

    budget = Budget(bytes=machine_bytes() // 2, seconds=seconds)
    result = run_experiment(name, dict(params), device="cpu", budget=budget)
    return Measured(result.peak_bytes, result.elapsed_s)


def ready_child_bytes() -> int:
    """What a child holds resident with torch imported, before any run: the floor of all."""
    from studykit.experiments.process import child_environment

    done = subprocess.run(
        [sys.executable, "-c", _READY],
        capture_output=True,
        text=True,
        env=child_environment(),
        check=True,
        timeout=120,
    )
    return int(json.loads(done.stdout.strip().splitlines()[-1]))

"""Measuring a run's real cost in a fresh Python: extra peak memory (Linux) and wall time."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from studykit.experiments.base import Value

# The child imports torch and does a tiny op, so the baseline holds torch and its thread pool;
# everything the run adds on top (tensors, lazily loaded kernels) counts as its peak. The peak
# is the child's own high-water RSS (VmHWM), reset after the warm-up: ru_maxrss would carry
# the parent's peak over from the fork (a pytest or script with torch loaded is larger).
_CHILD = r"""
import json, re, sys, time
import torch
from studykit.experiments.runner import run_experiment

def status(key):
    with open("/proc/self/status") as f:
        return int(re.search(key + r":\s+(\d+) kB", f.read()).group(1)) * 1024

torch.ones(8, 8) @ torch.ones(8, 8)
name, params = sys.argv[1], json.loads(sys.argv[2])
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
base = status("VmRSS")
start = time.perf_counter()
run_experiment(name, params, device="cpu", seed=0)
seconds = time.perf_counter() - start
print(json.dumps({"extra_bytes": status("VmHWM") - base, "seconds": seconds}))
"""


@dataclass(frozen=True)
class Measured:
    """What one run took in a fresh process: extra peak RSS over torch's, and wall time."""

    extra_bytes: int
    seconds: float


def measure(name: str, params: Mapping[str, Value], *, timeout: float = 120.0) -> Measured:
    """Run `name` on the CPU in a fresh Python and report its extra peak memory and time."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, name, json.dumps(dict(params))],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"measuring {name} {dict(params)} failed:\n{done.stderr[-2000:]}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    return Measured(int(data["extra_bytes"]), float(data["seconds"]))

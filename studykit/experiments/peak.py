"""Measuring runs' real cost in fresh processes: extra peak memory (Linux) and wall time."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from studykit.experiments.base import Value

# One child imports torch once, then forks a fresh process per run (torch untouched before
# the fork, so no thread pool is copied). Each forked process does a tiny op so the baseline
# holds torch's kernels and pool; whatever the run adds on top (tensors, lazily imported
# parts such as forward-mode AD) is its extra peak. The peak is the process's own high-water
# RSS (VmHWM), reset at the start: ru_maxrss would carry the parent's peak over the fork.
_CHILD = r"""
import json, os, re, sys, time
import torch
from studykit.experiments.runner import run_in_process

def status(key):
    with open("/proc/self/status") as f:
        return int(re.search(key + r":\s+(\d+) kB", f.read()).group(1)) * 1024

def one(name, params):
    torch.ones(8, 8) @ torch.ones(8, 8)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    base = status("VmRSS")
    start = time.perf_counter()
    run_in_process(name, params, device="cpu", seed=0)
    seconds = time.perf_counter() - start
    return {"extra_bytes": status("VmHWM") - base, "seconds": seconds}

for name, params in json.loads(sys.argv[1]):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            out = one(name, params)
        except BaseException as error:
            out = {"error": f"{type(error).__name__}: {error}"}
        os.write(write, json.dumps(out).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        got = pipe.read()
    os.waitpid(pid, 0)
    print(got or json.dumps({"error": "the measuring process died"}), flush=True)
"""


@dataclass(frozen=True)
class Measured:
    """What one run took in a fresh process: extra peak RSS over torch's, and wall time."""

    extra_bytes: int
    seconds: float


Job = tuple[str, Mapping[str, Value]]


def measure_many(jobs: Sequence[Job], *, timeout: float = 300.0) -> list[Measured]:
    """Run each (name, params) on the CPU in its own fresh process; their peaks and times."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps([[name, dict(p)] for name, p in jobs])],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or len(lines) != len(jobs):
        raise RuntimeError(f"measuring failed:\n{done.stderr[-2000:]}")
    out = []
    for (name, params), line in zip(jobs, lines, strict=True):
        data = json.loads(line)
        if "error" in data:
            raise RuntimeError(f"measuring {name} {dict(params)} failed: {data['error']}")
        out.append(Measured(int(data["extra_bytes"]), float(data["seconds"])))
    return out

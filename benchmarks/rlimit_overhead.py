"""What torch maps beyond a bare import during a tiny run of each built-in (RLIMIT_AS counts it).

Each experiment runs in a fresh Python with glibc's arenas capped as the child caps them;
prints VmSize after `import torch` and VmPeak above it, at 2 and 16 torch threads. The
child's address-space limit adds this slack (studykit/experiments/fences.py) to the room the
budget leaves above what is resident.
Asserts nothing.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the tests' tiny runs, shared with this script

from tests.tiny_runs import TINY  # noqa: E402


def _kib(key: str) -> int:
    found = re.search(key + r":\s+(\d+) kB", Path("/proc/self/status").read_text())
    return int(found.group(1)) if found else 0


def measure(name: str, threads: int) -> None:
    """In this process: import torch, run `name` at its tiny parameters, print JSON."""
    import torch

    from studykit.experiments.runner import run_in_process

    torch.set_num_threads(threads)
    base = _kib("VmSize")
    run_in_process(name, TINY[name], device="cpu")
    print(json.dumps({"base_mib": base // 1024, "over_mib": (_kib("VmPeak") - base) // 1024}))


def main() -> None:
    """One fresh process per experiment and thread count."""
    env = {**os.environ, "MALLOC_ARENA_MAX": "2"}
    for threads in (2, 16):
        worst = 0
        for name in TINY:
            done = subprocess.run(
                [sys.executable, __file__, name, str(threads)],
                check=True, capture_output=True, text=True, env=env, cwd=REPO,
            )  # fmt: skip
            row = json.loads(done.stdout)
            worst = max(worst, row["over_mib"])
            print(f"{threads:>2} threads  {name:<20} import {row['base_mib']:>5} MiB  "
                  f"run +{row['over_mib']:>4} MiB", flush=True)  # fmt: skip
        print(f"{threads:>2} threads  worst run overhead over a bare import: {worst} MiB")


if __name__ == "__main__":
    if len(sys.argv) == 3:
        measure(sys.argv[1], int(sys.argv[2]))
    else:
        main()

"""`studykit check --run-experiments` over the bundled content at full size, once (goal
≤ 60 s on the 2-core machine), and plain `check` with no recorded runs, then with them.

The tests run the same check on small links (tests/data/check/linked); this is the run a
maintainer needs before a release: every link, card answer and `measured:` entry of the
bundled content against its experiment at the size the content asks for. Prints the time and
what it ran, and every problem when it is not clean; asserts nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import PYTHON, REPO, report


def bench_plain_check_records() -> None:
    """Plain check in a fresh data dir: the first records the measured runs, the second reuses."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYKIT_")}
    with tempfile.TemporaryDirectory() as data:
        for label in ("no record yet", "runs recorded"):
            started = time.perf_counter()
            run = subprocess.run(
                [PYTHON, "-m", "studykit", "--data-dir", data, "check"],
                capture_output=True,
                text=True,
                cwd=REPO,
                env=env,
                check=False,
            )
            report(f"check, plain ({label})", time.perf_counter() - started)
            for line in run.stdout.splitlines():
                if line.startswith("experiments: "):
                    print(f"  {line}", flush=True)


def bench_check_experiments() -> None:
    """One whole-process run (each experiment in its child process, as a user's check does)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYKIT_")}
    started = time.perf_counter()
    run = subprocess.run(
        [PYTHON, "-m", "studykit", "check", "--run-experiments"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        check=False,
    )
    report("check --run-experiments (bundled, full size)", time.perf_counter() - started)
    lines = run.stdout.splitlines()
    for line in lines:
        if line.startswith("experiments: "):
            print(f"  {line}", flush=True)
    if run.returncode != 0:
        print(f"  NOT CLEAN (exit {run.returncode}):", flush=True)
        for line in [*lines, *run.stderr.splitlines()]:
            print(f"    {line}", flush=True)


def main() -> None:
    print(f"check benchmarks — {time.strftime('%Y-%m-%d %H:%M')}")
    bench_plain_check_records()
    bench_check_experiments()


if __name__ == "__main__":
    main()

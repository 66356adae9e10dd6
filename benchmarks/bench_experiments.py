"""Each experiment's default run time on this machine, and a cached re-display. Asserts nothing."""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import report, time_call

from studykit.core.config import Settings, bundled_root
from studykit.experiments.cache import run_cached
from studykit.experiments.device import machine_description
from studykit.experiments.registry import names
from studykit.experiments.runner import run_experiment
from studykit.study.session import StudySession


def bench_defaults() -> None:
    """Default parameters on the CPU, one run each after a small warm-up run."""
    run_experiment("positional-encoding", {"positions": 4, "d_model": 4}, device="cpu")
    for name in names():
        started = time.perf_counter()
        run_experiment(name, {}, device="cpu")
        report(f"experiment {name} (defaults, cpu)", time.perf_counter() - started, goal="≤ 5 s")


def bench_cached(tmp: Path) -> None:
    """A cached result re-displayed: store lookup + decode, and with the terminal report."""
    from studykit.commands.experiment import human_report

    settings = Settings(root=bundled_root(), data_dir=tmp, enable_fuzzing=False)
    session = StudySession.open(settings)
    try:
        run_cached(session, "rnn-gradient-decay", {}, device="cpu")

        def lookup() -> None:
            assert run_cached(session, "rnn-gradient-decay", {}, device="cpu").cached

        def redisplay() -> None:
            human_report(run_cached(session, "rnn-gradient-decay", {}, device="cpu"))

        report("cached result: lookup + decode", time_call(lookup, repeat=20), goal="≤ 50 ms")
        report(
            "cached result: lookup + text report + plot",
            time_call(redisplay, repeat=20),
            goal="≤ 50 ms",
        )
    finally:
        session.close()


def main() -> None:
    print(
        f"experiment benchmarks — {machine_description('cpu')}, {time.strftime('%Y-%m-%d %H:%M')}"
    )
    tmp = Path(tempfile.mkdtemp(prefix="studykit-bench-experiments-"))
    try:
        bench_defaults()
        bench_cached(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Memory model: simulate 365 days x 1,000 cards; optimize 5,000 / 50,000 reviews; workload."""

from __future__ import annotations

import functools
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import report
from generated import write_yaml_root

from studykit.core.config import Settings
from studykit.memory.simulate import simulate
from studykit.study.session import StudySession

START = datetime(2025, 1, 6, 9, tzinfo=UTC)
T = TypeVar("T")


def _timed(name: str, goal: str, fn: Callable[[], T]) -> T:
    """Report one call's wall time beside its goal, then its CPU time and the load average."""
    cpu, start = time.process_time(), time.perf_counter()
    value = fn()
    report(name.format(value=value), time.perf_counter() - start, goal=goal)
    print(f"    CPU {time.process_time() - cpu:.2f} s; {_load()}", flush=True)
    return value


def _load() -> str:
    """The machine's share: other processes load its cores too, so wall time alone misleads."""
    one, five, _ = os.getloadavg()
    return f"{os.cpu_count()} CPUs, load {one:.1f} / {five:.1f} (1 / 5 min)"


def _fsrs_optimizer(rows: list[tuple[int, int, int, int]]) -> None:
    """fsrs's own optimizer on the same reviews and split, for reference (when installed)."""
    try:
        from fsrs import Optimizer, Rating, ReviewLog
        from fsrs.optimizer import LOWER_BOUNDS_PARAMETERS_TENSORS  # noqa: F401
    except ImportError:
        print("    (fsrs's own optimizer not installed: pip install 'fsrs[optimizer]')")
        return
    from studykit.memory.metrics import predict, score
    from studykit.memory.optimize import TRAIN_SHARE

    counted = predict(rows, None)
    split = counted[int(len(counted) * TRAIN_SHARE)].reviewed_at_us
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    logs = [
        ReviewLog(k, Rating(g), epoch + timedelta(microseconds=at), ms)
        for k, g, at, ms in rows
        if at < split
    ]
    cpu, start = time.process_time(), time.perf_counter()
    fitted = Optimizer(logs).compute_optimal_parameters()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    after = score([p for p in predict(rows, fitted) if p.reviewed_at_us >= split])
    print(
        f"    fsrs's own optimizer, same reviews: {wall:.2f} s (CPU {cpu:.2f} s), "
        f"held-out log loss {after.log_loss:.4f}, RMSE {after.rmse:.4f}",
        flush=True,
    )


def main() -> None:
    try:
        import numpy  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        print("memory model benchmarks skipped: install the torch extra ('.[torch]')")
        return
    from studykit.memory.optimize import fit
    from studykit.memory.workload import RETENTIONS, recommend, simulate_workload

    print(f"memory model benchmarks — {_load()}", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="studykit-bench-memory-"))
    try:
        root = tmp / "root"
        write_yaml_root(root, cards=1000)
        settings = Settings(root=root, data_dir=tmp / "sim")
        _timed(
            "simulate 365 days x 1,000 cards ({value.answers:,} answers)",
            "≤ 10 s",
            lambda: simulate(settings, days=365, seed=1, start=START),
        )

        big_root = tmp / "big-root"
        write_yaml_root(big_root, cards=2500)
        big = replace(settings, root=big_root, data_dir=tmp / "big", new_per_day=40)
        simulate(big, days=365, seed=2, start=START)
        with StudySession.open(big) as session:
            rows = session.review_rows()
        for size, goal in ((5_000, "≤ 10 s"), (50_000, "≤ 60 s")):
            part = rows[:size]
            fitted = _timed(
                f"optimize {len(part):,} reviews (fit + held-out scoring)",
                goal,
                functools.partial(fit, part),
            )
            f = fitted
            print(
                f"    held-out log loss {f.before.log_loss:.4f} -> {f.after.log_loss:.4f}, "
                f"RMSE {f.before.rmse:.4f} -> {f.after.rmse:.4f}",
                flush=True,
            )
            if size == 5_000:
                _fsrs_optimizer(part)

        with StudySession.open(settings) as session:
            inputs = session.workload_inputs()
            model = session.memory_model()
        from fsrs.scheduler import DEFAULT_PARAMETERS

        params = list(DEFAULT_PARAMETERS) if model is None else model["parameters"]

        def curve() -> float:
            rows = [
                simulate_workload(
                    params,
                    retention=r,
                    days=365,
                    new_cards=inputs["new"] + 1000,
                    new_per_day=20,
                    reviews_per_day=9999,
                    stability=inputs["stability"],
                    difficulty=inputs["difficulty"],
                    elapsed=inputs["elapsed"],
                )
                for r in RETENTIONS
            ]
            return recommend(rows).retention

        _timed("workload 28 retentions x 365 days x 2,000 cards (best {value})", "≤ 10 s", curve)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

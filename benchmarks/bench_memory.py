"""Memory model: simulate 365 days x 1,000 cards; optimize 5,000 / 50,000 reviews; workload."""

from __future__ import annotations

import functools
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import report
from generated import write_yaml_root

from studykit.config import Settings
from studykit.memory.simulate import simulate
from studykit.session import StudySession

START = datetime(2025, 1, 6, 9, tzinfo=UTC)
T = TypeVar("T")


def _timed(fn: Callable[[], T]) -> tuple[float, T]:
    """Wall time of one call, and its value."""
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def main() -> None:
    from studykit.memory.optimize import fit
    from studykit.memory.workload import RETENTIONS, recommend, simulate_workload

    tmp = Path(tempfile.mkdtemp(prefix="studykit-bench-memory-"))
    try:
        root = tmp / "root"
        write_yaml_root(root, cards=1000)
        settings = Settings(root=root, data_dir=tmp / "sim")
        seconds, result = _timed(lambda: simulate(settings, days=365, seed=1, start=START))
        report(
            f"simulate 365 days x 1,000 cards ({result.answers:,} answers)",
            seconds,
            goal="≤ 10 s",
        )

        big_root = tmp / "big-root"
        write_yaml_root(big_root, cards=2500)
        big = replace(settings, root=big_root, data_dir=tmp / "big", new_per_day=40)
        simulate(big, days=365, seed=2, start=START)
        with StudySession.open(big) as session:
            rows = session.review_rows()
        for size, goal in ((5_000, "≤ 10 s"), (50_000, "≤ 60 s")):
            part = rows[:size]
            seconds, fitted = _timed(functools.partial(fit, part))
            report(
                f"optimize {len(part):,} reviews (fit + held-out scoring)",
                seconds,
                goal=goal,
            )
            f = fitted
            print(
                f"    log loss {f.before.log_loss:.4f} -> {f.after.log_loss:.4f}, "
                f"RMSE {f.before.rmse:.4f} -> {f.after.rmse:.4f}"
            )

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

        seconds, best = _timed(curve)
        report(
            f"workload 28 retentions x 365 days x 2,000 cards (best {best})", seconds, goal="≤ 10 s"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

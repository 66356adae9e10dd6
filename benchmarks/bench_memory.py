"""Memory model: simulate a year; optimize 5k / 50k / 200k reviews; workload; load balancer."""

from __future__ import annotations

import os
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

from studykit.core.config import Settings
from studykit.memory.simulate import simulate
from studykit.study.session import StudySession

START = datetime(2025, 1, 6, 9, tzinfo=UTC)
SIZES = (5_000, 50_000, 200_000)
T = TypeVar("T")
Answer = tuple[int, int, int, int | None, int]


def _timed(name: str, goal: str, fn: Callable[[], T]) -> T:
    """Report one call's wall time beside its goal, then its CPU time and the load average."""
    cpu, start = time.process_time(), time.perf_counter()
    value = fn()
    report(name.format(value=value), time.perf_counter() - start, goal=goal)
    print(f"    CPU {time.process_time() - cpu:.2f} s; {_load()}", flush=True)
    return value


def _measure(fn: Callable[[], T]) -> tuple[T, float, float]:
    """fn's value, wall seconds and CPU seconds (this process, all threads)."""
    cpu, start = time.process_time(), time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start, time.process_time() - cpu


def _load() -> str:
    """The machine's share: other processes load its cores too, so wall time alone misleads."""
    one, five, _ = os.getloadavg()
    return f"{os.cpu_count()} CPUs, load {one:.1f} / {five:.1f} (1 / 5 min)"


def compare_fits(answers: list[Answer], next_day_at: int) -> None:
    """The fit on the earlier 80 % of items, scored by fsrs-rs on the later 20 %.

    The torch fit this replaced ran beside it here until commit 5a1abb7. Held-out log loss,
    fsrs-rs vs torch, scored by fsrs-rs on Anki's items: 5k 0.343 vs 0.422, 50k 0.428 vs
    0.432, 200k 0.366 vs 0.372, at 0.06 s vs 3.1 s CPU for 50k. Replayed through the fsrs
    package's scheduler instead: 5k 0.492 vs 0.547, 50k 0.516 vs 0.495, 200k 0.451 vs 0.443;
    there torch fits the scheduler's whole-24-hour day counting, which the simulated learner
    shares (62 % of its next-study-day reviews are under 24 h apart). So it was deleted.
    """
    from fsrs.scheduler import DEFAULT_PARAMETERS

    from studykit.memory import engine
    from studykit.memory.optimize import fit, items_of, split

    _, wall, cpu = _measure(lambda: fit(answers, next_day_at=next_day_at))
    report(
        f"optimize {len(answers):,} answers (convert, fit, score)",
        wall,
        goal="≤ 1 s at 50,000",
    )
    print(f"    CPU {cpu:.2f} s; {_load()}", flush=True)
    parts = split(items_of(answers, (), next_day_at=next_day_at))
    print(
        f"    {len(parts.train):,} items fitted on, {len(parts.test):,} held out; "
        f"fit wall, CPU, held-out log loss, RMSE (bins):"
    )
    default = engine.evaluate(DEFAULT_PARAMETERS, parts.test)
    print(f"    {'fsrs defaults':<16}{'':>18}{default.log_loss:>10.4f}{default.rmse:>9.4f}")
    rs_params, wall, cpu = _measure(lambda: engine.fit(parts.train, relearning_steps=1))
    rs = engine.evaluate(rs_params, parts.test)
    print(
        f"    {'fsrs-rs-python':<16}{wall:>8.2f} s{cpu:>8.2f} s{rs.log_loss:>10.4f}{rs.rmse:>9.4f}"
    )


def main() -> None:
    from studykit.memory import engine

    if not engine.available():
        print(f"memory model benchmarks skipped: {engine.INSTALL_HINT}")
        return
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
        _bench_balancer(settings, tmp)

        # One simulated year of 6,500 cards at 40 new a day (~210,000 answers); the sizes are
        # its first answers, so each is a student's history up to some day.
        big_root = tmp / "big-root"
        write_yaml_root(big_root, cards=6500)
        big = replace(
            settings, root=big_root, data_dir=tmp / "big", new_per_day=40, reviews_per_day=9999
        )
        _timed(
            "simulate 365 days x 6,500 cards ({value.answers:,} answers)",
            "",
            lambda: simulate(big, days=365, seed=2, start=START),
        )
        with StudySession.open(big) as session:
            answers, _, _ = session.training_log()
        for size in SIZES:
            part = answers[:size]
            compare_fits(part, part[-1][2] // 1_000_000 + 86_400)

        _bench_workload(settings)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _daily_reviews(settings: Settings) -> list[int]:
    """Answers to review-state cards per simulated day, after the first 60 (the ramp-up)."""
    import sqlite3

    per_day = [0] * 365
    with sqlite3.connect(settings.database_path) as conn:
        for (at_us,) in conn.execute(
            "SELECT reviewed_at_us FROM review_log WHERE state_before = 2"
        ):
            per_day[(at_us // 1_000_000 - int(START.timestamp())) // 86_400] += 1
    return per_day[60:]


def _bench_balancer(balanced: Settings, tmp: Path) -> None:
    """The same simulated year without the load balancer, and with Easy Days (sat .5, sun 0)."""
    import statistics

    from studykit.srs.balance import spread

    plain = replace(balanced, data_dir=tmp / "sim-plain", load_balancer=False)
    easy = replace(balanced, data_dir=tmp / "sim-easy", easy_days=(1, 1, 1, 1, 1, 0.5, 0))
    for settings in (plain, easy):
        simulate(settings, days=365, seed=1, start=START)
    print("  reviews per day, days 60-365 of that year (fuzz on, seed 1):")
    print(f"    {'':<26}{'mean':>6}{'sd':>6}{'day-to-day':>11}{'min':>5}{'max':>5}   Mon..Sun")
    first = (START.weekday() + 60) % 7
    for name, settings in (
        ("without the load balancer", plain),
        ("with it", balanced),
        ("with it, Easy Days sat/sun", easy),
    ):
        days = _daily_reviews(settings)
        week = [statistics.mean(days[(w - first) % 7 :: 7]) for w in range(7)]
        print(
            f"    {name:<26}{statistics.mean(days):>6.1f}{statistics.pstdev(days):>6.1f}"
            f"{spread(days):>11.2f}{min(days):>5}{max(days):>5}   "
            + " ".join(f"{m:.0f}" for m in week),
            flush=True,
        )


def _bench_workload(settings: Settings) -> None:
    from fsrs.scheduler import DEFAULT_PARAMETERS

    from studykit.memory.workload import RETENTIONS, curve

    with StudySession.open(settings) as session:
        inputs = session.workload_inputs()
    more = inputs.copy()
    more["new"] = inputs["new"] + 1000
    wider = replace(settings, new_per_day=20, reviews_per_day=9999)

    def run() -> int:
        return len(curve(list(DEFAULT_PARAMETERS), more, wider, days=365, retentions=RETENTIONS))

    _timed("workload {value} retentions x 365 days x 2,000 cards", "≤ 10 s", run)


if __name__ == "__main__":
    main()

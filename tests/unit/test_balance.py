"""The load balancer and Easy Days: the rules on small cases, then a simulated year."""

from __future__ import annotations

import random
import sqlite3
import statistics
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import fsrs
import pytest

from studykit.core.config import Settings
from studykit.core.easydays import NORMAL_WEEK
from studykit.memory.simulate import simulate
from studykit.srs.balance import easy_day_weights, pick_day, spread
from studykit.srs.scheduler import Rating, Scheduler, State, fuzz_range
from studykit.study.session import StudySession

START = datetime(2025, 1, 6, 9, tzinfo=UTC)  # a Monday
DAYS = 300
WEEKEND = (1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.0)  # Saturday at half, Sunday as light as it gets


def test_the_fuzz_range_is_the_one_fsrs_draws_from() -> None:
    engine = fsrs.Scheduler(enable_fuzzing=True)
    random.seed(5)
    for days in (1, 2, 3, 5, 8, 15, 30, 90, 400):
        drawn = {
            engine._get_fuzzed_interval(interval=timedelta(days=days)).days for _ in range(400)
        }
        bounds = fuzz_range(days, 36500)
        if bounds is None:
            assert drawn == {days}
            continue
        lower, upper = bounds
        # fsrs rounds a uniform draw over [lower, upper + 1): upper + 1 comes up now and then.
        assert set(range(lower, upper + 1)) <= drawn <= set(range(lower, upper + 2)), days


def test_the_day_with_the_fewest_reviews_wins_and_ties_stay_near_the_interval() -> None:
    normal = [1.0] * 5
    assert pick_day(8, 10, [30, 31, 29, 30, 30], normal) == 10
    assert pick_day(8, 10, [30, 31, 40, 30, 30], normal) == 11  # fewest: 8, 11, 12; nearest 10
    assert pick_day(8, 10, [30, 31, 40, 31, 31], normal) == 8
    assert pick_day(8, 10, [33, 30, 40, 30, 33], normal) == 9  # 9 and 11 are as near: earlier
    # The load balancer off: only Easy Days move a card, to the open day nearest its interval.
    assert pick_day(8, 10, [30, 31, 40, 30, 30], normal, even=False) == 10


def test_easy_days_close_a_minimum_day_and_a_reduced_one_once_it_is_over_its_share() -> None:
    # Sunday (share 0) is closed even when it is empty; the others stay open.
    assert easy_day_weights([1.0, 0.0, 1.0], [10, 0, 10]) == [1.0, 0.0001, 1.0]
    assert pick_day(4, 5, [10, 0, 10], [1.0, 0.0, 1.0]) == 4
    # A day at 0.5 with 6 due counts as 12 against the others' average of 10: closed.
    assert easy_day_weights([1.0, 0.5, 1.0], [10, 6, 10]) == [1.0, 0.0001, 1.0]
    assert pick_day(4, 5, [10, 6, 10], [1.0, 0.5, 1.0]) == 4
    # With 4 due it counts as 8, under 10: open, and the fewest.
    assert easy_day_weights([1.0, 0.5, 1.0], [10, 4, 10]) == [1.0, 1.0, 1.0]
    assert pick_day(4, 5, [10, 4, 10], [1.0, 0.5, 1.0]) == 5
    # Only closed days in the range: the fewest of them, as if none were closed.
    assert pick_day(4, 5, [3, 2], [0.0, 0.0]) == 5


def test_the_scheduler_puts_a_review_on_the_day_the_balancer_picks() -> None:
    now = START + timedelta(days=40)
    card = fsrs.Card(
        card_id=1, state=State.Review, stability=20.0, difficulty=5.0, due=now,
        last_review=now - timedelta(days=20),
    )  # fmt: skip
    exact = Scheduler(enable_fuzzing=False).review(card, Rating.Good, now=now)[0]
    days = (exact.due - now).days
    lower, upper = fuzz_range(days, 36500) or (0, 0)
    asked: list[tuple[int, int, int]] = []

    def balance(d: int, low: int, high: int) -> int | None:
        asked.append((d, low, high))
        return high

    fuzzed = Scheduler(enable_fuzzing=True)
    reviewed, _ = fuzzed.review(card, Rating.Good, now=now, balance=balance)
    assert asked == [(days, lower, upper)] and lower < days < upper
    assert reviewed.due == now + timedelta(days=upper)
    assert reviewed.stability == exact.stability
    # None leaves it to fsrs's own fuzz; without fuzz the balancer is never asked.
    again, _ = fuzzed.review(card, Rating.Good, now=now, balance=lambda *_: None)
    assert lower <= (again.due - now).days <= upper
    plain = Scheduler(enable_fuzzing=False).review(card, Rating.Good, now=now, balance=balance)
    assert plain[0].due == exact.due and len(asked) == 1


def _reviews_per_day(data_dir: Path) -> list[int]:
    """Answers to review-state cards on each simulated day after the first 60."""
    per_day = [0] * DAYS
    with sqlite3.connect(data_dir / "studykit.sqlite3") as conn:
        rows = conn.execute("SELECT reviewed_at_us FROM review_log WHERE state_before = 2")
        for (at_us,) in rows:
            per_day[(at_us // 1_000_000 - int(START.timestamp())) // 86_400] += 1
    return per_day[60:]


def _weekday_means(counts: list[int], first: int) -> list[float]:
    return [statistics.mean(counts[k::7]) for k in ((w - first) % 7 for w in range(7))]


@pytest.fixture(scope="module")
def year(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One student, fuzz on, seeded: 300 days without, with the balancer, and with Easy Days."""
    base = tmp_path_factory.mktemp("year")
    root = base / "root"
    (root / "decks").mkdir(parents=True)
    lines = ["id: year", 'name: "Year"', "cards:"]
    for i in range(120):
        lines += [f"  - id: c{i}", f"    front: Question {i}?", f"    back: Answer {i}."]
    (root / "decks" / "year.yaml").write_text("\n".join(lines) + "\n")
    runs: dict[str, dict[str, Any]] = {
        "off": dict(load_balancer=False),
        "balanced": dict(load_balancer=True),
        "easy": dict(load_balancer=True, easy_days=WEEKEND),
    }
    out = {}
    for name, options in runs.items():
        settings = Settings(
            root=root, data_dir=base / name, new_per_day=10, reviews_per_day=9999, **options
        )
        simulate(settings, days=DAYS, seed=3, start=START)
        out[name] = settings.data_dir
    return out


def test_on_a_simulated_year_the_balancer_evens_out_the_days(year: dict[str, Path]) -> None:
    off, on = _reviews_per_day(year["off"]), _reviews_per_day(year["balanced"])
    assert sum(on) == pytest.approx(sum(off), rel=0.1)  # the same work, spread more evenly
    assert spread(on) < 0.8 * spread(off)


def test_on_a_simulated_year_easy_days_get_fewer_reviews(
    year: dict[str, Path], tmp_path: Path
) -> None:
    first = (START + timedelta(days=60)).weekday()
    means = _weekday_means(_reviews_per_day(year["easy"]), first)
    weekdays = statistics.mean(means[:5])
    assert means[6] < 0.6 * weekdays and means[5] < 0.9 * weekdays
    plain = _weekday_means(_reviews_per_day(year["balanced"]), first)
    assert min(plain) > 0.85 * statistics.mean(plain)  # without Easy Days, no light day
    # The 30-day forecast after that year shows it too.
    settings = Settings(root=year["easy"].parent / "root", data_dir=year["easy"], easy_days=WEEKEND)
    with StudySession.open(settings, clock=lambda: START + timedelta(days=DAYS), tz=UTC) as s:
        forecast = s.stats().forecast[1:29]  # whole weeks after today
    today = (START + timedelta(days=DAYS)).weekday()
    ahead = [sum(forecast[k::7]) for k in ((w - today - 1) % 7 for w in range(7))]
    assert ahead[6] < 0.6 * statistics.mean(ahead[:5])


def test_the_workload_simulation_schedules_as_the_balancer_does() -> None:
    pytest.importorskip("numpy")
    from fsrs.scheduler import DEFAULT_PARAMETERS

    from studykit.memory.workload import simulate_workload

    def run(**options: object) -> tuple[float, list[float]]:
        row = simulate_workload(
            DEFAULT_PARAMETERS, retention=0.9, days=200, new_cards=1500, new_per_day=15,
            reviews_per_day=9999, **options,  # type: ignore[arg-type]
        )  # fmt: skip
        return spread(row.daily[60:]), list(row.per_weekday(0))

    exact, _ = run()
    balanced, week = run(balance=True)
    assert balanced < 0.6 * exact and min(week) > 0.9 * max(week)
    _, easy = run(balance=True, easy_days=WEEKEND)
    assert easy[6] < 0.6 * statistics.mean(easy[:5]) and easy[5] < statistics.mean(easy[:5])
    assert run(easy_days=NORMAL_WEEK) == (exact, run()[1])

"""The fsrs wrapper: golden values pinned with fixed UTC datetimes, fuzz off."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from studykit.srs.scheduler import Rating, Scheduler, State, card_key, ensure_utc

T0 = datetime(2026, 1, 1, 10, 0, tzinfo=UTC)


@pytest.fixture
def scheduler() -> Scheduler:
    return Scheduler(enable_fuzzing=False)


def test_card_key_is_stable_63_bit_and_distinct() -> None:
    # Pinned: history in every user's database hangs on these numbers.
    assert card_key("rnn-limitations", "sequential-bottleneck") == 1981868784406605002
    assert card_key("a", "b") == 1003126606879428512
    assert card_key("a", "b-c") != card_key("a-b", "c")
    keys = {card_key(f"deck-{d}", f"card-{c}") for d in range(30) for c in range(300)}
    assert len(keys) == 9000
    assert all(0 <= key < 2**63 for key in keys)


def test_new_card_rated_good_is_due_ten_minutes_later(scheduler: Scheduler) -> None:
    card, log = scheduler.review(scheduler.new_card(1, now=T0), Rating.Good, now=T0)
    assert card.due == datetime(2026, 1, 1, 10, 10, tzinfo=UTC)
    assert card.state == State.Learning
    assert card.step == 1
    assert card.stability == pytest.approx(2.3065)
    assert card.difficulty == pytest.approx(2.118103970459016)
    assert log.card_id == 1
    assert log.review_datetime == T0


@pytest.mark.parametrize(
    ("rating", "state", "stability", "difficulty", "due"),
    [
        (Rating.Again, State.Learning, 0.212, 6.4133, datetime(2026, 1, 1, 10, 1, tzinfo=UTC)),
        (Rating.Hard, State.Learning, 1.2931, 5.112170705601056, T0 + timedelta(seconds=330)),
        (Rating.Good, State.Learning, 2.3065, 2.118103970459016, T0 + timedelta(minutes=10)),
        (Rating.Easy, State.Review, 8.2956, 1.0, datetime(2026, 1, 9, 10, 0, tzinfo=UTC)),
    ],
)
def test_first_answer_golden(
    scheduler: Scheduler,
    rating: Rating,
    state: State,
    stability: float,
    difficulty: float,
    due: datetime,
) -> None:
    card, _ = scheduler.review(scheduler.new_card(42, now=T0), rating, now=T0)
    assert (card.state, card.due) == (state, due)
    assert card.stability == pytest.approx(stability, rel=1e-12)
    assert card.difficulty == pytest.approx(difficulty, rel=1e-12)


def test_answer_sequence_golden(scheduler: Scheduler) -> None:
    """Good, Good, Good, Again (lapse), Good, Hard, Easy, each answered when due."""
    expected = [
        (Rating.Good, State.Learning, 2.3065, 2.118103970459016, "2026-01-01T10:10"),
        (Rating.Good, State.Review, 2.3065, 2.111214235785395, "2026-01-03T10:10"),
        (Rating.Good, State.Review, 10.971048263078135, 2.1043313908464483, "2026-01-14T10:10"),
        (Rating.Again, State.Relearning, 1.53901253028147, 7.389975788014609, "2026-01-14T10:20"),
        (Rating.Good, State.Review, 1.5718415897918614, 7.377814181523433, "2026-01-16T10:20"),
        (Rating.Hard, State.Review, 3.594305968238946, 8.244499229132952, "2026-01-20T10:20"),
        (Rating.Easy, State.Review, 12.302839949923468, 7.643121047141945, "2026-02-01T10:20"),
    ]
    card = scheduler.new_card(7, now=T0)
    now = T0
    for rating, state, stability, difficulty, due in expected:
        card, _ = scheduler.review(card, rating, now=now, duration_ms=1500)
        assert card.state == state, rating
        assert card.stability == pytest.approx(stability, rel=1e-12)
        assert card.difficulty == pytest.approx(difficulty, rel=1e-12)
        assert card.due == datetime.fromisoformat(due).replace(tzinfo=UTC)
        assert card.last_review == now
        now = card.due


def test_preview_matches_review_and_changes_nothing(scheduler: Scheduler) -> None:
    card = scheduler.new_card(3, now=T0)
    before = card.to_dict()
    preview = scheduler.preview(card, now=T0)
    assert preview == {
        Rating.Again: timedelta(minutes=1),
        Rating.Hard: timedelta(minutes=5, seconds=30),
        Rating.Good: timedelta(minutes=10),
        Rating.Easy: timedelta(days=8),
    }
    assert card.to_dict() == before
    for rating, interval in preview.items():
        assert scheduler.review(card, rating, now=T0)[0].due - T0 == interval


@pytest.mark.parametrize(("retention", "easy_days"), [(0.8, 28), (0.9, 8), (0.95, 3)])
def test_desired_retention_changes_intervals(retention: float, easy_days: int) -> None:
    scheduler = Scheduler(desired_retention=retention, enable_fuzzing=False)
    card = scheduler.new_card(1, now=T0)
    assert scheduler.preview(card, now=T0)[Rating.Easy] == timedelta(days=easy_days)


def test_custom_steps() -> None:
    scheduler = Scheduler(
        learning_steps=(timedelta(minutes=5),), relearning_steps=(), enable_fuzzing=False
    )
    preview = scheduler.preview(scheduler.new_card(1, now=T0), now=T0)
    assert preview[Rating.Again] == timedelta(minutes=5)
    assert preview[Rating.Hard] == timedelta(minutes=7, seconds=30)
    assert preview[Rating.Good] == timedelta(days=2)


def test_fuzzing_moves_long_intervals_within_range_and_preview_stays_exact() -> None:
    exact = Scheduler(enable_fuzzing=False)
    fuzzy = Scheduler(enable_fuzzing=True)
    card, _ = exact.review(exact.new_card(9, now=T0), Rating.Easy, now=T0)
    now = card.due
    unfuzzed = exact.review(card, Rating.Good, now=now)[0].due - now
    assert unfuzzed == timedelta(days=39)
    random.seed(1234)
    seen = {fuzzy.review(card, Rating.Good, now=now)[0].due - now for _ in range(50)}
    assert len(seen) > 1
    assert all(timedelta(days=35) <= interval <= timedelta(days=44) for interval in seen)
    assert fuzzy.preview(card, now=now)[Rating.Good] == unfuzzed


def test_naive_datetimes_are_refused(scheduler: Scheduler) -> None:
    naive = datetime(2026, 1, 1, 10, 0)
    with pytest.raises(ValueError, match="naive"):
        scheduler.new_card(1, now=naive)
    with pytest.raises(ValueError, match="naive"):
        scheduler.review(scheduler.new_card(1, now=T0), Rating.Good, now=naive)
    with pytest.raises(ValueError, match="naive"):
        scheduler.preview(scheduler.new_card(1, now=T0), now=naive)


def test_aware_datetimes_become_utc() -> None:
    kolkata = datetime(2026, 1, 1, 15, 30, tzinfo=ZoneInfo("Asia/Kolkata"))
    assert ensure_utc(kolkata) == T0
    assert ensure_utc(kolkata).tzinfo is UTC
    assert ensure_utc(T0.astimezone(timezone(timedelta(0)))).tzinfo is UTC


def test_retention_bounds_checked() -> None:
    with pytest.raises(ValueError, match="desired_retention"):
        Scheduler(desired_retention=1.0)


def test_retrievability(scheduler: Scheduler) -> None:
    new = scheduler.new_card(1, now=T0)
    assert scheduler.retrievability(new, now=T0) == 0
    card, _ = scheduler.review(new, Rating.Easy, now=T0)
    # At the scheduled due date the predicted recall is about the desired retention.
    assert scheduler.retrievability(card, now=card.due) == pytest.approx(0.9, abs=0.01)

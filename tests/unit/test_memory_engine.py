"""fsrs-rs as the engine: fitting, the held-out split, budgets, habits, the advice threshold."""

from __future__ import annotations

import random
import struct
from datetime import UTC, datetime, timedelta

import fsrs
import pytest
from fsrs import Rating
from fsrs.scheduler import DEFAULT_PARAMETERS, UPPER_BOUNDS_PARAMETERS

from studykit.memory.advice import HABIT_PRIOR, Readiness, habits
from studykit.memory.engine import Habits, within_bounds
from studykit.memory.optimize import MIN_REVIEWS, NotEnoughReviews, split
from studykit.memory.simulate import DEFAULT_LEARNER

T0 = datetime(2026, 1, 5, 9, tzinfo=UTC)
Row = tuple[int, int, int, int | None, int]


def _us(moment: datetime) -> int:
    return int((moment - datetime(1970, 1, 1, tzinfo=UTC)).total_seconds()) * 1_000_000


def _boundary(rows: list[Row]) -> int:
    """The day boundary after the last answer (09:00 answers, boundaries at 04:00 UTC)."""
    return rows[-1][2] // 1_000_000 - 5 * 3600 + 86_400


def learner_rows(seed: int, cards: int, days: int) -> list[Row]:
    """Answers of a student whose memory follows DEFAULT_LEARNER, scheduled by fsrs at 0.9."""
    rng = random.Random(seed)
    truth = fsrs.Scheduler(parameters=DEFAULT_LEARNER.parameters, enable_fuzzing=False)
    schedule = fsrs.Scheduler(enable_fuzzing=False)
    end = T0 + timedelta(days=days)
    rows: list[Row] = []
    for key in range(cards):
        start = T0 + timedelta(days=key * days // (2 * cards))
        card, memory = fsrs.Card(card_id=key, due=start), fsrs.Card(card_id=key, due=start)
        while card.due < end:
            moment = card.due
            p = truth.get_card_retrievability(memory, moment) if memory.last_review else 0.6
            rating = rng.choice([Rating.Hard, Rating.Good, Rating.Good, Rating.Easy])
            rating = rating if rng.random() < p else Rating.Again
            before = None if card.last_review is None else int(card.state)
            rows.append((key, int(rating), _us(moment), before, 8000))
            card, _ = schedule.review_card(card, rating, review_datetime=moment)
            memory, _ = truth.review_card(memory, rating, review_datetime=moment)
    return sorted(rows, key=lambda row: row[2])


def one_review_each(cards: int) -> list[Row]:
    """Each card learnt on day 0 and reviewed once a day later: one item per card."""
    rows: list[Row] = []
    for key in range(cards):
        rows.append((key, 3, _us(T0 + timedelta(seconds=key)), None, 1000))
        rows.append((key, 1 + key % 4, _us(T0 + timedelta(days=1, seconds=key)), 2, 1000))
    return sorted(rows, key=lambda row: row[2])


def test_the_split_needs_min_reviews_and_cuts_in_time() -> None:
    from studykit.memory.optimize import items_of

    short = one_review_each(MIN_REVIEWS - 1)
    with pytest.raises(NotEnoughReviews) as refused:
        split(items_of(short, (), next_day_at=_boundary(short)))
    assert (refused.value.have, refused.value.need) == (MIN_REVIEWS - 1, 640)
    assert "needs 640" in str(refused.value)
    rows = one_review_each(MIN_REVIEWS)
    parts = split(items_of(rows, (), next_day_at=_boundary(rows)))
    assert len(parts.train) == 512 and len(parts.test) == 128
    assert max(i.at_us for i in parts.train) < parts.split_us <= min(i.at_us for i in parts.test)


def test_fitting_lowers_held_out_log_loss_and_a_budget_samples_whole_cards() -> None:
    pytest.importorskip("fsrs_rs_python")
    from studykit.memory.optimize import fit

    rows = learner_rows(6, cards=160, days=120)
    full = fit(rows, next_day_at=_boundary(rows))
    assert full.after.log_loss < full.before.log_loss - 0.01
    assert full.before.n == full.after.n == full.test_reviews > 100
    assert full.fit_cards == full.train_cards and full.current == list(DEFAULT_PARAMETERS)
    fsrs.Scheduler(parameters=full.parameters)  # the scheduler takes them as they are
    sampled = fit(rows, next_day_at=_boundary(rows), budget=600)
    assert sampled.train_cards == full.train_cards and sampled.fit_cards < sampled.train_cards
    assert sampled.train_reviews <= 600 and sampled.test_reviews == full.test_reviews
    assert sampled.before.log_loss == pytest.approx(full.before.log_loss)
    assert sampled.parameters != full.parameters
    again = fit(rows, next_day_at=_boundary(rows), budget=600)
    assert again.parameters == sampled.parameters  # the sample is seeded
    assert again.fit_cards == sampled.fit_cards


def test_fitted_parameters_are_kept_inside_the_fsrs_packages_bounds() -> None:
    as_f32 = [struct.unpack("f", struct.pack("f", w))[0] for w in UPPER_BOUNDS_PARAMETERS]
    assert as_f32[20] > UPPER_BOUNDS_PARAMETERS[20]  # 0.8 in float32 is above 0.8
    with pytest.raises(ValueError):
        fsrs.Scheduler(parameters=as_f32)
    fsrs.Scheduler(parameters=within_bounds(as_f32))


def test_habits_come_from_the_log_blended_with_defaults() -> None:
    rows: list[Row] = [(k, 3, k, None, 30_000) for k in range(10)]  # ten first answers: Good
    rows += [(k, 4, 100 + k, 2, 4_000) for k in range(30)]  # thirty reviews: Easy, 4 s
    rows += [(1, 1, 200, 2, 5_000_000)]  # a lapse left on screen for 83 minutes
    rows += [(k, 3, 300 + k, 1, 2_000) for k in range(5)]  # learning steps: no review shares
    default, got = Habits(), habits(rows)
    w = HABIT_PRIOR
    assert got.first[2] == pytest.approx((10 + w * default.first[2]) / (10 + w))
    assert got.first[0] == pytest.approx(w * default.first[0] / (10 + w))
    assert got.review[2] == pytest.approx((30 + w * default.review[2]) / (30 + w))
    # First answers and learning steps are both learning: 10 x 30 s and 5 x 2 s.
    assert got.seconds[0][2] == pytest.approx((310 + w * default.seconds[0][2]) / (15 + w))
    assert got.seconds[1][3] == pytest.approx((120 + w * default.seconds[1][3]) / (30 + w))
    assert got.seconds[1][0] == pytest.approx((600 + w * default.seconds[1][0]) / (1 + w))
    assert got.seconds[2] == pytest.approx(default.seconds[2])  # no relearning answers
    assert sum(got.first) == pytest.approx(1) and sum(got.review) == pytest.approx(1)


def test_readiness_says_how_many_more_or_what_to_do() -> None:
    assert Readiness(100).more == 540 and not Readiness(100).enough
    assert "you have 100 (540 more to go)" in Readiness(100).waiting()
    assert "studykit optimize --apply" in Readiness(640).waiting()
    assert Readiness(640, fitted=True).waiting() == "" and Readiness(2000).more == 0


def test_a_recommendation_needs_new_cards_to_learn() -> None:
    pytest.importorskip("fsrs_rs_python")
    from studykit.memory.engine import RETENTION_RANGE, optimal_retention

    with pytest.raises(ValueError):
        optimal_retention(DEFAULT_PARAMETERS, cards=0, new_per_day=10, reviews_per_day=99, days=60)
    with pytest.raises(ValueError):  # nothing to learn: fsrs-rs would answer noise
        optimal_retention(DEFAULT_PARAMETERS, cards=90, new_per_day=0, reviews_per_day=99, days=60)
    best = optimal_retention(
        DEFAULT_PARAMETERS, cards=200, new_per_day=10, reviews_per_day=999, days=60
    )
    assert RETENTION_RANGE[0] <= best <= RETENTION_RANGE[1]

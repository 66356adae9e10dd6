"""Memory model pieces: metrics, the workload formulas against fsrs, learner files, scheduling."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import fsrs
import pytest
from fsrs import Rating
from fsrs.scheduler import DEFAULT_PARAMETERS

from studykit.memory.metrics import predict
from studykit.memory.simulate import DEFAULT_LEARNER, LearnerError, load_learner
from studykit.srs.scheduler import Scheduler

np = pytest.importorskip("numpy")

T0 = datetime(2026, 1, 5, 9, tzinfo=UTC)
US = 1_000_000


def test_predict_counts_only_reviews_a_day_apart_and_matches_fsrs() -> None:
    key = 7
    times = [T0, T0 + timedelta(minutes=10), T0 + timedelta(days=3), T0 + timedelta(days=10)]
    ratings = [Rating.Good, Rating.Good, Rating.Again, Rating.Good]
    rows = [
        (key, int(r), int(t.timestamp()) * US, 5000) for r, t in zip(ratings, times, strict=True)
    ]
    preds = predict(rows, None)
    assert [p.y for p in preds] == [0, 1]
    assert [p.index for p in preds] == [2, 3] and [p.lapses for p in preds] == [0, 1]
    scheduler = fsrs.Scheduler(enable_fuzzing=False)
    card = fsrs.Card(card_id=key, due=T0)
    for rating, moment in zip(ratings[:2], times[:2], strict=True):
        card, _ = scheduler.review_card(card, rating, review_datetime=moment)
    assert preds[0].p == pytest.approx(scheduler.get_card_retrievability(card, times[2]))


def test_workload_formulas_agree_with_fsrs_on_long_term_reviews() -> None:
    from studykit.memory.workload import _Model

    params = DEFAULT_LEARNER.parameters
    model = _Model(params)
    scheduler = fsrs.Scheduler(parameters=params, enable_fuzzing=False, desired_retention=0.85)
    for rating in Rating:
        card = fsrs.Card(card_id=1, due=T0)
        card, _ = scheduler.review_card(card, Rating.Good, review_datetime=T0)
        card, _ = scheduler.review_card(card, Rating.Good, review_datetime=T0 + timedelta(days=2))
        s, d, last = card.stability, card.difficulty, card.last_review
        assert last is not None
        moment = last + timedelta(days=5)
        r = scheduler.get_card_retrievability(card, moment)
        after, _ = scheduler.review_card(card, rating, review_datetime=moment)
        g = np.array([int(rating)])
        assert model.recall_probability(np.array([5.0]), np.array([s]))[0] == pytest.approx(r)
        new_s = model.next_stability(np.array([s]), np.array([d]), np.array([r]), g)[0]
        if rating != Rating.Again:  # a lapse goes to relearning steps first in fsrs
            assert new_s == pytest.approx(after.stability)
            ivl = model.interval(np.array([after.stability]), 0.85)[0]
            assert ivl == (after.due - moment).days
        assert model.next_difficulty(np.array([d]), g)[0] == pytest.approx(after.difficulty)


def test_workload_rows_are_sane() -> None:
    from studykit.memory.workload import RETENTIONS, simulate_workload

    rows = [
        simulate_workload(
            DEFAULT_PARAMETERS,
            retention=r,
            days=120,
            new_cards=300,
            new_per_day=10,
            reviews_per_day=9999,
        )
        for r in RETENTIONS
    ]
    assert rows[-1].reviews_per_day > 1.5 * rows[0].reviews_per_day
    assert rows[-1].remembered > rows[0].remembered
    assert all(0 < row.remembered <= 300 for row in rows)


def test_a_learner_file_is_checked_key_by_key(tmp_path: Path) -> None:
    path = tmp_path / "learner.yaml"
    path.write_text("hard: 0.3\neasy: 0.1\nseconds: {recall: 5}\n")
    learner = load_learner(path)
    assert (learner.hard, learner.easy, learner.seconds["recall"]) == (0.3, 0.1, 5.0)
    assert learner.parameters == DEFAULT_LEARNER.parameters
    for text, words in [
        ("hard: 2\n", "`hard`"),
        ("parameters: [1, 2]\n", "21 fsrs parameters"),
        ("first_rating: [0.5, 0.5, 0.5, 0.5]\n", "add up to 1"),
        ("speed: 3\n", "unknown key `speed`"),
    ]:
        path.write_text(text)
        with pytest.raises(LearnerError, match=words):
            load_learner(path)


def test_the_default_learner_differs_from_fsrs_defaults() -> None:
    learner = DEFAULT_LEARNER.parameters
    assert all(learner[i] < DEFAULT_PARAMETERS[i] for i in range(4))  # forgets new cards faster


def test_scheduler_uses_given_parameters() -> None:
    slow = list(DEFAULT_PARAMETERS)
    slow[2] = 0.5  # initial stability after Good
    card = Scheduler.new_card(1, now=T0)
    fast_ivl = Scheduler(enable_fuzzing=False, learning_steps=()).preview(card, now=T0)
    slow_ivl = Scheduler(enable_fuzzing=False, learning_steps=(), parameters=slow).preview(
        card, now=T0
    )
    assert slow_ivl[Rating.Good] < fast_ivl[Rating.Good]

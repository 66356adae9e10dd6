"""Our states and answers as Anki card and revlog columns (values Anki's own backend writes)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from studykit.export.schedule import (
    CARD_LEARN,
    CARD_RELEARN,
    CARD_REVIEW,
    QUEUE_BURIED,
    QUEUE_DAY_LEARN,
    QUEUE_LEARN,
    QUEUE_REVIEW,
    QUEUE_SUSPENDED,
    AnkiDays,
    CardColumns,
    card_columns,
    difficulty_factor,
    revlog_rows,
)
from studykit.srs import studyday
from studykit.srs.records import Answer, CardState
from studykit.srs.scheduler import Rating, State

NOW = datetime(2026, 3, 12, 9, 0, tzinfo=UTC)


def _days() -> AnkiDays:
    start, end = studyday.day_bounds(NOW, hour=4, tz=UTC)
    return AnkiDays(
        crt=int(start.timestamp()),
        today=date(2026, 3, 12),
        tomorrow_at=end,
        study_day=lambda moment: studyday.study_day(moment, hour=4, tz=UTC),
    )


BASE = CardState(key=1, deck_id="d", card_id="c", stability=3.0, difficulty=5.0, reps=2)


def _state(**fields: Any) -> CardState:
    return replace(BASE, **fields)


def _columns(state: CardState) -> CardColumns:
    columns = card_columns(
        state, _days(), now=NOW, learning_steps=2, relearning_steps=1, retention=0.9, decay=0.1542
    )
    assert columns is not None
    return columns


def test_difficulty_is_logged_as_anki_logs_it() -> None:
    # Pairs read from revlog rows Anki 26.9's backend wrote for FSRS answers.
    assert [difficulty_factor(d) for d in (2.118, 2.111, 7.392)] == [224, 223, 810]


def test_review_card_due_in_days_from_the_export_day() -> None:
    state = _state(
        state=State.Review,
        last_review=NOW - timedelta(days=2),
        due=NOW + timedelta(days=5),
        lapses=1,
    )
    columns = _columns(state)
    assert (columns.type, columns.queue, columns.due, columns.ivl) == (
        CARD_REVIEW,
        QUEUE_REVIEW,
        5,
        7,
    )
    assert columns.factor == 2300
    lrt = int((NOW - timedelta(days=2)).timestamp())
    assert json.loads(columns.data) == {"s": 3.0, "d": 5.0, "dr": 0.9, "decay": 0.1542, "lrt": lrt}


def test_learning_today_is_in_seconds_and_later_in_days() -> None:
    soon = _state(state=State.Learning, step=1, last_review=NOW, due=NOW + timedelta(minutes=10))
    later = _state(state=State.Relearning, step=0, last_review=NOW, due=NOW + timedelta(days=2))
    first, second = _columns(soon), _columns(later)
    assert (first.type, first.queue, first.due, first.left) == (
        CARD_LEARN,
        QUEUE_LEARN,
        int((NOW + timedelta(minutes=10)).timestamp()),
        1,
    )
    assert (second.type, second.queue, second.due) == (CARD_RELEARN, QUEUE_DAY_LEARN, 2)


def test_suspended_and_buried_cards_are_hidden_and_new_ones_untouched() -> None:
    review = _state(state=State.Review, last_review=NOW, due=NOW + timedelta(days=3))
    assert _columns(replace(review, suspended=True)).queue == QUEUE_SUSPENDED
    assert _columns(replace(review, buried_until=NOW + timedelta(hours=1))).queue == QUEUE_BURIED
    assert _columns(replace(review, buried_until=NOW - timedelta(hours=1))).queue == QUEUE_REVIEW
    new = CardState(key=1, deck_id="d", card_id="c")
    assert (
        card_columns(
            new, _days(), now=NOW, learning_steps=2, relearning_steps=1, retention=0.9, decay=0.1
        )
        is None
    )


def test_revlog_rows_keep_times_ratings_and_intervals_and_unique_ids() -> None:
    new = CardState(key=1, deck_id="d", card_id="c")
    learning = _state(
        state=State.Learning, step=1, last_review=NOW, due=NOW + timedelta(minutes=10)
    )
    review = _state(state=State.Review, last_review=NOW, due=NOW + timedelta(days=4))

    def answer(before: CardState, after: CardState, rating: Rating) -> Answer:
        return Answer(1, 1, "d", "c", rating, NOW, 1234, before, after, None)

    taken = {int(NOW.timestamp() * 1000)}  # another card's row at the same millisecond
    rows = revlog_rows(
        [answer(new, learning, Rating.Good), answer(learning, review, Rating.Good)], _days(), taken
    )
    assert [r.id for r in rows] == [
        int(NOW.timestamp() * 1000) + 1,
        int(NOW.timestamp() * 1000) + 2,
    ]
    assert [(r.ease, r.ivl, r.last_ivl, r.time, r.type) for r in rows] == [
        (3, -600, 0, 1234, 0),
        (3, 4, -600, 1234, 0),
    ]
    assert rows[0].factor == difficulty_factor(5.0)

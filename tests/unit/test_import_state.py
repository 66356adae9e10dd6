"""Imported starting states: one transaction, once per card, and never counted as answers."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from fsrs import Rating, State

from studykit.importers.srschedule import (
    BadSchedule,
    Schedule,
    difficulty_from_ease,
    import_schedules,
    imported_state,
    parse_schedule,
)
from studykit.srs.records import CardState
from studykit.srs.scheduler import card_key, schedule_key
from studykit.srs.store import Store
from studykit.srs.studyday import study_day

DAY = date(2026, 5, 10)


def test_schedule_comments() -> None:
    assert parse_schedule("!2023-01-01,3,250") == (Schedule(date(2023, 1, 1), 3, 250),)
    assert parse_schedule("!2023-01-01,3,250!2023-02-01,10,270") == (
        Schedule(date(2023, 1, 1), 3, 250),
        Schedule(date(2023, 2, 1), 10, 270),
    )
    assert parse_schedule("2021-08-20,13,290") == (Schedule(date(2021, 8, 20), 13, 290),)
    for bad in ("!2023-02-30,3,250", "!2023-01-01,3", "soon", "!2023-01-01,3,250 junk"):
        with pytest.raises(BadSchedule):
            parse_schedule(bad)


def test_the_state_an_imported_schedule_gives() -> None:
    first, _ = imported_state("d", "c", Schedule(DAY, 20, 250), rollover_hour=4, tz=UTC)
    assert (first.ordinal, first.key, first.stability) == (1, card_key("d", "c"), 20.0)
    sibling = Schedule(DAY - timedelta(days=4), 6, 130)
    state, last = imported_state("d", "c", sibling, ordinal=2, rollover_hour=4, tz=UTC)
    assert state.due == datetime(2026, 5, 6, 4, tzinfo=UTC)
    assert last == datetime(2026, 4, 30, 4, tzinfo=UTC)
    assert (state.state, state.stability) == (State.Review, 6.0)
    assert (state.ordinal, state.key) == (2, schedule_key("d", "c", 2))
    # round trip: the stored state reads back as the plugin's due day and interval
    assert study_day(state.due, hour=4, tz=UTC) == DAY - timedelta(days=4)
    assert state.due is not None and state.last_review is not None
    assert (state.due - state.last_review).days == 6
    assert difficulty_from_ease(250) == 5.0
    assert difficulty_from_ease(130) == pytest.approx(9.8)
    assert difficulty_from_ease(1000) == 1.0 and difficulty_from_ease(0) == 10.0


def _answered(store: Store, deck: str, card: str, at: datetime) -> None:
    new = CardState(card_key(deck, card), deck, card)
    after = replace(new, state=State.Review, stability=3.0, difficulty=5.0, due=at, last_review=at)
    store.record_answer(new, after, rating=Rating.Good, reviewed_at=at, duration_ms=900)


def test_import_once_never_over_answers_and_never_counted(tmp_path: Path) -> None:
    now = datetime(2026, 5, 1, 12, tzinfo=UTC)
    with Store.open(tmp_path / "s.sqlite3") as store:
        _answered(store, "d", "answered", now)
        suspended = CardState(card_key("d", "held"), "d", "held", suspended=True)
        store.put_state(suspended)
        cards = [
            ("d", "answered", (1,), (Schedule(DAY, 3, 250),)),
            ("d", "held", (1,), (Schedule(DAY, 3, 250),)),
            ("d", "fresh", (1,), (Schedule(DAY, 3, 250),)),
            ("d", "plain", (1,), ()),
        ]
        count = import_schedules(store, cards, rollover_hour=4, tz=UTC)
        assert (count.imported, count.already) == (2, 1)
        assert import_schedules(store, cards, rollover_hour=4, tz=UTC).imported == 0
        held = store.get_state(card_key("d", "held"))
        assert held is not None and held.suspended and held.state == State.Review
        answered = store.get_state(card_key("d", "answered"))
        assert answered is not None and answered.due == now  # the real answer is kept
        assert store.get_state(card_key("d", "plain")) is None
        # only the real answer counts: optimizer rows, undo, limits and stats
        assert [row[0] for row in store.review_rows()] == [card_key("d", "answered")]
        assert store.review_count() == 1
        last = store.last_answer()
        assert last is not None and last.card_id == "answered"
        since = now - timedelta(days=365)
        assert store.day_counts(since)["d"].answers == 1
        assert len(store.answer_times(since)) == 1
        history = store.history(card_key("d", "fresh"))
        assert [(a.imported, a.source, a.before.state) for a in history] == [
            (True, "obsidian", None)
        ]


def test_each_sibling_keeps_its_own_schedule_and_extra_entries_are_reported(
    tmp_path: Path,
) -> None:
    both = (Schedule(DAY, 10, 250), Schedule(DAY + timedelta(days=5), 30, 270))
    three = (*both, Schedule(DAY, 2, 250))
    cards = [
        ("d", "two-way", (1, 2), both),  # a `:::` card: front to back, then back to front
        ("d", "cloze", (1, 2, 3), both),  # a third deletion without an entry: stays new
        ("d", "short", (1, 2), three),
    ]
    with Store.open(tmp_path / "s.sqlite3") as store:
        count = import_schedules(store, cards, rollover_hour=4, tz=UTC)
        assert (count.imported, count.already) == (6, 0)
        assert count.dropped == (
            "d/short: its SR comment has 3 entries but the card has 2 sibling(s); "
            "the last 1 left out",
        )
        for card_id in ("two-way", "cloze", "short"):
            one = store.get_state(schedule_key("d", card_id, 1))
            two = store.get_state(schedule_key("d", card_id, 2))
            assert one is not None and two is not None
            assert (one.stability, two.stability) == (10.0, 30.0)  # each its own, none merged
            assert (one.ordinal, two.ordinal) == (1, 2)
        assert store.get_state(schedule_key("d", "cloze", 3)) is None

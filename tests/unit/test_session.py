"""StudySession on real SQLite files with a fake clock: queue, limits, days, undo, leeches."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from studykit.content.loading import Library
from studykit.content.model import Card
from studykit.core.config import Settings
from studykit.core.errors import StudykitError
from studykit.srs.scheduler import card_key
from studykit.srs.store import to_us
from studykit.study.session import DeckCounts, NotLoadedError, Rating, StudyCard, StudySession
from tests.conftest import FakeClock, make_deck, make_library

Factory = Callable[..., StudySession]
KOLKATA = ZoneInfo("Asia/Kolkata")  # UTC+5:30, no DST
NEW_YORK = ZoneInfo("America/New_York")


def undo(session: StudySession) -> StudyCard | None:
    """Undo the last action; its card as it is now (what the app shows after `u`)."""
    done = session.undo_last()
    return None if done is None else done.card


def answer_next(session: StudySession, rating: Rating, deck_id: str | None = None) -> StudyCard:
    card = session.next_card(deck_id)
    assert card is not None
    session.answer(card, rating, duration_ms=1000)
    return card


def drain(session: StudySession, rating: Rating = Rating.Easy) -> list[str]:
    """Answer everything available now; the card ids in the order they came."""
    seen = []
    while (card := session.next_card()) is not None:
        session.answer(card, rating, duration_ms=1)
        seen.append(card.card.id)
    return seen


def log_rows(settings: Settings) -> list[tuple[str, int]]:
    conn = sqlite3.connect(settings.database_path)
    try:
        return conn.execute("SELECT card_id, rating FROM review_log ORDER BY id").fetchall()
    finally:
        conn.close()


# -- queue ---------------------------------------------------------------------------------


def test_new_cards_come_in_deck_order_and_decks_by_name(
    make_session: Factory, small_library: Library
) -> None:
    session = make_session(small_library)
    counts = session.deck_counts()
    assert counts == [
        DeckCounts("alpha", "Demo::Alpha", new=3, learning=0, due=0, total=3, suspended=0),
        DeckCounts("beta", "Demo::Beta", new=1, learning=0, due=0, total=2, suspended=0),
    ]
    # Easy sends each card to review, so only new cards are shown; beta allows one a day.
    assert drain(session) == ["sequential", "decay", "parallel", "gradient"]
    assert session.remaining() == (0, 0, 0)


def test_learning_then_reviews_then_new(make_session: Factory, fixed_clock: FakeClock) -> None:
    library = make_library([make_deck("d", 6)])
    session = make_session(library)
    answer_next(session, Rating.Easy)  # d-1 -> review, due in 8 days
    answer_next(session, Rating.Easy)  # d-2 -> review, due in 8 days
    fixed_clock.advance(timedelta(days=8))
    answer_next(session, Rating.Again)  # d-1 lapses -> relearning, due in 10 minutes
    fixed_clock.advance(timedelta(minutes=1))
    answer_next(session, Rating.Good)  # d-2 review -> due much later
    card = session.next_card()
    assert card is not None and card.card.id == "d-3"  # relearning not due yet: new card
    session.answer(card, Rating.Good, duration_ms=5)  # d-3 learning, due in 10 minutes
    fixed_clock.advance(timedelta(minutes=10))
    # d-1 (relearning, due first) then d-3 (learning) come before the next new card.
    order = [answer_next(session, Rating.Good).card.id for _ in range(3)]
    assert order == ["d-1", "d-3", "d-4"]


def test_reviews_due_today_in_due_order(make_session: Factory, fixed_clock: FakeClock) -> None:
    library = make_library([make_deck("d", 3)])
    session = make_session(library)
    for minutes in (0, 1, 2):
        fixed_clock.set(datetime(2026, 3, 2, 9, minutes, tzinfo=UTC))
        answer_next(session, Rating.Easy)
    # Due 8 days later at 09:00, 09:01, 09:02 UTC: all due "today" from the day's start.
    fixed_clock.set(datetime(2026, 3, 10, 5, 0, tzinfo=UTC))
    assert session.remaining() == (0, 0, 3)
    assert [answer_next(session, Rating.Good).card.id for _ in range(3)] == ["d-1", "d-2", "d-3"]
    # The day before they were not due.
    fixed_clock.set(datetime(2026, 3, 10, 3, 59, tzinfo=UTC))
    assert session.remaining() == (0, 0, 0)


def test_learn_ahead_when_nothing_else_is_left(
    make_session: Factory, fixed_clock: FakeClock
) -> None:
    session = make_session(make_library([make_deck("d", 1)]))
    card = answer_next(session, Rating.Good)  # learning, due in 10 minutes
    assert session.remaining() == (0, 1, 0)
    again = session.next_card()  # within the 20-minute learn-ahead window
    assert again is not None and again.key == card.key and again.state == "learning"
    assert session.next_due() == fixed_clock.now + timedelta(minutes=10)


def test_next_card_none_and_next_due(make_session: Factory, fixed_clock: FakeClock) -> None:
    session = make_session(make_library([make_deck("d", 1)]))
    assert session.next_due() is None
    answer_next(session, Rating.Easy)
    assert session.next_card() is None
    assert session.next_due() == fixed_clock.now + timedelta(days=8)
    assert session.next_due("d") == fixed_clock.now + timedelta(days=8)
    with pytest.raises(NotLoadedError, match="no-such-deck") as caught:
        session.next_card("no-such-deck")
    assert isinstance(caught.value, StudykitError)
    assert str(caught.value) == "no deck with id `no-such-deck` is loaded (loaded: d)"


def test_intervals_preview_without_changes(make_session: Factory, small_library: Library) -> None:
    session = make_session(small_library)
    card = session.next_card()
    assert card is not None
    assert session.intervals(card) == {
        Rating.Again: timedelta(minutes=1),
        Rating.Hard: timedelta(minutes=5, seconds=30),
        Rating.Good: timedelta(minutes=10),
        Rating.Easy: timedelta(days=8),
    }
    assert session.next_card() == card
    assert log_rows(session.settings) == []


def test_deck_desired_retention_overrides(make_session: Factory) -> None:
    session = make_session(make_library([make_deck("d", 1, desired_retention=0.95)]))
    card = session.next_card()
    assert card is not None
    assert session.intervals(card)[Rating.Easy] == timedelta(days=3)


# -- persistence and undo ------------------------------------------------------------------


def test_answer_is_committed_before_it_returns(
    make_session: Factory, small_library: Library, tmp_settings: Settings
) -> None:
    session = make_session(small_library)
    for rating in (Rating.Good, Rating.Again, Rating.Easy):
        card = answer_next(session, rating)
        # A second connection right after answer() returns sees the new row.
        assert log_rows(tmp_settings)[-1] == (card.card.id, int(rating))


def test_answer_logs_duration_and_variant_seed(
    make_session: Factory, small_library: Library
) -> None:
    session = make_session(small_library)
    card = session.next_card()
    assert card is not None
    session.answer(card, Rating.Hard, duration_ms=4321, variant_seed=99)
    last = session.store.last_answer()
    assert last is not None
    assert (last.key, last.rating, last.duration_ms, last.variant_seed) == (
        card.key,
        Rating.Hard,
        4321,
        99,
    )
    assert last.before.is_new and last.after.state is not None


CHILD = """
import os, sys
from datetime import UTC, datetime
from pathlib import Path
from studykit.core.config import Settings
from studykit.study.session import Rating, StudySession

root, data = Path(sys.argv[1]), Path(sys.argv[2])
session = StudySession.open(
    Settings(root=root, data_dir=data), clock=lambda: datetime(2026, 3, 2, 9, tzinfo=UTC)
)
card = session.next_card()
session.answer(card, Rating.Easy, duration_ms=5)
os._exit(0)  # die at once: no close, no checkpoint, no cleanup
"""


def test_answer_survives_the_process_dying(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "decks").mkdir(parents=True)
    (root / "decks" / "deck.yaml").write_text(DECK_YAML, encoding="utf-8")
    data = tmp_path / "data"
    subprocess.run([sys.executable, "-c", CHILD, str(root), str(data)], check=True, timeout=60)
    settings = Settings(root=root, data_dir=data)
    assert log_rows(settings) == [("first", int(Rating.Easy))]
    with StudySession.open(settings) as session:
        assert session.study_card("yaml-deck", "first").state == "review"


def test_session_built_in_a_worker_thread_works_in_another(
    make_session: Factory, small_library: Library
) -> None:
    with ThreadPoolExecutor(max_workers=1) as pool:
        session = pool.submit(make_session, small_library).result()
        card = answer_next(session, Rating.Good)
        assert pool.submit(undo, session).result() == card
    assert session.remaining("alpha") == (3, 0, 0)


def test_state_persists_across_reopen(
    make_session: Factory, small_library: Library, fixed_clock: FakeClock
) -> None:
    first = make_session(small_library)
    card = answer_next(first, Rating.Good)
    answer_next(first, Rating.Easy)
    counts = first.deck_counts()
    preview = first.intervals(first.study_card("alpha", card.card.id))
    first.close()
    second = make_session(small_library)
    assert second.deck_counts() == counts
    again = second.study_card("alpha", card.card.id)
    assert again.state == "learning"
    assert second.intervals(again) == preview
    fixed_clock.advance(timedelta(minutes=10))
    assert second.next_card() == again


def test_undo_restores_previous_state_and_log(
    make_session: Factory, small_library: Library, tmp_settings: Settings
) -> None:
    session = make_session(small_library)
    assert undo(session) is None
    card = answer_next(session, Rating.Good)  # learning, due in 10 minutes
    second = answer_next(session, Rating.Easy)
    assert session.study_card("alpha", "decay").state == "review"
    undone = undo(session)
    assert undone == second  # the new card "decay" as it was
    assert session.next_card() == second  # the learning card is not due yet
    assert undo(session) == card
    assert session.study_card("alpha", card.card.id).state == "new"
    assert log_rows(tmp_settings) == []
    assert undo(session) is None
    assert session.remaining("alpha") == (3, 0, 0)


def test_undo_is_persisted_across_reopen(
    make_session: Factory, small_library: Library, tmp_settings: Settings
) -> None:
    first = make_session(small_library)
    kept = answer_next(first, Rating.Easy)
    answer_next(first, Rating.Easy)
    first.close()
    # The last answer is still undoable after a restart, and the undo sticks.
    second = make_session(small_library)
    undone = undo(second)
    assert undone is not None and undone.card.id == "decay"
    second.close()
    third = make_session(small_library)
    assert log_rows(tmp_settings) == [(kept.card.id, int(Rating.Easy))]
    assert third.study_card("alpha", "decay").state == "new"
    assert third.study_card("alpha", kept.card.id).state == "review"
    assert third.remaining("alpha") == (2, 0, 0)


def test_undo_gives_back_the_daily_new_allowance(make_session: Factory) -> None:
    session = make_session(make_library([make_deck("d", 5, new_per_day=1)]))
    answer_next(session, Rating.Easy)
    assert session.next_card() is None
    assert undo(session) is not None
    card = session.next_card()
    assert card is not None and card.card.id == "d-1"


# -- limits and days -----------------------------------------------------------------------


def test_new_per_day_limit(make_session: Factory, fixed_clock: FakeClock) -> None:
    session = make_session(make_library([make_deck("d", 30)]))
    assert session.deck_counts()[0].new == 20
    assert len(drain(session)) == 20
    assert session.remaining() == (0, 0, 0)
    fixed_clock.advance(timedelta(days=1))  # 2026-03-03T09:00Z, a new study day
    assert session.remaining() == (10, 0, 0)
    assert drain(session) == [f"d-{i}" for i in range(21, 31)]


def test_new_limit_counts_per_deck_with_override(make_session: Factory) -> None:
    session = make_session(
        make_library([make_deck("a", 4), make_deck("b", 4, new_per_day=2)]),
    )
    assert [(c.deck_id, c.new) for c in session.deck_counts()] == [("a", 4), ("b", 2)]
    assert drain(session) == ["a-1", "a-2", "a-3", "a-4", "b-1", "b-2"]


def test_reviews_per_day_limit(
    make_session: Factory, tmp_settings: Settings, fixed_clock: FakeClock
) -> None:
    # New cards apart from the review limit (Anki's option), so all five come on day one.
    settings = replace(tmp_settings, reviews_per_day=3, new_cards_ignore_review_limit=True)
    session = make_session(make_library([make_deck("d", 5)]), settings=settings)
    drain(session)  # 5 new cards -> review, due in 8 days
    fixed_clock.advance(timedelta(days=8))
    assert session.remaining() == (0, 0, 3)
    reviewed = drain(session, Rating.Good)
    assert reviewed == ["d-1", "d-2", "d-3"]
    assert session.remaining() == (0, 0, 0)
    assert session.next_due() is not None  # later reviews exist; today's are held back
    fixed_clock.advance(timedelta(days=1))
    assert drain(session, Rating.Good) == ["d-4", "d-5"]


def test_daily_counts_survive_reopen(
    make_session: Factory, tmp_settings: Settings, fixed_clock: FakeClock
) -> None:
    settings = replace(tmp_settings, reviews_per_day=2, new_per_day=1)
    library = make_library([make_deck("d", 3)])
    first = make_session(library, settings=settings)
    answer_next(first, Rating.Easy)
    first.close()
    # The count of today's new cards comes from the log, not from memory.
    second = make_session(library, settings=settings)
    assert second.remaining() == (0, 0, 0)


def test_rollover_at_4am_local(
    make_session: Factory, tmp_settings: Settings, fixed_clock: FakeClock
) -> None:
    settings = replace(tmp_settings, new_per_day=1)
    session = make_session(make_library([make_deck("d", 3)]), settings=settings, tz=KOLKATA)
    fixed_clock.set(datetime(2026, 3, 2, 3, 59, tzinfo=KOLKATA))
    assert session.study_day(fixed_clock.now) == date(2026, 3, 1)
    answer_next(session, Rating.Easy)
    fixed_clock.set(datetime(2026, 3, 2, 3, 59, 30, tzinfo=KOLKATA))
    assert session.next_card() is None  # 03:59:30: still the day of the 03:59 answer
    fixed_clock.set(datetime(2026, 3, 2, 4, 1, tzinfo=KOLKATA))
    assert session.study_day(fixed_clock.now) == date(2026, 3, 2)
    answer_next(session, Rating.Easy)  # a new day, a new allowance
    assert session.next_card() is None
    stats = session.stats()
    assert stats.heatmap[date(2026, 3, 1)] == 1
    assert stats.heatmap[date(2026, 3, 2)] == 1
    assert stats.reviews_today == 1


def test_day_bounds_follow_the_timezone_and_dst(
    make_session: Factory, small_library: Library
) -> None:
    session = make_session(small_library, tz=NEW_YORK)
    # 2026-03-08: clocks go forward at 2 a.m.; that study day is 23 hours long.
    start, end = session.day_bounds(datetime(2026, 3, 8, 5, 0, tzinfo=UTC))  # 00:00 EST
    assert start == datetime(2026, 3, 7, 9, 0, tzinfo=UTC)  # 04:00 EST
    assert end == datetime(2026, 3, 8, 8, 0, tzinfo=UTC)  # 04:00 EDT
    assert session.day_bounds(end) == (end, datetime(2026, 3, 9, 8, 0, tzinfo=UTC))
    assert session.study_day(end - timedelta(microseconds=1)) == date(2026, 3, 7)


@pytest.fixture
def machine_in_kolkata(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Pretend the machine's local zone is Asia/Kolkata."""
    if not hasattr(time, "tzset"):
        pytest.skip("time.tzset is not available on this platform")
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("machine_in_kolkata")
def test_machine_local_zone_by_default(make_session: Factory, small_library: Library) -> None:
    session = make_session(small_library, tz=None)
    assert session.study_day(datetime(2026, 3, 1, 22, 29, tzinfo=UTC)) == date(2026, 3, 1)
    assert session.study_day(datetime(2026, 3, 1, 22, 31, tzinfo=UTC)) == date(2026, 3, 2)
    start, end = session.day_bounds(datetime(2026, 3, 2, 12, 0, tzinfo=UTC))
    assert (start, end) == (
        datetime(2026, 3, 1, 22, 30, tzinfo=UTC),
        datetime(2026, 3, 2, 22, 30, tzinfo=UTC),
    )


# -- bury, suspend, leeches ----------------------------------------------------------------


def test_bury_returns_next_day(make_session: Factory, fixed_clock: FakeClock) -> None:
    session = make_session(make_library([make_deck("d", 2)]))
    card = session.next_card()
    assert card is not None
    session.bury(card)
    assert session.remaining() == (1, 0, 0)
    nxt = session.next_card()
    assert nxt is not None and nxt.card.id == "d-2"
    session.bury(nxt)
    assert session.next_card() is None
    assert session.remaining() == (0, 0, 0)
    fixed_clock.set(datetime(2026, 3, 3, 3, 59, tzinfo=UTC))
    assert session.next_card() is None
    fixed_clock.set(datetime(2026, 3, 3, 4, 0, tzinfo=UTC))
    assert session.remaining() == (2, 0, 0)
    again = session.next_card()
    assert again is not None and again.card.id == "d-1"


def test_bury_of_a_learning_card_moves_its_due(
    make_session: Factory, fixed_clock: FakeClock
) -> None:
    session = make_session(make_library([make_deck("d", 1)]))
    card = answer_next(session, Rating.Good)
    session.bury(session.study_card("d", card.card.id))
    assert session.next_card() is None
    assert session.remaining() == (0, 0, 0)
    assert session.next_due() == datetime(2026, 3, 3, 4, 0, tzinfo=UTC)
    assert session.stats().forecast[:2] == (0, 1)


def test_bury_survives_reopen(make_session: Factory, small_library: Library) -> None:
    first = make_session(small_library)
    card = first.next_card()
    assert card is not None
    first.bury(card)
    first.close()
    second = make_session(small_library)
    nxt = second.next_card()
    assert nxt is not None and nxt.card.id != card.card.id


def test_suspend_and_unsuspend(make_session: Factory, small_library: Library) -> None:
    session = make_session(small_library)
    card = session.next_card()
    assert card is not None
    session.suspend(card)
    assert session.study_card("alpha", card.card.id).suspended
    assert session.deck_counts()[0].suspended == 1
    assert session.remaining("alpha") == (2, 0, 0)
    assert drain(session) == ["decay", "parallel", "gradient"]
    session.close()
    reopened = make_session(small_library)
    assert reopened.study_card("alpha", card.card.id).suspended
    reopened.unsuspend(reopened.study_card("alpha", card.card.id))
    assert reopened.next_card() == replace(card, suspended=False)
    assert reopened.stats().suspended == 0


def lapse_until_leech(
    session: StudySession, clock: FakeClock, lapses: int
) -> tuple[StudyCard, StudyCard]:
    """Drive card d-1 through `lapses` lapses; the card before and after the last answer."""
    card = answer_next(session, Rating.Easy)  # new -> review
    before = card
    for lapse in range(1, lapses + 1):
        due = session.next_due()
        assert due is not None
        clock.set(due)
        before = session.next_card()  # type: ignore[assignment]
        assert before is not None and before.key == card.key and before.state == "review"
        session.answer(before, Rating.Again, duration_ms=1)
        assert session.study_card("d", "d-1").lapses == lapse
        if lapse < lapses:
            clock.advance(timedelta(minutes=10))
            relearning = session.next_card()
            assert relearning is not None and relearning.state == "relearning"
            session.answer(relearning, Rating.Good, duration_ms=1)
    return before, session.study_card("d", "d-1")


def test_leech_after_eight_lapses_and_undo(
    make_session: Factory, fixed_clock: FakeClock, tmp_settings: Settings
) -> None:
    session = make_session(make_library([make_deck("d", 1)]))
    assert tmp_settings.leech_lapses == 8
    before, leech = lapse_until_leech(session, fixed_clock, 8)
    assert (before.lapses, before.leech, before.suspended) == (7, False, False)
    assert (leech.lapses, leech.leech, leech.suspended) == (8, True, True)
    assert session.next_card() is None
    assert session.next_due() is None
    counts = session.deck_counts()[0]
    assert counts.suspended == 1
    stats = session.stats()
    assert (stats.leeches, stats.suspended) == (1, 1)

    undone = undo(session)
    assert undone == before
    assert session.next_card() == before
    assert session.stats().leeches == 0


def test_undo_takes_back_the_suspension_then_the_answer(make_session: Factory) -> None:
    session = make_session(make_library([make_deck("d", 2)]))
    card = answer_next(session, Rating.Good)
    session.suspend(session.study_card("d", card.card.id))
    first = session.undo_last()
    assert first is not None and first.action == "suspend" and first.card is not None
    assert first.card.state == "learning" and not first.card.suspended
    second = session.undo_last()
    assert second is not None and second.action == "rate" and second.card is not None
    assert second.card.state == "new"


def test_undo_after_a_restart_keeps_a_suspension_made_after_the_answer(
    make_session: Factory,
) -> None:
    library = make_library([make_deck("d", 2)])
    first = make_session(library)
    card = answer_next(first, Rating.Good)
    first.suspend(first.study_card("d", card.card.id))
    first.close()
    session = make_session(library)  # the stack is gone; the logged answer is still undoable
    undone = undo(session)
    assert undone is not None and undone.state == "new" and undone.suspended
    assert session.next_card() == session.study_card("d", "d-2")


def test_unsuspended_leech_keeps_its_flag(
    make_session: Factory, fixed_clock: FakeClock, tmp_settings: Settings
) -> None:
    settings = replace(tmp_settings, leech_lapses=2)
    session = make_session(make_library([make_deck("d", 1)]), settings=settings)
    _, leech = lapse_until_leech(session, fixed_clock, 2)
    assert leech.leech and leech.suspended
    session.unsuspend(leech)
    card = session.study_card("d", "d-1")
    assert card.leech and not card.suspended
    # Anki's rule: flagged again every half threshold (here every lapse after the second).
    answer_next(session, Rating.Good)  # relearning -> review
    due = session.next_due()
    assert due is not None
    fixed_clock.set(due)
    answer_next(session, Rating.Again)
    assert session.study_card("d", "d-1").suspended


# -- content changes -----------------------------------------------------------------------


def test_removed_card_keeps_history_and_returns(
    make_session: Factory, tmp_settings: Settings
) -> None:
    full = make_library([make_deck("d", 3)])
    first = make_session(full)
    answer_next(first, Rating.Easy)
    answer_next(first, Rating.Good)
    first.close()

    deck = full.decks["d"]
    without = make_library([deck.model_copy(update={"cards": deck.cards[1:]})])
    second = make_session(without)
    assert second.remaining() == (1, 1, 0)
    assert second.stats().total_cards == 2
    with pytest.raises(NotLoadedError, match="deck `d` has no card `d-1`"):
        second.study_card("d", "d-1")
    second.close()

    third = make_session(full)
    back = third.study_card("d", "d-1")
    assert back.state == "review"
    assert [a.rating for a in third.store.history(card_key("d", "d-1"))] == [Rating.Easy]
    assert log_rows(tmp_settings) == [("d-1", 4), ("d-2", 3)]


def test_edited_card_text_keeps_history(make_session: Factory) -> None:
    deck = make_deck("d", 2)
    first = make_session(make_library([deck]))
    answer_next(first, Rating.Easy)
    first.close()
    edited_card = Card(id="d-1", front="A rewritten question?", back="A better answer.")
    edited = deck.model_copy(update={"cards": (edited_card, deck.cards[1])})
    second = make_session(make_library([edited]))
    card = second.study_card("d", "d-1")
    assert card.state == "review" and card.card.front == "A rewritten question?"


def test_undo_of_a_removed_cards_answer(make_session: Factory) -> None:
    full = make_library([make_deck("d", 2)])
    first = make_session(full)
    answer_next(first, Rating.Easy)
    first.close()
    deck = full.decks["d"]
    second = make_session(make_library([deck.model_copy(update={"cards": deck.cards[1:]})]))
    assert undo(second) is None  # undone, but the card is not loaded to show
    second.close()
    third = make_session(full)
    assert third.study_card("d", "d-1").state == "new"


# -- stats ---------------------------------------------------------------------------------


def test_stats(make_session: Factory, fixed_clock: FakeClock) -> None:
    session = make_session(make_library([make_deck("d", 4)]))
    empty = session.stats()
    assert empty.retention_30d is None
    assert (empty.total_cards, empty.new_cards, empty.reviews_today) == (4, 4, 0)
    assert empty.forecast == (0,) * 30
    assert len(empty.heatmap) == 365 and sum(empty.heatmap.values()) == 0
    assert max(empty.heatmap) == date(2026, 3, 2)

    for _ in range(3):
        answer_next(session, Rating.Easy)  # 3 cards due on 2026-03-10
    fixed_clock.advance(timedelta(days=8))
    answer_next(session, Rating.Again)  # review answer: a failure
    answer_next(session, Rating.Good)  # review answer: a pass
    answer_next(session, Rating.Good)  # review answer: a pass
    stats = session.stats()
    assert stats.retention_30d == pytest.approx(2 / 3)
    assert (stats.retention_passed, stats.retention_reviews) == (2, 3)  # new cards not counted
    assert stats.reviews_today == 3
    assert stats.heatmap[date(2026, 3, 2)] == 3
    assert stats.heatmap[date(2026, 3, 10)] == 3
    assert (stats.new_cards, stats.total_cards) == (1, 4)
    # Only the relearning card (due in 10 minutes) is due within 30 days.
    assert stats.forecast == (1,) + (0,) * 29
    for card_id in ("d-2", "d-3"):
        state = session.store.get_state(card_key("d", card_id))
        assert state is not None and state.due is not None
        assert state.due > fixed_clock.now + timedelta(days=30)
    fixed_clock.advance(timedelta(days=31))
    assert session.stats().retention_30d is None  # outside the window


def test_forecast_counts_overdue_as_today(make_session: Factory, fixed_clock: FakeClock) -> None:
    session = make_session(make_library([make_deck("d", 2)]))
    drain(session)  # both due 2026-03-10 09:00Z
    assert session.stats().forecast[8] == 2
    fixed_clock.advance(timedelta(days=20))
    assert session.stats().forecast[0] == 2


# -- opening -------------------------------------------------------------------------------


DECK_YAML = """\
id: yaml-deck
name: "YAML::Deck"
cards:
  - id: first
    front: First question?
    back: First answer.
  - id: second
    front: Second question?
    back: Second answer.
"""


def test_open_loads_yaml_and_database(tmp_path: Path, fixed_clock: FakeClock) -> None:
    root = tmp_path / "root"
    (root / "decks").mkdir(parents=True)
    (root / "content").mkdir()
    (root / "decks" / "deck.yaml").write_text(DECK_YAML, encoding="utf-8")
    settings = Settings(root=root, data_dir=tmp_path / "data" / "nested")
    with StudySession.open(settings, clock=fixed_clock, tz=UTC, enable_fuzzing=False) as session:
        assert session.library.problems == ()
        assert [c.deck_id for c in session.deck_counts()] == ["yaml-deck"]
        answer_next(session, Rating.Good)
    assert settings.database_path.exists()
    with StudySession.open(settings, clock=fixed_clock, tz=UTC) as session:
        assert session.study_card("yaml-deck", "first").state == "learning"


def test_clock_must_be_aware(make_session: Factory, small_library: Library) -> None:
    session = make_session(small_library, clock=lambda: datetime(2026, 3, 2, 9, 0))
    with pytest.raises(ValueError, match="naive"):
        session.next_card()


def test_clock_read_on_every_call(make_session: Factory, fixed_clock: FakeClock) -> None:
    session = make_session(make_library([make_deck("d", 1)]))
    answer_next(session, Rating.Again)  # due in one minute
    fixed_clock.advance(timedelta(minutes=30))
    card = session.next_card()
    assert card is not None and card.state == "learning"
    session.answer(card, Rating.Good, duration_ms=1)
    last = session.store.last_answer()
    assert last is not None and to_us(last.reviewed_at) == to_us(fixed_clock.now)

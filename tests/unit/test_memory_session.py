"""Stored parameters in the session: per deck and sub-deck, used at once; the Stats panel."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from fsrs.scheduler import DEFAULT_PARAMETERS

from studykit.content.loading import Library
from studykit.memory.advice import readiness
from studykit.memory.panel import memory_panel_lines
from studykit.srs.store import StoreError
from studykit.study.session import Rating, StudySession
from tests.conftest import FakeClock, make_deck, make_library

MakeSession = Callable[..., StudySession]
SLOW = [*DEFAULT_PARAMETERS[:2], 0.3, 1.0, *DEFAULT_PARAMETERS[4:]]  # Good, Easy first: 0.3, 1 day


def _study(session: StudySession, clock: FakeClock, days: int) -> None:
    """Answer everything due each day for `days` days (Good, or Again every fifth answer)."""
    count = 0
    for _ in range(days):
        while (card := session.next_card()) is not None:
            count += 1
            session.answer(card, Rating.Again if count % 5 == 0 else Rating.Good, duration_ms=900)
            clock.advance(timedelta(seconds=30))
        clock.advance(timedelta(days=1))


def _easy_interval(session: StudySession, deck_id: str, card_id: str) -> timedelta:
    return session.intervals(session.study_card(deck_id, card_id))[Rating.Easy]


def test_deck_parameters_reach_the_deck_and_its_sub_decks_only(make_session: MakeSession) -> None:
    library = make_library(
        [
            make_deck("parent", 1, name="Demo"),
            make_deck("child", 1, name="Demo::Child"),
            make_deck("other", 1, name="Other"),
        ]
    )
    session = make_session(library)
    before = {d: _easy_interval(session, d, f"{d}-1") for d in ("parent", "child", "other")}
    session.set_memory_model("parent", SLOW, reviews=700, cards=10)
    after = {d: _easy_interval(session, d, f"{d}-1") for d in ("parent", "child", "other")}
    assert after["parent"] != before["parent"] and after["child"] != before["child"]
    assert after["other"] == before["other"]
    with pytest.raises(ValueError):
        session.set_memory_model(None, [1.0] * 3, reviews=1, cards=1)


def test_reschedule_moves_due_dates_and_keeps_history(
    make_session: MakeSession, small_library: Library, fixed_clock: FakeClock
) -> None:
    session = make_session(small_library)
    _study(session, fixed_clock, 12)
    keys = [session.study_card("alpha", c.id).key for c in small_library.decks["alpha"].cards]
    history = {key: session.store.history(key) for key in keys}
    due = {key: session.store.get_state(key).due for key in keys}  # type: ignore[union-attr]
    session.set_memory_model(None, SLOW, reviews=700, cards=5)
    assert session.reschedule("alpha") == 3
    assert {key: session.store.history(key) for key in keys} == history
    moved = [k for k in keys if session.store.get_state(k).due != due[k]]  # type: ignore[union-attr]
    assert moved


def test_the_panel_gives_no_advice_below_the_threshold(
    make_session: MakeSession, small_library: Library, fixed_clock: FakeClock
) -> None:
    session = make_session(small_library)
    lines = memory_panel_lines(session)
    assert lines[0] == "Memory model: FSRS defaults"
    assert "need 640 reviews" in lines[1] and "you have 0 (640 more to go)" in lines[1]
    _study(session, fixed_clock, 20)
    # Even a stored model is not shown, nor a recommendation, before there are enough.
    session.set_memory_model(None, SLOW, reviews=777, cards=5, log_loss=0.4321, rmse=0.0567)
    lines = memory_panel_lines(session)
    have = readiness(session).have
    assert 0 < have < 640 and f"you have {have} ({640 - have} more to go)" in lines[1]
    assert not any("fitted on" in line or "◀ recommended" in line for line in lines)
    assert not any(line.startswith("Workload") for line in lines)
    assert any(line.lstrip().startswith("predicted") and "n=" in line for line in lines)


def test_past_the_threshold_the_fitted_model_and_the_recommendation_show(
    make_session: MakeSession, fixed_clock: FakeClock
) -> None:
    pytest.importorskip("numpy")
    pytest.importorskip("fsrs_rs_python")
    session = make_session(make_library([make_deck("many", 100, name="Many")]))
    _study(session, fixed_clock, 50)
    assert readiness(session).enough
    lines = memory_panel_lines(session)
    assert lines[0] == "Memory model: FSRS defaults" and "studykit optimize --apply" in lines[1]
    assert not any("◀ recommended" in line for line in lines)
    session.set_memory_model(None, SLOW, reviews=777, cards=100, log_loss=0.4321, rmse=0.0567)
    lines = memory_panel_lines(session)
    assert "fitted on 777 reviews" in lines[0] and "0.432" in lines[0] and "0.057" in lines[0]
    (heading,) = [line for line in lines if line.startswith("Workload over 180 days")]
    best = float(heading.split("recommended ")[1].split()[0])
    assert 0.70 <= best <= 0.95 and "(fsrs-rs)" in heading
    (marked,) = [line for line in lines if "◀ recommended" in line]
    assert marked.startswith(f"{best:.2f} ")


def test_store_batch_commits_once_and_keeps_each_write_atomic(tmp_path: Path) -> None:
    from studykit.srs.records import CardState
    from studykit.srs.store import Store

    path = tmp_path / "db.sqlite3"
    with Store.open(path) as store:
        with store.batch():
            store.put_state(CardState(1, "d", "a"))
            with pytest.raises(StoreError):
                bad = CardState(3, "d", "x", state=9)  # type: ignore[arg-type]  # CHECK fails
                store.put_states([CardState(2, "d", "b"), bad])
            store.put_state(CardState(4, "d", "c"))
        assert sorted(s.key for s in store.load_states()) == [1, 4]
        with pytest.raises(RuntimeError), store.batch():
            store.put_state(CardState(5, "d", "e"))
            raise RuntimeError("the day fails")
        assert sorted(s.key for s in store.load_states()) == [1, 4]
        store.put_state(CardState(6, "d", "f"))  # outside a batch: its own transaction again
    with Store.open(path) as again:
        assert sorted(s.key for s in again.load_states()) == [1, 4, 6]

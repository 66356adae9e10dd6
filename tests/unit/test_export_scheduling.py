"""Scheduling into Anki: review in studykit, export, import with scheduling into Anki's backend."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest
from anki.import_export_pb2 import ImportAnkiPackageUpdateCondition
from click.testing import CliRunner

from studykit.cli import cli
from studykit.content.loading import load_library
from studykit.core.config import Settings
from studykit.export import export_anki
from studykit.srs.records import Answer, CardState
from studykit.srs.studyday import day_bounds
from studykit.study.session import Rating, StudySession
from tests.anki_backend import database
from tests.conftest import FakeClock
from tests.unit.test_export_anki import DECK, write_root

if TYPE_CHECKING:  # anki.cards imported before anki.collection is a circular import in anki
    from anki.cards import CardId

IF_NEWER = ImportAnkiPackageUpdateCondition.IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER
RETENTION_DECK = DECK.replace("tags: [demo]\n", "tags: [demo]\ndesired_retention: 0.85\n")


def import_with_scheduling(col: Collection, path: Path, *, scheduling: bool = True) -> float:
    """Import `path` as Anki's "import with scheduling and presets" does; seconds it took."""
    options = ImportAnkiPackageOptions(
        update_notes=IF_NEWER,
        update_notetypes=IF_NEWER,
        with_scheduling=scheduling,
        with_deck_configs=True,
    )
    start = time.perf_counter()
    col.import_anki_package(ImportAnkiPackageRequest(package_path=str(path), options=options))
    return time.perf_counter() - start


@pytest.fixture
def studied(
    tmp_path: Path, make_session: Callable[..., StudySession]
) -> tuple[StudySession, FakeClock]:
    """Twelve days of studykit reviews ending now (real time): Again, a suspend, a bury."""
    library = load_library(write_root(tmp_path / "root", RETENTION_DECK))
    settings = Settings(
        root=library.root, data_dir=tmp_path / "data", new_per_day=7, enable_fuzzing=False
    )
    # The last answers are "minutes ago" and "today": never before this study day began
    # (in the first minutes after the rollover hour they would be yesterday's).
    now = max(datetime.now(UTC), _day_start(settings) + timedelta(minutes=3))
    clock = FakeClock(now - timedelta(days=12))
    # The machine's own zone, as Anki's backend reads it: both must start a day at one instant.
    session = make_session(library, settings=settings, clock=clock, tz=None)

    def rate(card_id: str, *ratings: Rating, wait: timedelta = timedelta(minutes=11)) -> None:
        card = session.study_card("demo", card_id)
        for rating in ratings:
            session.answer(card, rating, duration_ms=4200 + int(rating) * 100)
            clock.advance(wait)

    rate("basic-one", Rating.Good, Rating.Good)  # graduates to review
    rate("recurrence", Rating.Good, Rating.Good)
    rate("context", Rating.Easy)
    clock.advance(timedelta(days=3))
    rate("basic-one", Rating.Good)
    clock.advance(timedelta(days=6))
    rate("basic-one", Rating.Again, Rating.Good)  # a lapse, relearned
    session.suspend(session.study_card("demo", "recurrence"))
    clock.set(now - timedelta(minutes=2))
    rate("term", Rating.Good, wait=timedelta(minutes=1))  # learning, due in minutes
    session.bury(session.study_card("demo", "context"))
    clock.set(now)  # the export's now: on the study day Anki's import (real time) is on
    return session, clock


def _day_start(settings: Settings) -> datetime:
    """When the machine's study day began (its own zone, as Anki's backend reads it)."""
    return day_bounds(datetime.now(UTC), hour=settings.rollover_hour, tz=None)[0]


def _card_for(col: Collection, front: str) -> CardId:
    """The Anki card holding the schedule of the studykit card whose front starts so."""
    cards = [col.get_card(cid) for cid in col.find_cards(f'"{front}*"')]
    assert cards, front
    return min(cards, key=lambda c: (c.nid, c.ord)).id


def test_reviews_states_and_presets_arrive_in_anki(
    studied: tuple[StudySession, FakeClock], tmp_path: Path, collection: Collection
) -> None:
    session, _ = studied
    states, answers = session.scheduling_records(["demo"])
    assert len(answers) == 9
    cutoff = collection.sched.day_cutoff
    started = time.perf_counter()
    result = export_anki(session.library, tmp_path / "s.apkg", deck_ids=["demo"], session=session)
    export_s = time.perf_counter() - started
    assert result.scheduled and result.revlog == len(answers)
    import_s = import_with_scheduling(collection, result.path)
    print(f"\nexport {export_s * 1000:.0f} ms, import {import_s * 1000:.0f} ms")

    by_id = {s.card_id: s for s in states}
    fronts = {"basic-one": "Is", "recurrence": "Recurrence", "context": "γ", "term": "Term"}
    cids = {card_id: _card_for(collection, front) for card_id, front in fronts.items()}

    # Every answer is one revlog row on its card: time, rating, taken, type, intervals.
    rows = database(collection).all(
        "SELECT id, cid, ease, ivl, lastIvl, time, type FROM revlog ORDER BY id"
    )
    assert len(rows) == len(answers)
    for answer, row in zip(answers, rows, strict=True):
        assert row[0] == int(answer.reviewed_at.timestamp() * 1000)
        assert row[1] == cids[answer.card_id]
        assert (row[2], row[5]) == (int(answer.rating), answer.duration_ms)
        assert row[6] == _revlog_type(answer)
        assert (row[3] > 0) == (answer.after.state == 2)  # days in review, -seconds learning

    today = collection.sched.today
    real_today = session.study_day(datetime.now(UTC))
    for card_id, cid in cids.items():
        card, state = collection.get_card(cid), by_id[card_id]
        assert (card.reps, card.lapses) == (state.reps, state.lapses), card_id
        assert card.memory_state is not None, card_id
        assert card.memory_state.stability == pytest.approx(state.stability, rel=1e-3)
        assert card.memory_state.difficulty == pytest.approx(state.difficulty, rel=1e-3)
        assert state.due is not None
        if state.state == 2:  # review: due on the same day, counted from each side's today
            assert card.type == 2
            ours = (session.study_day(state.due) - real_today).days
            assert abs((card.due - today) - ours) <= 1, card_id

    basic = collection.get_card(cids["basic-one"])
    assert (basic.type, basic.queue, basic.lapses) == (2, 2, 1)
    term, term_due = collection.get_card(cids["term"]), by_id["term"].due
    assert term_due is not None
    if collection.sched.day_cutoff != cutoff:
        pytest.skip("Anki's study day rolled over between the export and this check")
    if term_due.timestamp() < cutoff:  # a learning step due today
        assert (term.type, term.queue) == (1, 1)
        assert abs(term.due - term_due.timestamp()) <= 1
    else:  # the step falls after Anki's next day starts (near 4 am): Anki counts it by day
        assert (term.type, term.queue) == (1, 3)
        assert term.due == today + 1
    assert collection.get_card(cids["recurrence"]).queue == -1  # suspended
    recurrence = sorted(
        (collection.get_card(c) for c in collection.find_cards('"Recurrence*"')),
        key=lambda c: c.ord,
    )
    # Its c1 was suspended; c2 is a schedule of its own, never answered, so new.
    assert [(c.ord, c.queue, c.reps) for c in recurrence] == [(0, -1, 2), (1, 0, 0)]
    terms = sorted(
        (collection.get_card(c) for c in collection.find_cards("Term")), key=lambda c: c.ord
    )
    assert terms[1].queue == -2  # its front was answered today: buried as a sibling
    assert collection.get_card(cids["context"]).queue == -3  # buried until tomorrow
    lone_deck_new = collection.find_cards("is:new")
    assert len(lone_deck_new) >= 1  # siblings and never-answered cards stay new

    did = collection.get_card(cids["basic-one"]).did
    preset = collection.decks.config_dict_for_deck_id(did)
    assert preset["name"] == "Top::Middle::Demo deck"
    assert preset["desiredRetention"] == pytest.approx(0.85)
    assert preset["new"]["perDay"] == 7
    assert preset["new"]["delays"] == [1.0, 10.0]
    assert preset["fsrsParams6"] == list(session.fsrs_parameters("demo"))


def _revlog_type(answer: Answer) -> int:
    """Anki's revlog type for an answer: 0 learn (new or learning), 1 review, 2 relearn."""
    return {None: 0, 1: 0, 2: 1, 3: 2}[
        None if answer.before.state is None else int(answer.before.state)
    ]


def test_no_scheduling_exports_new_cards_but_keeps_the_presets(
    studied: tuple[StudySession, FakeClock], tmp_path: Path, collection: Collection
) -> None:
    session, _ = studied
    result = export_anki(
        session.library,
        tmp_path / "share.apkg",
        deck_ids=["demo"],
        session=session,
        scheduling=False,
    )
    assert not result.scheduled and result.revlog == 0
    import_with_scheduling(collection, result.path)
    assert database(collection).scalar("SELECT count() FROM revlog") == 0
    queues = database(collection).list("SELECT DISTINCT queue FROM cards")
    assert queues == [0]
    did = collection.get_card(collection.find_cards("Term")[0]).did
    assert collection.decks.config_dict_for_deck_id(did)["desiredRetention"] == pytest.approx(0.85)


def test_a_card_without_a_review_can_still_be_suspended(
    studied: tuple[StudySession, FakeClock], tmp_path: Path, collection: Collection
) -> None:
    session, _ = studied
    lone = session.study_card("other", "lone")
    session.suspend(lone)
    result = export_anki(session.library, tmp_path / "o.apkg", deck_ids=["other"], session=session)
    import_with_scheduling(collection, result.path)
    card = collection.get_card(collection.find_cards("Lone")[0])
    assert (card.type, card.queue) == (0, -1)


def test_states_read_back_are_the_stored_ones(studied: tuple[StudySession, FakeClock]) -> None:
    session, _ = studied
    states, answers = session.scheduling_records(["demo"])
    assert {s.card_id for s in states} == {"basic-one", "recurrence", "context", "term"}
    assert [a.reviewed_at for a in answers] == sorted(a.reviewed_at for a in answers)
    assert session.scheduling_records(["other"]) == ([], [])
    assert isinstance(states[0], CardState) and replace(states[0]) == states[0]


def test_cli_exports_history_unless_told_not_to(
    studied: tuple[StudySession, FakeClock], tmp_path: Path, collection: Collection
) -> None:
    session, _ = studied
    _, answers = session.scheduling_records(["demo"])
    root, data = session.settings.root, session.settings.data_dir
    args = ["--root", str(root), "--data-dir", str(data), "export", "anki", "--deck", "demo"]
    runner = CliRunner()
    shared = runner.invoke(cli, [*args, "-o", str(tmp_path / "n.apkg"), "--no-scheduling"])
    assert shared.exit_code == 0, shared.output
    assert "Without scheduling: every card arrives new." in shared.output
    mine = runner.invoke(cli, [*args, "-o", str(tmp_path / "y.apkg")])
    assert mine.exit_code == 0, mine.output
    assert f"With scheduling: {len(answers)} reviews" in mine.output

    import_with_scheduling(collection, tmp_path / "n.apkg")
    assert database(collection).scalar("SELECT count() FROM revlog") == 0
    import_with_scheduling(collection, tmp_path / "y.apkg")
    # Anki's importer keeps the schedule of cards it already has (even with the same card
    # ids): progress only arrives with cards new to the collection, as here in a fresh one.
    assert database(collection).scalar("SELECT count() FROM revlog") == 0
    (tmp_path / "anki2").mkdir()
    fresh = Collection(str(tmp_path / "anki2" / "c.anki2"))
    try:
        import_with_scheduling(fresh, tmp_path / "y.apkg")
        assert database(fresh).scalar("SELECT count() FROM revlog") == len(answers)
        assert database(fresh).scalar("SELECT count() FROM cards WHERE queue = -1") >= 1
    finally:
        fresh.close()


def test_cli_without_a_study_database_exports_new_cards(tmp_path: Path) -> None:
    root = write_root(tmp_path / "root", RETENTION_DECK)
    args = ["--root", str(root), "--data-dir", str(tmp_path / "data"), "export", "anki"]
    result = CliRunner().invoke(cli, [*args, "-o", str(tmp_path / "x.apkg")])
    assert result.exit_code == 0, result.output
    assert "Without scheduling" in result.output
    assert not (tmp_path / "data" / "studykit.sqlite3").exists()


def test_a_leech_arrives_suspended_and_tagged_leech(
    tmp_path: Path, make_session: Callable[..., StudySession], collection: Collection
) -> None:
    library = load_library(write_root(tmp_path / "root"))
    settings = Settings(
        root=library.root, data_dir=tmp_path / "data", leech_lapses=1, enable_fuzzing=False
    )
    clock = FakeClock(datetime.now(UTC) - timedelta(days=5))
    # The machine's own zone, as Anki's backend reads it: both must start a day at one instant.
    session = make_session(library, settings=settings, clock=clock, tz=None)
    card = session.study_card("other", "lone")
    for rating in (Rating.Good, Rating.Good):
        session.answer(card, rating, duration_ms=3000)
        clock.advance(timedelta(minutes=11))
    clock.advance(timedelta(days=4))
    session.answer(card, Rating.Again, duration_ms=3000)
    assert session.study_card("other", "lone").leech
    result = export_anki(library, tmp_path / "l.apkg", deck_ids=["other"], session=session)
    import_with_scheduling(collection, result.path)
    anki_card = collection.get_card(collection.find_cards("Lone")[0])
    assert anki_card.queue == -1 and anki_card.lapses == 1
    assert anki_card.note().has_tag("leech")
    assert database(collection).scalar("SELECT count() FROM revlog") == 3

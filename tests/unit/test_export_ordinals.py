"""One studykit schedule is one Anki card: after importing an export into Anki's own backend,
every deck counts what `studykit decks` counts on the same day, and cards map one to one."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from anki.collection import Collection

from studykit.content.loading import Library, load_library
from studykit.content.model import COMPUTED_KINDS
from studykit.core.config import Settings, bundled_root
from studykit.export import export_anki
from studykit.export.anki import note_guid
from studykit.study.session import Rating, StudySession
from studykit.study.today import LEARN_AHEAD
from tests.anki_backend import database
from tests.conftest import FakeClock
from tests.unit.test_export_scheduling import import_with_scheduling

Factory = Callable[..., StudySession]
Schedule = tuple[str, str, int]

PARENT = r"""id: words
name: "Lang::Words"
cards:
  - id: cat
    kind: reversed
    front: cat
    back: billi
  - id: dog
    kind: reversed
    front: dog
    back: kutta
  - id: sun
    kind: reversed
    front: sun
    back: suraj
  - id: colours
    kind: cloze
    front: "{{c1::laal}} is red, {{c2::hara}} is green, {{c3::neela}} is blue"
  - id: gaps
    kind: cloze
    front: "Only {{c2::two}} and {{c4::four}} here"
  - id: water
    front: water?
    back: paani
  - id: fire
    front: fire?
    back: aag
"""
CHILD = r"""id: numbers
name: "Lang::Words::Numbers"
bury_new_siblings: false
cards:
  - id: pair
    kind: reversed
    front: two
    back: do
  - id: count
    kind: numeric
    front: "{n} + 1?"
    params: {n: {choices: [1, 2, 3]}}
    answer: "n + 1"
    tolerance: {abs: 0.5}
  - id: three
    front: three?
    back: teen
"""


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "decks").mkdir(parents=True)
    (root / "decks" / "words.yaml").write_text(PARENT, encoding="utf-8")
    (root / "decks" / "numbers.yaml").write_text(CHILD, encoding="utf-8")
    return root


def _near_rollover(session: StudySession) -> bool:
    """The day changes within a minute (the two sides would count different days)."""
    now = datetime.now(UTC)
    return session.study_day(now) != session.study_day(now + timedelta(minutes=1))


# Anki keeps the day's new and review counts per deck, and an import starts them at zero: after
# an import Anki allows a whole day's new cards even where studykit introduced some today. So
# where cards are answered today the limits are set high enough not to matter, and the limits
# themselves are compared on a day with no answers yet.
ROOMY: dict[str, Any] = {"new_per_day": 999, "reviews_per_day": 9999}


def _studied(
    library: Library,
    tmp_path: Path,
    factory: Factory,
    *,
    today: bool = True,
) -> StudySession:
    """Days of answers ending now (real time: Anki counts by the real clock)."""
    settings = Settings(
        root=library.root, data_dir=tmp_path / "data", enable_fuzzing=False, **ROOMY
    )
    now = datetime.now(UTC)
    clock = FakeClock(now - timedelta(days=9))
    session = factory(library, settings=settings, clock=clock, tz=None)
    start, _ = session.day_bounds(now)  # today's study day: none of the history in it
    for day in range(9):
        clock.set(start - timedelta(days=9 - day) + timedelta(hours=1))
        for _ in range(6):
            card = session.next_card()
            if card is None:
                break
            # Mostly Good; some Again (relearning), some Easy (reviews far out).
            rating = (Rating.Good, Rating.Again, Rating.Easy)[(day + card.ordinal) % 3]
            session.answer(card, rating, duration_ms=3000)
            clock.advance(timedelta(minutes=11))
    if today:  # a few answers minutes ago (siblings buried, learning due within learn-ahead)
        clock.set(max(start, now - timedelta(minutes=3)))
        for _ in range(3):
            card = session.next_card()
            if card is not None:
                session.answer(card, Rating.Good, duration_ms=2000)
        some = session.next_card()
        if some is not None:
            session.bury(some)
    clock.set(datetime.now(UTC))
    return session


def _anki_counts(col: Collection, deck_name: str) -> tuple[int, int, int]:
    col.decks.select(col.decks.id_for_name(deck_name))  # type: ignore[arg-type]
    return tuple(col.sched.counts())  # type: ignore[return-value]


def _schedules(session: StudySession, deck_ids: list[str]) -> dict[Schedule, int]:
    """Every studykit schedule of these decks, with its number of answers."""
    found = {}
    for deck_id in deck_ids:
        index = session.decks.index(deck_id)
        for pos in range(index.total):
            state = session.store.get_state(index.key(pos))
            ref = (deck_id, index.card(pos).id, index.ordinal_at[pos])
            found[ref] = 0 if state is None else state.reps
    return found


def _anki_schedules(col: Collection, library: Library) -> dict[Schedule, int]:
    """Every Anki card as the schedule it maps to (by its note's GUID and its ord), its reps."""
    guids = {}
    for deck in library.decks.values():
        for card in deck.cards:
            key = ("studykit", deck.id, card.id)
            computed = card.kind in COMPUTED_KINDS
            guids[note_guid((*key, "computed") if computed else key)] = (deck.id, card.id)
    found: dict[Schedule, int] = {}
    for cid in col.find_cards(""):
        anki_card = col.get_card(cid)
        deck_id, card_id = guids[anki_card.note().guid]
        ref = (deck_id, card_id, anki_card.ord + 1)
        assert ref not in found, ref  # one Anki card per schedule
        found[ref] = anki_card.reps
    return found


def _compare(session: StudySession, col: Collection) -> list[str]:
    """Each deck's counts on both sides (Anki's study screen takes in sub-decks)."""
    lines = []
    own = {row.deck_id: row for row in session.deck_counts()}
    for deck_id, outline in session.outlines.items():
        scope = session.deck_scope(deck_id)
        ours = session.scope_remaining(scope)
        theirs = _anki_counts(col, outline.name)
        assert ours == theirs, (outline.name, ours, theirs)
        if scope == [deck_id]:  # a deck without sub-decks: what `studykit decks` prints
            row = own[deck_id]
            assert (row.new, row.learning, row.due) == theirs, outline.name
        lines.append(f"{outline.name}: {theirs}")
    return lines


def test_every_deck_counts_the_same_in_anki_and_cards_map_one_to_one(
    tmp_path: Path, make_session: Factory, collection: Collection
) -> None:
    library = load_library(_root(tmp_path))
    session = _studied(library, tmp_path, make_session)
    if _near_rollover(session):
        pytest.skip("the study day changes within the minute")
    assert session.sibling_buried(["words"]), "the history buries some siblings today"
    result = export_anki(library, tmp_path / "o.apkg", session=session, variants=3)
    import_with_scheduling(collection, result.path)

    ours = _schedules(session, ["words", "numbers"])
    theirs = _anki_schedules(collection, library)
    assert theirs == ours  # the same schedules, each with its own answers
    assert len(ours) == (3 * 2 + 3 + 2 + 1 + 1) + (2 + 1 + 1)  # colours c1-c3, gaps c2 c4
    assert ("words", "gaps", 4) in ours and ("words", "gaps", 1) not in ours
    assert database(collection).scalar("SELECT count() FROM revlog") == sum(ours.values())
    print("\n" + "\n".join(_compare(session, collection)))


def test_counts_agree_after_more_study_and_an_undo_on_the_same_day(
    tmp_path: Path, make_session: Factory, collection: Collection
) -> None:
    library = load_library(_root(tmp_path))
    session = _studied(library, tmp_path, make_session)
    if _near_rollover(session):
        pytest.skip("the study day changes within the minute")
    card = session.next_card()
    assert card is not None
    session.answer(card, Rating.Good, duration_ms=1000)
    session.undo_last()  # its siblings are free again, on both sides
    export = export_anki(library, tmp_path / "u.apkg", session=session)
    import_with_scheduling(collection, export.path)
    _compare(session, collection)


def test_the_daily_limits_count_the_same_in_anki(
    tmp_path: Path, make_session: Factory, collection: Collection
) -> None:
    library = load_library(_root(tmp_path))
    studied = _studied(library, tmp_path, make_session, today=False)
    roomy_new, _, roomy_due = studied.scope_remaining(None)
    assert roomy_new > 3 and roomy_due >= 2
    tight = replace(studied.settings, new_per_day=3, reviews_per_day=3)
    session = make_session(library, settings=tight, clock=FakeClock(datetime.now(UTC)), tz=None)
    if _near_rollover(session):
        pytest.skip("the study day changes within the minute")
    new, _, due = session.scope_remaining(None)
    # The limits bind: the parent's caps its sub-deck, and (Anki's v3 default) new cards
    # come only as far as the reviews due leave room under the review limit.
    assert due == min(roomy_due, 3) and new == 3 - due
    export = export_anki(library, tmp_path / "l.apkg", session=session)
    import_with_scheduling(collection, export.path)
    _compare(session, collection)


def test_the_bundled_decks_count_the_same_in_anki(
    tmp_path: Path, make_session: Factory, collection: Collection
) -> None:
    library = load_library(bundled_root())
    session = _studied(library, tmp_path, make_session)
    if _near_rollover(session):
        pytest.skip("the study day changes within the minute")
    result = export_anki(library, tmp_path / "b.apkg", session=session, variants=1)
    import_with_scheduling(collection, result.path)
    assert _anki_schedules(collection, library) == _schedules(session, list(library.decks))
    print("\n" + "\n".join(_compare(session, collection)))


def test_a_three_deletion_cloze_asks_one_blank_at_a_time_in_anki(
    tmp_path: Path, collection: Collection
) -> None:
    library = load_library(_root(tmp_path))
    result = export_anki(library, tmp_path / "c.apkg", deck_ids=["words"])
    import_with_scheduling(collection, result.path, scheduling=False)
    cards = sorted(
        (collection.get_card(c) for c in collection.find_cards("laal")), key=lambda c: c.ord
    )
    assert [c.ord for c in cards] == [0, 1, 2]
    words = ("laal", "hara", "neela")
    for card, hidden in zip(cards, words, strict=True):
        shown = re.sub(r"<style>.*?</style>", "", card.question(), flags=re.DOTALL)
        question = re.sub(r"<[^>]*>", "", shown)  # the text a student sees
        assert question.count("[...]") == 1 and hidden not in question
        assert all(word in question for word in words if word != hidden)
        assert re.search(rf'<span class="?cloze"?[^>]*>{hidden}</span>', card.answer())


def test_learning_counts_what_anki_counts_within_the_learn_ahead_limit(
    make_session: Factory, fixed_clock: FakeClock, tmp_path: Path
) -> None:
    library = load_library(_root(tmp_path))
    session = make_session(library)
    card = session.study_card("words", "water")
    session.answer(card, Rating.Again, duration_ms=1000)  # due in a minute
    assert session.remaining("words")[1] == 1
    fixed_clock.advance(timedelta(minutes=1))
    session.answer(session.study_card("words", "water"), Rating.Good, duration_ms=1000)
    assert session.remaining("words")[1] == 1  # due in 10 minutes: within 20
    hour_steps = Settings(
        root=library.root,
        data_dir=tmp_path / "hours",
        enable_fuzzing=False,
        learning_steps=(timedelta(hours=1), timedelta(hours=2)),
    )
    later = make_session(library, settings=hour_steps)
    later.answer(later.study_card("words", "fire"), Rating.Again, duration_ms=1000)
    assert later.remaining("words")[1] == 0  # due in an hour: not counted yet, as in Anki
    fixed_clock.advance(timedelta(hours=1) - LEARN_AHEAD + timedelta(minutes=1))
    assert later.remaining("words")[1] == 1

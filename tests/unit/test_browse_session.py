"""The session behind the card browser: browse, forget, unbury, and undo of every action kind."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from studykit.content.loading import Library
from studykit.srs.records import CardState
from studykit.study.search import parse_query
from studykit.study.session import Action, Rating, StudyCard, StudySession
from tests.conftest import FakeClock, make_deck, make_library

Factory = Callable[..., StudySession]


def reviewed(session: StudySession, deck_id: str, card_id: str) -> StudyCard:
    """Answer a card Easy (so it is in review) and return it fresh."""
    session.answer(session.study_card(deck_id, card_id), Rating.Easy, duration_ms=900)
    return session.study_card(deck_id, card_id)


def stored(session: StudySession, card: StudyCard) -> CardState | None:
    return session.store.get_state(card.key)


def test_forget_resets_to_new_keeps_history_and_undo_restores(
    make_session: Factory, small_library: Library, fixed_clock: FakeClock
) -> None:
    session = make_session(small_library)
    card = reviewed(session, "alpha", "decay")
    before = stored(session, card)
    assert before is not None and card.state == "review"
    fixed_clock.advance(timedelta(hours=1))
    assert session.forget(card)
    forgotten = session.study_card("alpha", "decay")
    assert forgotten.state == "new" and session.remaining("alpha")[0] == 3
    assert len(session.store.history(card.key)) == 1  # the review history stays
    history = session.card_history(card)
    assert [row.rating for row in history] == [Rating.Easy, None]  # the answer, then the forget
    assert history[0].interval is not None and history[0].interval >= timedelta(days=1)
    undone = session.undo_last()
    assert undone is not None and undone.action == "forget" and undone.name == "alpha/decay"
    assert stored(session, card) == before
    assert session.study_card("alpha", "decay").state == "review"
    assert session.store.forgets(card.key) == []
    assert session.undo_last() is not None  # then the rating
    assert session.store.last_answer() is None


def test_forgetting_a_new_card_does_nothing(make_session: Factory, small_library: Library) -> None:
    session = make_session(small_library)
    assert not session.forget(session.study_card("alpha", "decay"))
    assert session.undo_last() is None


def test_a_forget_is_undoable_after_a_restart(
    make_session: Factory, small_library: Library, fixed_clock: FakeClock
) -> None:
    first = make_session(small_library)
    card = reviewed(first, "alpha", "decay")
    fixed_clock.advance(timedelta(minutes=5))
    first.forget(card)
    first.close()
    second = make_session(small_library)
    undone = second.undo_last()
    assert undone is not None and undone.action == "forget"
    assert second.study_card("alpha", "decay").state == "review"
    again = second.undo_last()  # below it, the answer
    assert again is not None and again.action == "rate"
    assert second.study_card("alpha", "decay").state == "new"


def test_reschedule_after_a_forget_replays_only_later_answers(
    make_session: Factory, small_library: Library, fixed_clock: FakeClock
) -> None:
    session = make_session(small_library)
    card = reviewed(session, "alpha", "decay")
    fixed_clock.advance(timedelta(days=3))
    session.forget(card)
    assert session.reschedule() == 0  # new again: nothing after the forget to replay
    assert session.study_card("alpha", "decay").state == "new"
    fixed_clock.advance(timedelta(minutes=1))
    session.answer(session.study_card("alpha", "decay"), Rating.Again, duration_ms=1)
    assert session.reschedule() == 1
    state = stored(session, card)
    assert state is not None and state.reps == 1 and state.state is not None


def do(session: StudySession, action: Action, card: StudyCard) -> None:
    """Set the card up so that `action` changes it, then do it."""
    if action == "rate":
        session.answer(card, Rating.Good, duration_ms=10)
    elif action == "forget":
        assert session.forget(card)
    else:
        getattr(session, action)(card)


SETUP: dict[Action, Callable[[StudySession, StudyCard], None]] = {
    "rate": lambda s, c: None,
    "bury": lambda s, c: None,
    "suspend": lambda s, c: None,
    "unbury": lambda s, c: s.bury(c),
    "unsuspend": lambda s, c: s.suspend(c),
    "forget": lambda s, c: s.answer(c, Rating.Easy, duration_ms=10),
}


@pytest.mark.parametrize("action", list(SETUP))
def test_undo_of_each_kind_restores_the_state_before(
    make_session: Factory, small_library: Library, fixed_clock: FakeClock, action: Action
) -> None:
    session = make_session(small_library)
    SETUP[action](session, session.study_card("alpha", "decay"))
    card = session.study_card("alpha", "decay")
    before = stored(session, card)
    queue_before = (session.remaining("alpha"), session.deck_counts()[0].suspended)
    fixed_clock.advance(timedelta(minutes=1))
    do(session, action, card)
    assert stored(session, card) != before
    undone = session.undo_last()
    assert undone is not None and undone.action == action
    after = stored(session, card)
    if before is None:  # never stored: any row left must read as the untouched card
        assert after is None or after == CardState(card.key, "alpha", "decay")
    else:
        assert after == before
    assert (session.remaining("alpha"), session.deck_counts()[0].suspended) == queue_before
    # The queue in memory agrees with a fresh read of the file.
    again = make_session(small_library)
    assert again.study_card("alpha", "decay") == session.study_card("alpha", "decay")


def test_unbury_shows_the_card_again_today(make_session: Factory, small_library: Library) -> None:
    session = make_session(small_library)
    card = session.study_card("alpha", "sequential")
    session.bury(card)
    assert session.is_buried(card) and session.remaining("alpha")[0] == 2
    session.unbury(card)
    assert not session.is_buried(card) and session.remaining("alpha")[0] == 3


def test_the_undo_stack_is_bounded(make_session: Factory, small_library: Library) -> None:
    from studykit.study.session import UNDO_DEPTH

    session = make_session(small_library)
    card = session.study_card("alpha", "decay")
    for _ in range(UNDO_DEPTH + 5):
        session.bury(card)
    assert len(session._undo) == UNDO_DEPTH


def test_browse_filters_by_state_text_and_deck(
    make_session: Factory, small_library: Library
) -> None:
    session = make_session(small_library)
    reviewed(session, "alpha", "decay")
    session.suspend(session.study_card("alpha", "parallel"))
    session.bury(session.study_card("beta", "context"))

    def names(text: str, deck_id: str | None = None) -> list[str]:
        return [row.name for row in session.browse(parse_query(text), deck_id=deck_id).rows]

    assert names("") == [
        "alpha/sequential",
        "alpha/decay",
        "alpha/parallel",
        "beta/gradient",
        "beta/context",
    ]
    assert names("is:new -is:suspended -is:buried") == ["alpha/sequential", "beta/gradient"]
    assert names("is:review") == ["alpha/decay"]
    assert names("is:due") == []  # answered Easy: due in days
    assert names("is:suspended") == ["alpha/parallel"]
    assert names("is:buried") == ["beta/context"]
    assert names("vanish") == ["beta/gradient"]  # the cloze text
    assert names("deck:beta") == ["beta/gradient", "beta/context"]
    assert names("", deck_id="alpha") == ["alpha/sequential", "alpha/decay", "alpha/parallel"]
    row = session.browse(parse_query("is:review")).rows[0]
    assert row.interval is not None and row.reps == 1 and row.stability is not None
    assert row.card.card.id == "decay" and not row.is_due


def test_a_claim_computed_after_a_search_is_found_by_its_value_next_time(
    make_session: Factory, bundled_library: Library
) -> None:
    """A search computes nothing, so an uncomputed claim is `…` to it; once a screen has
    computed the claim, the next search of the same session finds the card by its value."""
    from studykit.content.citations import CLAIM_VALUES

    claims = [c for s in bundled_library.notes["rnn-limitations"].sections for c in s.claims]
    [idle] = [claim for claim in claims if claim.id == "idle-cores"]
    CLAIM_VALUES.clear()
    session = make_session(bundled_library)
    query = parse_query('"har timestep par 4968 idle"')
    assert session.browse(query).rows == ()
    CLAIM_VALUES.value(idle.expr)  # as the notes or review screen computes it
    found = [row.card.card.id for row in session.browse(query).rows]
    assert found == ["idle-cores-assumption"], found


def test_browse_builds_at_most_limit_rows_and_counts_the_rest(make_session: Factory) -> None:
    session = make_session(make_library([make_deck("big", 40)]))
    result = session.browse(parse_query("question"), limit=7)
    assert len(result.rows) == 7 and result.total == 40 and result.more == 33


def test_a_listed_question_fills_in_what_it_cites_from_the_deck_note(
    make_session: Factory, bundled_library: Library
) -> None:
    """As the browser's list, its sort and `studykit cards` show it: values, not ids."""
    session = make_session(bundled_library)
    rows = session.browse(parse_query("")).rows
    (row,) = [row for row in rows if row.card.card.id == "scaling-example-steps"]
    assert row.note is not None and row.note.id == bundled_library.decks[row.card.deck.id].note
    assert row.question(90).startswith("32 sequences × 512 tokens ke batch par RNN")
    questions = [row.question(200) for row in rows]
    assert not [q for q in questions if "not found]" in q]
    detail = session.card_detail(row.card)
    assert detail.row.question(90) == row.question(90)
    # A search finds it by what it shows, as by what it says.
    found = session.browse(parse_query('"32 sequences × 512 tokens"')).rows
    assert [r.card.card.id for r in found] == ["scaling-example-steps"]
    assert row.card.card.id in {
        r.card.card.id for r in session.browse(parse_query("batch-size")).rows
    }

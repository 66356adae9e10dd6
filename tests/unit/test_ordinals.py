"""Ordinals: each direction of a reversed card and each cloze deletion is a schedule of its own,
and siblings are buried as Anki buries them (real SQLite files, a fake clock)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from pydantic import ValidationError

from studykit.content.model import Card, Deck
from studykit.content.ordinals import card_ordinals
from studykit.srs.records import CardState
from studykit.srs.scheduler import card_key, schedule_key
from studykit.study.cardtext import back_markdown, front_markdown
from studykit.study.search import QueryError, parse_query
from studykit.study.session import Rating, StudySession
from tests.conftest import FakeClock, make_library

Factory = Callable[..., StudySession]

TWO_WAY = Card(id="two-way", kind="reversed", front="Self-attention", back="Every token at once")
THREE = Card(id="three", kind="cloze", front="{{c1::alpha}}, {{c2::beta}} and {{c3::gamma}}")
PLAIN = Card(id="plain", front="Question?", back="Answer.")


def library(*cards: Card, **options: object) -> object:
    return make_library([Deck(id="d", name="D", cards=cards, **options)])


@pytest.mark.parametrize(
    ("kind", "front", "ordinals"),
    [
        ("basic", "Q", (1,)),
        ("numeric", "{x}?", (1,)),
        ("symbolic", "d/dz?", (1,)),
        ("reversed", "Q", (1, 2)),
        ("cloze", "{{c1::a}} {{c2::b}} {{c3::c}}", (1, 2, 3)),
        ("cloze", "{{c2::a}} and {{c4::b}}", (2, 4)),  # Anki's ords 1 and 3
        ("cloze", "{{c1::a}} {{c1::b}}", (1,)),  # one number, one card
        ("cloze", "{{c1::outer {{c2::inner}} }}", (1, 2)),  # nested deletions count
        ("cloze", "{{c1::closed}} {{c2::open", (1,)),  # an unclosed one does not
        ("cloze", "{{c600::far}}", (500,)),  # c500 and up are Anki's 500th card
    ],
)
def test_a_cards_ordinals_are_the_cards_anki_makes(
    kind: str, front: str, ordinals: tuple[int, ...]
) -> None:
    assert card_ordinals(kind, front) == ordinals


def test_ordinal_one_keeps_the_old_key_and_the_others_get_their_own() -> None:
    assert schedule_key("d", "c", 1) == card_key("d", "c")
    keys = {schedule_key("d", "c", n) for n in range(1, 501)}
    assert len(keys) == 500
    with pytest.raises(ValidationError):  # `deck/card#n` is no card's id
        Card(id="c#2", front="Q", back="A")
    with pytest.raises(ValueError, match="ordinals start at 1"):
        schedule_key("d", "c", 0)


def test_each_ordinal_is_its_own_schedule_in_the_queue(make_session: Factory) -> None:
    session = make_session(library(TWO_WAY, THREE, PLAIN, bury_new_siblings=False))
    (counts,) = session.deck_counts()
    assert (counts.new, counts.total) == (6, 6)
    names = [row.name for row in session.browse(parse_query("")).rows]
    assert names == ["d/two-way#1", "d/two-way#2", "d/three#1", "d/three#2", "d/three#3", "d/plain"]
    first = session.study_card("d", "two-way")
    second = session.study_card("d", "two-way", 2)
    assert (first.ordinal, second.ordinal) == (1, 2)
    assert first.key == card_key("d", "two-way") != second.key
    session.answer(second, Rating.Good, duration_ms=1000)
    assert session.study_card("d", "two-way", 2).state == "learning"
    assert session.study_card("d", "two-way", 1).state == "new"  # its own FSRS state
    assert [a.ordinal for a in session.store.history(second.key)] == [2]
    assert session.store.history(first.key) == []


def test_answering_one_ordinal_buries_its_siblings_until_tomorrow(
    make_session: Factory, fixed_clock: FakeClock
) -> None:
    session = make_session(library(THREE, PLAIN))
    assert session.remaining() == (2, 0, 0)  # Anki's queue gathers one new card per card
    card = session.next_card()
    assert card is not None and (card.card.id, card.ordinal) == ("three", 1)
    session.answer(card, Rating.Good, duration_ms=1000)
    for ordinal in (2, 3):
        assert session.is_buried(session.study_card("d", "three", ordinal))
    buried = session.browse(parse_query("is:buried")).rows
    assert [row.name for row in buried] == ["d/three#2", "d/three#3"]
    assert session.remaining() == (1, 1, 0)
    served = []
    while (card := session.next_card()) is not None:
        served.append((card.card.id, card.ordinal))
        session.answer(card, Rating.Easy, duration_ms=1000)
    assert ("three", 2) not in served and ("three", 3) not in served
    fixed_clock.advance(timedelta(days=1))
    assert not session.is_buried(session.study_card("d", "three", 2))
    nxt = session.next_card()
    assert nxt is not None and (nxt.card.id, nxt.ordinal) == ("three", 2)


def test_undoing_the_answer_unburies_and_a_restart_keeps_the_burial(
    make_session: Factory,
) -> None:
    lib = library(TWO_WAY)
    session = make_session(lib)
    card = session.next_card()
    assert card is not None
    session.answer(card, Rating.Again, duration_ms=1000)
    assert session.is_buried(session.study_card("d", "two-way", 2))
    reopened = make_session(lib)  # nothing was written for the burial: the log says so
    assert reopened.is_buried(reopened.study_card("d", "two-way", 2))
    assert reopened.remaining() == (0, 1, 0)
    reopened.undo_last()
    assert not reopened.is_buried(reopened.study_card("d", "two-way", 2))
    assert reopened.remaining() == (1, 0, 0)


def test_the_deck_options_turn_burying_off(make_session: Factory) -> None:
    session = make_session(library(TWO_WAY, bury_new_siblings=False))
    assert session.remaining() == (2, 0, 0)
    session.answer(session.study_card("d", "two-way"), Rating.Good, duration_ms=1000)
    assert not session.is_buried(session.study_card("d", "two-way", 2))
    nxt = session.next_card()
    assert nxt is not None and nxt.ordinal == 2 and nxt.state == "new"


def test_review_siblings_wait_and_a_due_review_holds_back_a_new_sibling(
    make_session: Factory, fixed_clock: FakeClock
) -> None:
    session = make_session(library(TWO_WAY))
    first = session.study_card("d", "two-way", 1)
    session.answer(first, Rating.Easy, duration_ms=1000)  # a review now, due in days
    fixed_clock.advance(timedelta(days=30))
    # Due for review: gathered first, so its new sibling is held back (counted once).
    assert session.remaining() == (0, 0, 1)
    due = session.next_card()
    assert due is not None and due.ordinal == 1
    session.answer(due, Rating.Good, duration_ms=1000)
    assert session.next_card() is None and session.remaining() == (0, 0, 0)


def test_an_unbury_lifts_a_siblings_burial_for_today(make_session: Factory) -> None:
    session = make_session(library(TWO_WAY))
    session.answer(session.study_card("d", "two-way"), Rating.Easy, duration_ms=1000)
    second = session.study_card("d", "two-way", 2)
    assert session.is_buried(second) and session.remaining() == (0, 0, 0)
    session.unbury(second)
    assert not session.is_buried(second)
    assert session.remaining() == (1, 0, 0)  # the review sibling is not due: nothing comes first
    session.undo_last()
    assert session.is_buried(session.study_card("d", "two-way", 2))


def test_suspend_and_forget_act_on_one_ordinal(make_session: Factory) -> None:
    session = make_session(library(TWO_WAY, bury_new_siblings=False))
    one, two = session.schedules("d", "two-way")
    session.suspend(two)
    assert session.study_card("d", "two-way", 2).suspended
    assert not session.study_card("d", "two-way", 1).suspended
    session.answer(one, Rating.Good, duration_ms=1000)
    assert session.forget(session.study_card("d", "two-way", 1))
    assert session.study_card("d", "two-way", 1).state == "new"
    assert session.study_card("d", "two-way", 2).suspended  # untouched


def test_search_by_ordinal(make_session: Factory) -> None:
    session = make_session(library(TWO_WAY, THREE, PLAIN))
    names = [row.name for row in session.browse(parse_query("card:2")).rows]
    assert names == ["d/two-way#2", "d/three#2"]
    assert [row.name for row in session.browse(parse_query("card:c3")).rows] == ["d/three#3"]
    assert len(session.browse(parse_query("-card:1 is:new")).rows) == 3
    with pytest.raises(QueryError, match="card:2"):
        parse_query("card:front")


def test_a_cloze_ordinal_hides_its_deletion_and_shows_the_others() -> None:
    for ordinal, hidden in ((1, "alpha"), (2, "beta"), (3, "gamma")):
        front = front_markdown(THREE, None, ordinal)
        assert front.count("[...]") == 1 and hidden not in front
        others = {"alpha", "beta", "gamma"} - {hidden}
        assert all(word in front for word in others)
        assert f"**{hidden}**" in back_markdown(THREE, None, ordinal)
    assert "Every token at once" in front_markdown(TWO_WAY, None, 2)
    assert "Self-attention" in back_markdown(TWO_WAY, None, 2)
    assert "Self-attention" not in front_markdown(TWO_WAY, None, 2)


def test_the_queue_keeps_its_sibling_counts_as_a_fresh_index_would() -> None:
    """Random answers, burials and suspensions: the index settled card by card counts what an
    index built afresh from the same states counts (new, learning, review; who is hidden)."""
    import random
    from dataclasses import replace as changed
    from datetime import UTC, datetime

    from studykit.content.loading.outline import CardOutline, DeckOutline
    from studykit.srs.queue import DeckIndex, Slot
    from studykit.srs.records import CardState
    from studykit.srs.scheduler import State
    from studykit.srs.siblings import BuryRule, Day

    cards = tuple(CardOutline(f"c{i}", (1, 2, 3) if i % 2 else (1, 2)) for i in range(12))
    deck = DeckOutline("d", "D", "", None, None, None, None, cards)
    start = datetime(2026, 3, 2, 4, tzinfo=UTC)
    day = Day(int(start.timestamp() * 1e6), int((start + timedelta(days=1)).timestamp() * 1e6))
    now_us = day.start_us + 3_600_000_000
    rng = random.Random(7)
    for rule in (BuryRule(), BuryRule(new=False), BuryRule(review=False)):
        live = DeckIndex(deck, {}, bury=rule)
        live.start_day(day, {})
        states: dict[tuple[str, int], CardState] = {}
        answered: dict[str, set[int]] = {}
        for _ in range(150):
            pos = rng.randrange(live.total)
            card_id, ordinal = live.card(pos).id, live.ordinal_at[pos]
            state = states.get((card_id, ordinal)) or CardState(0, "d", card_id, ordinal=ordinal)
            move = rng.random()
            due = start + timedelta(hours=rng.choice((2, 30, -50)))
            if move < 0.5:
                kind = rng.choice((State.Learning, State.Review))
                state = changed(state, state=kind, due=due, last_review=start)
                answered.setdefault(card_id, set()).add(ordinal)
                live.put(pos, state)
                live.answered(pos)
            elif move < 0.7:
                state = changed(state, suspended=not state.suspended)
                live.put(pos, state)
            else:
                until = rng.choice((None, start + timedelta(days=1), start + timedelta(hours=1)))
                state = changed(state, buried_until=until)
                live.put(pos, state)
            states[card_id, ordinal] = state
            fresh = DeckIndex(deck, {ref: Slot.of(s) for ref, s in states.items()}, bury=rule)
            fresh.start_day(day, answered)
            end_us = day.end_us
            assert live.counts(now_us=now_us, end_us=end_us) == fresh.counts(
                now_us=now_us, end_us=end_us
            )
            assert live.sibling_buried == fresh.sibling_buried
            assert live.held_back == fresh.held_back


def test_a_synced_state_goes_to_its_own_ordinal_in_the_queue(make_session: Factory) -> None:
    """A sync's merge hands back the states it changed: each goes to its schedule's slot."""
    session = make_session(library(TWO_WAY, bury_new_siblings=False))
    key = schedule_key("d", "two-way", 2)
    suspended = CardState(key, "d", "two-way", ordinal=2, suspended=True)
    session.apply_synced(lambda: [suspended])
    assert session.study_card("d", "two-way", 2).suspended
    assert not session.study_card("d", "two-way", 1).suspended  # its sibling untouched

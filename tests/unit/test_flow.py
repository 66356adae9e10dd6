"""The headless study flow on a real session: rotation, limits, timing, seeds, every undo, cram."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import timedelta

import pytest

from studykit.content.loading import Library
from studykit.content.model import Card, Deck
from studykit.core.config import Settings
from studykit.study.flow import (
    Finished,
    Notice,
    QuizDone,
    QuizFlow,
    Revealed,
    Shown,
    StudyFlow,
)
from studykit.study.session import Rating, StudySession
from tests.conftest import FakeClock, make_library

Factory = Callable[..., StudySession]


class Ticker:
    """A fake monotonic clock in seconds."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def seeds(*values: int) -> Callable[[], int]:
    """A seed source that hands out `values` in order."""
    it: Iterator[int] = iter(values)
    return lambda: next(it)


def shown(result: object) -> Shown:
    assert isinstance(result, Shown), result
    return result


def answer(flow: StudyFlow, rating: Rating = Rating.Good) -> Shown | Finished:
    assert isinstance(flow.reveal(), Revealed)
    result = flow.rate(rating)
    assert result is not None
    return result


def test_cards_rotate_over_the_decks_of_a_scope(
    make_session: Factory, small_library: Library
) -> None:
    flow = StudyFlow(make_session(small_library), ("alpha", "beta"))
    decks = [shown(flow.next()).card.deck.id]
    for _ in range(3):
        decks.append(shown(answer(flow, Rating.Easy)).card.deck.id)
    # beta allows one new card a day: after it, alpha only
    assert decks == ["alpha", "beta", "alpha", "alpha"]


def test_limits_finish_the_flow_and_say_when_next(
    make_session: Factory, small_library: Library
) -> None:
    session = make_session(small_library)
    flow = StudyFlow(session, ("beta",))
    first = shown(flow.next())
    assert first.remaining == (1, 0, 0)
    done = answer(flow, Rating.Easy)
    assert isinstance(done, Finished)
    assert done.next_due is not None and done.next_due == session.next_due("beta")
    assert flow.current is None


def test_timing_and_seeds_go_into_the_log(make_session: Factory) -> None:
    card = Card(id="k", kind="numeric", front="{g}?", params={"g": {"choices": [2]}}, answer="g")
    session = make_session(make_library([Deck(id="c", name="C", cards=(card,))]))
    ticker = Ticker()
    flow = StudyFlow(session, clock=ticker, seeds=seeds(1234, 99))
    first = shown(flow.next())
    assert first.variant is not None and first.variant.seed == 1234
    ticker.now += 7.25
    answer(flow)
    (logged,) = session.store.history(first.card.key)
    assert (logged.duration_ms, logged.variant_seed) == (7250, 1234)


def test_a_rating_needs_a_revealed_card(make_session: Factory, small_library: Library) -> None:
    session = make_session(small_library)
    flow = StudyFlow(session, ("alpha",))
    shown(flow.next())
    assert flow.rate(Rating.Good) is None  # not revealed: a stale or early key does nothing
    answer(flow)
    assert flow.rate(Rating.Good) is None  # the key pressed twice: the next card is unrevealed
    assert session.remaining("alpha") == (2, 1, 0)


def test_undo_of_a_rating(make_session: Factory, small_library: Library) -> None:
    session = make_session(small_library)
    flow = StudyFlow(session, ("alpha",))
    first = shown(flow.next()).card
    answer(flow)
    back = shown(flow.undo())
    assert back.card.card.id == first.card.id and back.card.state == "new"
    assert not flow.revealed and session.remaining("alpha") == (3, 0, 0)
    assert session.store.last_answer() is None


def test_undo_of_bury_and_of_suspend_undoes_that_not_the_rating(
    make_session: Factory, small_library: Library
) -> None:
    session = make_session(small_library)
    flow = StudyFlow(session, ("alpha",))
    shown(flow.next())
    answer(flow, Rating.Easy)  # sequential, rated
    suspended = shown(flow.suspend()).card  # hides decay
    assert session.deck_counts()[0].suspended == 1
    back = shown(flow.undo())
    assert back.card.card.id == "decay" and not back.card.suspended
    assert session.deck_counts()[0].suspended == 0
    assert len(session.store.history(suspended.key)) == 0
    assert session.store.last_answer() is not None  # the rating stays

    buried = shown(flow.bury())
    assert buried.card.card.id == "parallel" and session.remaining("alpha")[0] == 1
    again = shown(flow.undo())
    assert again.card.card.id == "decay" and session.remaining("alpha")[0] == 2

    rated = shown(flow.undo())  # the stack is down to the rating now
    assert rated.card.card.id == "sequential" and session.store.last_answer() is None


def test_undo_takes_back_an_unsuspend_made_elsewhere(
    make_session: Factory, small_library: Library
) -> None:
    session = make_session(small_library)
    flow = StudyFlow(session, ("alpha",))
    first = shown(flow.next()).card
    session.suspend(first)
    session.unsuspend(first)  # e.g. in the card browser: one undo stack for every action
    again = flow.undo()
    assert again == Notice(f"Undone: the unsuspend of alpha/{first.card.id}.")
    assert session.study_card("alpha", first.card.id).suspended is True
    assert flow.current is not None and flow.current.card.id == first.card.id  # still shown
    back = shown(flow.undo())  # then the suspend
    assert back.card.card.id == first.card.id and not back.card.suspended


def test_undo_with_nothing_done_says_so(make_session: Factory, small_library: Library) -> None:
    flow = StudyFlow(make_session(small_library))
    assert flow.undo() == Notice("Nothing to undo.")


def test_a_new_leech_is_announced(
    make_session: Factory, small_library: Library, tmp_settings: Settings, fixed_clock: FakeClock
) -> None:
    settings = replace(tmp_settings, leech_lapses=1)
    session = make_session(small_library, settings=settings)
    flow = StudyFlow(session, ("alpha",))
    shown(flow.next())
    answer(flow, Rating.Easy)
    fixed_clock.advance(timedelta(days=30))
    card = shown(flow.next()).card
    assert card.state == "review"
    after = answer(flow, Rating.Again)
    assert "Leech" in after.note
    assert shown(flow.undo()).card.suspended is False


def quiz_deck() -> Library:
    return make_library([Deck(id="q", name="Q", cards=(Card(id="a", front="A?", back="a"),))])


@pytest.mark.parametrize("counts", [False, True])
def test_quiz_on_a_new_card_crams_unless_answers_count(make_session: Factory, counts: bool) -> None:
    session = make_session(quiz_deck())
    flow = QuizFlow(session, ("q",), count=1, seed=1, counts=counts)
    first = shown(flow.start())
    assert (first.number, first.total, first.counts) == (1, 1, counts)
    revealed = flow.reveal()
    assert isinstance(revealed, Revealed) and bool(revealed.intervals) is counts
    done = flow.rate(Rating.Again)
    assert isinstance(done, QuizDone) and [a.correct for a in done.answers] == [False]
    assert bool(session.store.history(first.card.key)) is counts
    assert (session.study_card("q", "a").state == "new") is not counts
    assert session.remaining("q")[0] == (1 if not counts else 0)


def test_quiz_on_a_due_card_is_a_real_review(make_session: Factory, fixed_clock: FakeClock) -> None:
    session = make_session(quiz_deck())
    card = session.next_card("q")
    assert card is not None
    session.answer(card, Rating.Easy, duration_ms=1)
    fixed_clock.advance(timedelta(days=60))
    flow = QuizFlow(session, ("q",), count=1, seed=1)
    assert shown(flow.start()).counts
    flow.reveal()
    flow.rate(Rating.Good)
    assert len(session.store.history(card.key)) == 2


def test_quiz_on_a_card_not_yet_due_leaves_it_alone(make_session: Factory) -> None:
    session = make_session(quiz_deck())
    card = session.next_card("q")
    assert card is not None
    session.answer(card, Rating.Easy, duration_ms=1)
    before = session.study_card("q", "a")
    flow = QuizFlow(session, ("q",), count=1, seed=1)
    assert not shown(flow.start()).counts
    flow.reveal()
    flow.rate(Rating.Again)  # would be a lapse if it counted
    assert session.study_card("q", "a") == before
    assert len(session.store.history(card.key)) == 1

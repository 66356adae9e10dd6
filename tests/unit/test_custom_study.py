"""Custom study on real SQLite with a fake clock: exactly the filtered cards, answers scheduled."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from studykit.content.model import Card, Deck
from studykit.srs.scheduler import card_key
from studykit.study.custom import MAX_DAYS, CustomRequest, CustomStudyError
from studykit.study.custom_flow import CustomFlow
from studykit.study.flow import Finished, Revealed, Shown
from studykit.study.session import Rating, StudySession
from tests.conftest import FakeClock, make_deck, make_library

Factory = Callable[..., StudySession]


def answer(session: StudySession, deck_id: str, card_id: str, rating: Rating) -> None:
    session.answer(session.study_card(deck_id, card_id), rating, duration_ms=1000)


def serve(flow: CustomFlow, rating: Rating = Rating.Easy, cap: int = 100) -> list[str]:
    """Study until the flow finishes; the card id of every card served, in order (Easy by
    default: no card comes back in a learning step)."""
    served = []
    result = flow.next()
    while isinstance(result, Shown):
        served.append(result.card.card.id)
        assert isinstance(flow.reveal(), Revealed)
        after = flow.rate(rating)
        assert after is not None
        result = after
        assert len(served) <= cap, "the flow never finished"
    assert isinstance(result, Finished)
    return served


def test_forgotten_today_serves_exactly_the_cards_answered_again_today(
    make_session: Factory, fixed_clock: FakeClock
) -> None:
    session = make_session(make_library([make_deck("d", 5), make_deck("other", 2)]))
    fixed_clock.advance(timedelta(days=-3))
    answer(session, "d", "d-5", Rating.Again)  # forgotten, but three days ago
    answer(session, "d", "d-5", Rating.Good)
    fixed_clock.advance(timedelta(days=3))
    for card_id, rating in [("d-1", Rating.Again), ("d-2", Rating.Good), ("d-3", Rating.Again)]:
        answer(session, "d", card_id, rating)
    answer(session, "other", "other-1", Rating.Again)  # another deck

    queue = session.custom.build(["d"], CustomRequest("forgotten"))
    assert queue.refs == (("d", "d-1", 1), ("d", "d-3", 1))
    assert session.custom.remaining(queue) == (0, 2, 0)
    before = {c: session.store.get_state(card_key("d", c)) for c in ("d-1", "d-3")}

    assert serve(CustomFlow(session, queue, ("d",))) == ["d-1", "d-3"]

    # Both answers went through the scheduler: logged, and the cards' states moved on.
    for card_id, old in before.items():
        new = session.store.get_state(card_key("d", card_id))
        assert new is not None and old is not None
        assert new.reps == old.reps + 1 and new.due is not None and new.due > session.now()
        assert session.card_history(session.study_card("d", card_id))[-1].rating == Rating.Easy
    # Three days back, d-5 was forgotten too.
    week = session.custom.build(["d"], CustomRequest("forgotten", days=4))
    assert {ref[1] for ref in week.refs} == {"d-1", "d-3", "d-5"}


def test_a_card_forgotten_again_comes_back_when_its_step_is_due(
    make_session: Factory, fixed_clock: FakeClock
) -> None:
    session = make_session(make_library([make_deck("d", 2)]))
    answer(session, "d", "d-1", Rating.Again)
    flow = CustomFlow(session, session.custom.build(["d"], CustomRequest("forgotten")), ("d",))
    shown = flow.next()
    assert isinstance(shown, Shown) and shown.card.card.id == "d-1"
    flow.reveal()
    again = flow.rate(Rating.Again)  # a relearning step of minutes: within the learn-ahead
    assert isinstance(again, Shown) and again.card.card.id == "d-1"


def test_review_ahead_serves_the_cards_due_within_n_days_by_due_date(
    make_session: Factory, fixed_clock: FakeClock
) -> None:
    session = make_session(make_library([make_deck("d", 6)]))
    for i in range(1, 7):
        answer(session, "d", f"d-{i}", Rating.Easy if i % 2 else Rating.Good)
    for i in range(1, 7):  # a second answer spreads the due dates
        fixed_clock.advance(timedelta(hours=1))
        if i > 3:
            answer(session, "d", f"d-{i}", Rating.Good)
    _, end = session.day_bounds(session.now() + timedelta(days=5))
    states = {f"d-{i}": session.store.get_state(card_key("d", f"d-{i}")) for i in range(1, 7)}
    expected = sorted(
        (s.due, card_id) for card_id, s in states.items() if s and s.due and s.due < end
    )
    assert 0 < len(expected) < 6, "the test needs cards on both sides of the window"

    queue = session.custom.build(["d"], CustomRequest("ahead", days=5))
    assert [ref[1] for ref in queue.refs] == [card_id for _, card_id in expected]
    served = serve(CustomFlow(session, queue, ("d",)), Rating.Good)
    assert served == [card_id for _, card_id in expected]
    for card_id in served:
        state = session.store.get_state(card_key("d", card_id))
        assert state is not None and state.reps == states[card_id].reps + 1  # type: ignore[union-attr]


def test_by_tag_serves_the_tagged_cards_of_a_deck_and_its_sub_decks(
    make_session: Factory,
) -> None:
    parent = Deck(
        id="p",
        name="Maths",
        cards=(
            Card(id="a", front="A?", back="a", tags=("algebra",)),
            Card(id="b", front="B?", back="b"),
            Card(id="c", front="C?", back="c", tags=("algebra", "x")),
        ),
    )
    sub = make_deck("sub", 2, name="Maths::Algebra", tags=("algebra",))
    elsewhere = Deck(
        id="e", name="Other", cards=(Card(id="z", front="Z?", back="z", tags=("algebra",)),)
    )
    session = make_session(make_library([parent, sub, elsewhere]))
    session.suspend(session.study_card("p", "c"))

    queue = session.custom.build(session.deck_scope("p"), CustomRequest("tag", tag="ALGEBRA"))
    assert queue.refs == (("p", "a", 1), ("sub", "sub-1", 1), ("sub", "sub-2", 1))
    assert session.custom.remaining(queue) == (3, 0, 0)
    assert serve(CustomFlow(session, queue, ("p", "sub"))) == ["a", "sub-1", "sub-2"]
    assert session.study_card("p", "a").state != "new"


def test_an_empty_filter_finds_no_card(make_session: Factory) -> None:
    session = make_session(make_library([make_deck("d", 3)]))
    for request in (
        CustomRequest("forgotten"),
        CustomRequest("ahead", days=MAX_DAYS),  # nothing answered: nothing scheduled
        CustomRequest("tag", tag="nope"),
    ):
        queue = session.custom.build(["d"], request)
        assert queue.refs == () and queue.found == 0
        assert isinstance(CustomFlow(session, queue, ("d",)).next(), Finished)


@pytest.mark.parametrize(
    ("kind", "days", "tag", "says"),
    [
        ("ahead", "0", "", "Days: type a whole number from 1 to 365"),
        ("ahead", "366", "", "Days"),
        ("forgotten", "", "", "Days"),
        ("forgotten", "1e2", "", "Days"),
        ("tag", "1", "", "Tag: type one tag"),
        ("tag", "1", "two tags", "Tag"),
        ("tag", "1", "x" * 101, "Tag"),
        ("later", "1", "", "unknown custom study"),
    ],
)
def test_bad_requests_say_what_to_type(kind: str, days: str, tag: str, says: str) -> None:
    with pytest.raises(CustomStudyError, match=says):
        CustomRequest.parse(kind, days, tag)


def test_requests_parse_and_describe_themselves() -> None:
    assert CustomRequest.parse("forgotten", " 1 ", "").describe() == "forgotten today"
    assert CustomRequest.parse("ahead", "3", "").describe() == "due in the next 3 days"
    assert CustomRequest.parse("tag", "", " rnn ").describe() == "tagged rnn"

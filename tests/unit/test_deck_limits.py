"""Anki's limits on real SQLite with a fake clock: a parent deck caps its sub-decks too."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta

import pytest

from studykit.content.model import Deck
from studykit.core.config import Settings
from studykit.srs.hierarchy import DeckHierarchy, deck_path
from studykit.study.flow import Finished, Revealed, Shown, StudyFlow
from studykit.study.session import Rating, StudySession
from studykit.tui.widgets.deck_tree import DeckGroup, build_deck_groups
from tests.conftest import FakeClock, make_deck, make_library

Factory = Callable[..., StudySession]


def serve(flow: StudyFlow, rating: Rating = Rating.Easy, cap: int = 500) -> list[str]:
    """Review until the flow finishes; the deck of every card served, in order.

    Ratings here never bring a card back today, so the review screen's first count (the flow's
    `remaining`) must be what it serves.
    """
    decks = []
    result = flow.next()
    first = result.remaining if isinstance(result, Shown) else (0, 0, 0)
    while isinstance(result, Shown):
        decks.append(result.card.deck.id)
        assert isinstance(flow.reveal(), Revealed)
        next_result = flow.rate(rating)
        assert next_result is not None
        result = next_result
        assert len(decks) <= cap, "the flow never finished"
    assert isinstance(result, Finished)
    assert sum(first) == len(decks), (first, decks)
    return decks


def node(groups: list[DeckGroup], full_name: str) -> DeckGroup:
    """The tree node of a full deck name."""
    found = [g for top in groups for g in top.walk() if g.full_name == full_name]
    assert len(found) == 1, full_name
    return found[0]


def home_groups(session: StudySession) -> list[DeckGroup]:
    """The deck tree as the home screen builds it."""
    return build_deck_groups(session.deck_counts(), session.scope_remaining)


def parent_and_sub(parent_new: int = 5, sub_new: int | None = None) -> list[Deck]:
    return [
        make_deck("parent", 10, name="Maths", new_per_day=parent_new),
        make_deck("sub", 17, name="Maths::Algebra", new_per_day=sub_new),
    ]


def test_a_parent_limit_caps_its_sub_decks(make_session: Factory) -> None:
    session = make_session(make_library(parent_and_sub(parent_new=5)))
    scope = ("parent", "sub")
    assert session.scope_remaining(scope) == (5, 0, 0)
    assert node(home_groups(session), "Maths").new == 5
    served = serve(StudyFlow(session, scope))
    assert len(served) == 5
    assert session.scope_remaining(scope) == (0, 0, 0)
    assert node(home_groups(session), "Maths").new == 0


def test_a_sub_deck_keeps_its_own_limit_inside(make_session: Factory) -> None:
    session = make_session(make_library(parent_and_sub(parent_new=20, sub_new=4)))
    scope = ("parent", "sub")
    assert session.scope_remaining(scope) == (14, 0, 0)  # 10 own + 4 of the sub-deck
    served = serve(StudyFlow(session, scope))
    assert served.count("parent") == 10 and served.count("sub") == 4


def test_a_parent_outside_the_scope_does_not_cap(make_session: Factory) -> None:
    session = make_session(make_library(parent_and_sub(parent_new=5)))
    assert session.scope_remaining(("sub",)) == (17, 0, 0)
    assert node(home_groups(session), "Maths::Algebra").new == 17
    assert len(serve(StudyFlow(session, ("sub",)))) == 17


def test_sub_deck_answers_count_against_the_parent_all_day(
    make_session: Factory, fixed_clock: FakeClock
) -> None:
    session = make_session(make_library(parent_and_sub(parent_new=5)))
    first = StudyFlow(session, ("sub",))
    for _ in range(3):
        shown = first.next()
        assert isinstance(shown, Shown) and isinstance(first.reveal(), Revealed)
        first.rate(Rating.Easy)
    assert session.scope_remaining(("parent", "sub")) == (2, 0, 0)
    assert session.remaining("parent") == (2, 0, 0)  # the parent's own cards share its limit
    assert len(serve(StudyFlow(session, ("parent", "sub")))) == 2
    fixed_clock.advance(timedelta(days=1))
    assert session.scope_remaining(("parent", "sub")) == (5, 0, 0)


def test_review_limits_cap_the_same_way(
    make_session: Factory, tmp_settings: Settings, fixed_clock: FakeClock
) -> None:
    decks = [
        make_deck("parent", 4, name="Maths", reviews_per_day=3, new_per_day=100),
        make_deck("sub", 6, name="Maths::Algebra", new_per_day=100),
    ]
    # New cards apart from the review limit here (Anki's option): all ten come on day one.
    settings = replace(tmp_settings, new_cards_ignore_review_limit=True)
    session = make_session(make_library(decks), settings=settings)
    assert len(serve(StudyFlow(session, ("parent", "sub")))) == 10  # all new today
    fixed_clock.advance(timedelta(days=30))  # every card is due for review
    assert session.scope_remaining(("parent", "sub")) == (0, 0, 3)
    assert node(home_groups(session), "Maths").due == 3
    served = serve(StudyFlow(session, ("parent", "sub")), Rating.Good)
    assert len(served) == 3
    left = 6 - served.count("sub")
    assert session.scope_remaining(("sub",)) == (0, 0, left)  # the sub-deck alone: its own 200


@pytest.mark.parametrize(
    ("limits", "expected"),
    [
        ({"top": 5}, 5),
        ({"top": 30, "mid": 3}, 3 + 4 + 2),  # mid caps itself and leaf; top's 4 own; other's 2
        ({"top": 30, "mid": 8, "leaf": 2}, 2 + 4 + 2 + 3),
        ({"top": 9, "mid": 8, "leaf": 2}, 9),
        ({}, 4 + 3 + 5 + 2),
    ],
)
def test_counts_shown_equal_counts_served(
    make_session: Factory, limits: dict[str, int], expected: int
) -> None:
    decks = [
        make_deck("top", 4, name="A", new_per_day=limits.get("top")),
        make_deck("mid", 3, name="A::B", new_per_day=limits.get("mid")),
        make_deck("leaf", 5, name="A::B::C", new_per_day=limits.get("leaf")),
        make_deck("other", 2, name="A::D", new_per_day=limits.get("other")),
    ]
    session = make_session(make_library(decks))
    groups = home_groups(session)
    shown = {g.full_name: (g.new, g.learning, g.due) for top in groups for g in top.walk()}
    top = node(groups, "A")
    assert shown["A"] == session.scope_remaining(top.deck_ids) == (expected, 0, 0)
    flow = StudyFlow(session, top.deck_ids)
    assert len(serve(flow)) == expected
    # What is left under each limit after reviewing the parent is what home shows.
    for name in ("A::B::C", "A::B", "A::D"):
        group = node(home_groups(session), name)
        assert len(serve(StudyFlow(session, group.deck_ids))) == group.new, name


def test_the_bundled_parent_deck_serves_its_own_limit_in_total(tmp_settings: Settings) -> None:
    settings = replace(tmp_settings, new_per_day=20)
    with StudySession.open(settings, clock=FakeClock(), enable_fuzzing=False) as session:
        groups = home_groups(session)
        parent = node(groups, "AI-ML::Transformer Architecture::RNN limitations")
        assert len(parent.deck_ids) == 2  # the notes' deck and its computed sub-deck
        assert (parent.new, parent.learning, parent.due) == (20, 0, 0)
        assert len(serve(StudyFlow(session, parent.deck_ids, seeds=lambda: 7))) == 20


def test_deck_paths_and_the_hierarchy() -> None:
    assert deck_path(" A :: B::C ") == ("A", "B", "C") and deck_path("::") == ()
    decks = [
        make_deck("a", name="A"),
        make_deck("ab", name="A :: B"),
        make_deck("abc", name="A::B::C"),
        make_deck("ax", name="AX"),
        make_deck("twin", name="A"),
    ]
    tree = DeckHierarchy(decks)
    assert tree.ancestors("abc") == ("ab", "a", "twin")
    assert set(tree.subtree("a")) == {"a", "ab", "abc"} and tree.subtree("ax") == ("ax",)
    assert not tree.contains("a", "ax") and not tree.contains("a", "twin")
    assert tree.parent_in("abc", {"a", "abc"}) == "a" and tree.parent_in("a", {"ab"}) is None


def test_new_cards_count_against_the_review_limit_as_in_anki(
    make_session: Factory, tmp_settings: Settings, fixed_clock: FakeClock
) -> None:
    """Anki's v3 default: a new card is also a review for the limit, and new cards come only
    while the reviews due today leave room under it."""
    settings = replace(tmp_settings, reviews_per_day=4, new_per_day=10)
    session = make_session(make_library([make_deck("d", 8)]), settings=settings)
    assert session.scope_remaining(None) == (4, 0, 0)
    first = serve(StudyFlow(session, ("d",)), Rating.Easy)
    assert len(first) == 4
    fixed_clock.advance(timedelta(days=30))  # the four are due; four cards are still new
    assert session.scope_remaining(None) == (0, 0, 4)  # the reviews fill the limit
    ignoring = make_session(
        make_library([make_deck("d", 8)]),
        settings=replace(settings, new_cards_ignore_review_limit=True),
    )
    assert ignoring.scope_remaining(None) == (4, 0, 4)

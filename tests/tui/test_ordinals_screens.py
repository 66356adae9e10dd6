"""Pilot: ordinals on screen — a 3-deletion cloze reviewed one blank at a time, a reversed
card's back asked, and the browser listing and acting on `deck/card#2`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from textual.widgets import Markdown

from studykit.content.loading import load_library
from studykit.study.session import StudySession
from studykit.tui.app import make_app
from studykit.tui.screens.browser import BrowserScreen
from studykit.tui.screens.review import ReviewScreen
from tests.conftest import FakeClock

from .helpers import screen_text, settle, write
from .test_browser import open_browser, search

MakeSession = Callable[..., StudySession]
DECK = """\
id: words
name: "Lang::Words"
bury_new_siblings: false
cards:
  - id: colours
    kind: cloze
    front: "{{c1::laal}} is red, {{c2::hara}} is green, {{c3::neela}} is blue"
  - id: cat
    kind: reversed
    front: cat
    back: billi
"""


def _session(tmp_path: Path, make_session: MakeSession) -> StudySession:
    root = tmp_path / "root"
    write(root, "decks/words.yaml", DECK)
    return make_session(load_library(root))


async def test_a_three_deletion_cloze_asks_one_blank_at_a_time(
    tmp_path: Path, make_session: MakeSession, fixed_clock: FakeClock
) -> None:
    session = _session(tmp_path, make_session)
    app = make_app(session.settings, session=session, start="review", deck_id="words")
    words = ("laal", "hara", "neela")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        for hidden in words:
            await settle(pilot, lambda: screen.card is not None and not screen.revealed)
            card = screen.card
            assert card is not None and card.card.id == "colours"
            assert words[card.ordinal - 1] == hidden
            front = screen.query_one("#front", Markdown).source
            assert front.count("[...]") == 1 and hidden not in front
            assert all(word in front for word in words if word != hidden)
            assert f"c{card.ordinal}" in screen_text(app)  # the header says which deletion
            await pilot.press("space")
            await settle(pilot, lambda: screen.revealed)
            assert f"**{hidden}**" in screen.query_one("#back", Markdown).source
            await pilot.press("4")  # Easy: out of today's queue

            def moved_on(a: int = card.ordinal) -> bool:
                return screen.card is None or screen.card.ordinal != a

            await settle(pilot, moved_on)
        await settle(pilot, lambda: screen.card is not None and screen.card.card.id == "cat")
        assert screen.card is not None and screen.card.ordinal == 1
        await pilot.press("space", "4")
        await settle(pilot, lambda: screen.card is not None and screen.card.ordinal == 2)
        assert "billi" in screen.query_one("#front", Markdown).source  # the back asked
        assert "back → front" in screen_text(app)


async def test_the_browser_lists_each_ordinal_and_suspends_one(
    tmp_path: Path, make_session: MakeSession
) -> None:
    session = _session(tmp_path, make_session)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_browser(app, pilot, 5)
        assert list(screen.cards) == [
            "words/colours#1",
            "words/colours#2",
            "words/colours#3",
            "words/cat#1",
            "words/cat#2",
        ]
        await search(pilot, screen, "card:2")
        assert list(screen.cards) == ["words/colours#2", "words/cat#2"]
        await settle(pilot, lambda: screen.detail is not None)
        assert isinstance(app.screen, BrowserScreen)
        assert "words/colours#2" in screen_text(app)
        await pilot.press("!")
        await settle(pilot, lambda: session.study_card("words", "colours", 2).suspended)
        assert not session.study_card("words", "colours", 1).suspended
        assert not session.study_card("words", "colours", 3).suspended
        await pilot.press("u")
        await settle(pilot, lambda: not session.study_card("words", "colours", 2).suspended)


async def test_a_buried_sibling_shows_in_the_browser_until_tomorrow(
    tmp_path: Path, make_session: MakeSession, fixed_clock: FakeClock
) -> None:
    root = tmp_path / "root"
    write(root, "decks/words.yaml", DECK.replace("bury_new_siblings: false\n", ""))
    session = make_session(load_library(root))
    from studykit.study.session import Rating

    session.answer(session.study_card("words", "cat"), Rating.Good, duration_ms=1000)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_browser(app, pilot, 5)
        await search(pilot, screen, "is:buried")
        assert list(screen.cards) == ["words/cat#2"]
    fixed_clock.advance(timedelta(days=1))
    assert not session.is_buried(session.study_card("words", "cat", 2))

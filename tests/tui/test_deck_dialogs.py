"""Home's `c` (Custom study) and `o` (deck options) through Pilot, on real files and SQLite."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.widgets import Input, Static

from studykit.core.config import Settings
from studykit.study.session import Rating, StudySession
from studykit.tui.app import make_app
from studykit.tui.palette import palette_commands
from studykit.tui.screens.custom_study import CustomStudyScreen
from studykit.tui.screens.deck_options import DeckOptionsScreen
from studykit.tui.screens.finish import FinishScreen
from studykit.tui.screens.review import ReviewScreen
from tests.conftest import make_deck, make_library
from tests.unit.test_deck_options import DECK, REL, deck_root

from .helpers import at_home, plain, settle

SIZE = (120, 40)
Factory = Callable[..., StudySession]


async def test_custom_study_reviews_the_forgotten_cards_and_schedules_them(
    make_session: Factory,
) -> None:
    session = make_session(make_library([make_deck("d", 4, name="Demo")]))
    for card_id, rating in [("d-1", Rating.Again), ("d-2", Rating.Easy), ("d-4", Rating.Again)]:
        session.answer(session.study_card("d", card_id), rating, duration_ms=1000)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        await pilot.press("c")
        await settle(pilot, lambda: isinstance(app.screen, CustomStudyScreen))
        await pilot.click("#custom-start")  # the first filter: forgotten today
        served = []
        while True:
            await settle(
                pilot,
                lambda: (
                    isinstance(app.screen, FinishScreen)
                    or (isinstance(app.screen, ReviewScreen) and app.screen.card is not None)
                ),
            )
            screen = app.screen
            if isinstance(screen, FinishScreen):
                break
            assert isinstance(screen, ReviewScreen) and screen.card is not None
            served.append(screen.card.card.id)
            await pilot.press("space")
            await settle(
                pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.revealed
            )
            await pilot.press("4")
            runner = screen.runner
            await settle(pilot, lambda: not runner.busy)  # noqa: B023 (awaited right here)
            assert len(served) < 5
    assert served == ["d-1", "d-4"]
    assert [row.rating for row in session.card_history(session.study_card("d", "d-4"))] == [
        Rating.Again,
        Rating.Easy,
    ]


async def test_a_filter_that_finds_no_card_says_so(make_session: Factory) -> None:
    session = make_session(make_library([make_deck("d", 2, name="Demo")]))
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        await pilot.press("c")
        await settle(pilot, lambda: isinstance(app.screen, CustomStudyScreen))
        await pilot.click("#custom-start")
        error = app.screen.query_one("#custom-error", Static)
        await settle(pilot, lambda: "No card is forgotten today in Demo." in plain(error))
        assert isinstance(app.screen, CustomStudyScreen)  # still open, for another choice


async def test_deck_options_are_saved_to_the_file_and_the_session_reloads(tmp_path: Path) -> None:
    root = deck_root(tmp_path)
    settings = Settings(root=root, data_dir=tmp_path / "data", enable_fuzzing=False)
    app = make_app(settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        await pilot.press("down", "o")  # the deck under its `Demo` group
        await settle(pilot, lambda: isinstance(app.screen, DeckOptionsScreen))
        screen = app.screen
        new = screen.query_one("#options-new", Input)
        await settle(pilot, lambda: not new.disabled)
        assert new.value == "7"
        new.value = "lots"
        await pilot.click("#options-save")
        error = screen.query_one("#options-error", Static)
        await settle(pilot, lambda: "New cards per day: type a whole number" in plain(error))
        assert new.has_focus  # back in the box to type again
        assert (root / REL).read_bytes() == DECK.encode()
        new.value = "3"
        await pilot.press("enter")  # in the box: the same as Save

        def reloaded() -> bool:
            session = app.session
            return session is not None and session.outlines["limits"].new_per_day == 3

        await settle(pilot, lambda: at_home(app) and reloaded(), steps=1000)
    expected = DECK.replace("new_per_day:   7    #", "new_per_day:   3    #")
    assert (root / REL).read_text(encoding="utf-8") == expected


async def test_the_palette_opens_both_and_a_deck_without_a_file_says_so(
    make_session: Factory,
) -> None:
    session = make_session(make_library([make_deck("d", 2, name="Demo")]))
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        commands = {c.title: c for c in palette_commands(app)}
        commands["Custom study"].callback()
        await settle(pilot, lambda: isinstance(app.screen, CustomStudyScreen))
        await pilot.press("escape")
        await settle(pilot, lambda: at_home(app))
        commands["Deck options"].callback()
        await settle(pilot, lambda: isinstance(app.screen, DeckOptionsScreen))
        error = app.screen.query_one("#options-error", Static)
        await settle(pilot, lambda: "was not loaded from a file here" in plain(error))
        assert app.screen.query_one("#options-save").disabled

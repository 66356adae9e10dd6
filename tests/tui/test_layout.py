"""What each size must keep, checked on the widgets: Quit in the footer, the deck name's last
part, a graded typed card without scrolling, the notes list as a drawer when narrow."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

import pytest
from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets._footer import FooterKey

import studykit.tui.screens
from studykit.study.formatting import fit_deck_name
from studykit.study.session import StudySession
from studykit.tui.app import StudykitApp, make_app
from studykit.tui.screens import SCREENS_CSS, preload_screens_css
from studykit.tui.screens.error import ErrorScreen
from studykit.tui.screens.home import HomeScreen
from studykit.tui.screens.loading import LoadingScreen
from studykit.tui.screens.notes import NotesScreen
from studykit.tui.screens.review import ReviewScreen
from studykit.tui.screens.sizing import SizedScreen
from studykit.tui.widgets.answer_panel import AnswerPanel
from studykit.tui.widgets.footer import StudyFooter
from tests.conftest import FakeClock

from .helpers import at_home, plain, settle
from .screens_library import COMPUTED, library, with_history

SIZES = [(80, 24), (120, 40)]
MakeSession = Callable[..., StudySession]


@pytest.fixture
def session(make_session: MakeSession, fixed_clock: FakeClock) -> StudySession:
    return with_history(make_session(library()), fixed_clock)


def assert_quit_shown(app: StudykitApp) -> None:
    footer = app.screen.query_one(StudyFooter)
    first = footer.children[0]
    assert getattr(first, "action", None) == "quit"
    assert first.region.right <= app.size.width, "Quit is cut off"


@pytest.mark.parametrize("size", SIZES)
async def test_every_screen_keeps_quit_in_its_footer(
    session: StudySession, size: tuple[int, int]
) -> None:
    app = make_app(session.settings, session=session)
    async with app.run_test(size=size) as pilot:
        for key, name in (("", "home"), ("n", "notes"), ("s", "stats"), ("e", "experiments")):
            await settle(pilot, lambda: at_home(app))
            if key:
                await pilot.press(key)
                await settle(pilot, lambda n=name: app.screen.id == n)  # type: ignore[misc]
            await pilot.pause()
            assert_quit_shown(app)
            if key:
                await pilot.press("escape")


@pytest.mark.parametrize("size", SIZES)
async def test_a_graded_typed_card_fits_with_the_deck_name_s_last_part(
    session: StudySession, size: tuple[int, int]
) -> None:
    app = make_app(session.settings, session=session, start="review", deck_id="eigen-computed")
    async with app.run_test(size=size) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await settle(pilot, lambda: screen.card is not None)
        line = screen.query_one("#review-deck", Static)
        text = plain(line)
        assert "Computed practice" in text and cell_len(text) <= line.size.width
        assert (COMPUTED in text) == (size[0] >= 120)
        await pilot.press("1", "0", "0", "enter")
        await settle(pilot, lambda: screen.query_one(AnswerPanel).has_class("-solved"))
        await settle(pilot, lambda: screen.revealed)
        await pilot.pause()
        card = screen.query_one("#card", VerticalScroll)
        assert card.max_scroll_y == 0, f"the graded card scrolls by {card.max_scroll_y} rows"
        assert_quit_shown(app)  # hidden only while typing, where q is a letter
        assert screen.query_one("#easy").region.bottom <= size[1] - 1  # above the footer


async def test_the_notes_list_is_a_drawer_when_narrow(session: StudySession) -> None:
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, lambda: at_home(app))
        await pilot.press("n")
        await settle(pilot, lambda: isinstance(app.screen, NotesScreen))
        screen = app.screen
        sections = screen.query_one("#sections", OptionList)
        text = screen.query_one("#note-text", VerticalScroll)
        await pilot.pause()
        assert not sections.display and app.focused is text
        assert text.size.width >= 76  # the whole width for reading
        await pilot.press("t")
        await pilot.pause()
        assert sections.display and app.focused is sections
        assert text.size.width >= 76  # the drawer lies over the text
        await pilot.press("down", "down", "enter")
        await settle(pilot, lambda: not sections.display)
        target = screen.query_one("#section-s3")
        assert app.focused is text
        assert text.scroll_y == min(target.virtual_region.y, text.max_scroll_y) > 0
        await pilot.resize_terminal(120, 40)
        await settle(pilot, lambda: sections.display)
        await pilot.press("t")
        await settle(pilot, lambda: not sections.display)


def test_fit_deck_name_drops_parents_first() -> None:
    name = "Maths::Linear algebra::Eigenvalues"
    assert fit_deck_name(name, 40) == name
    assert fit_deck_name(name, 30) == "…::Linear algebra::Eigenvalues"
    assert fit_deck_name(name, 16) == "…::Eigenvalues"
    assert fit_deck_name(name, 11) == "Eigenvalues"
    assert fit_deck_name(name, 6) == "Eigen…"
    assert fit_deck_name(name, 0) == ""


async def test_the_footer_rebuilds_its_keys_only_when_they_change(session: StudySession) -> None:
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: at_home(app))
        await pilot.pause()
        footer = app.screen.query_one(StudyFooter)
        keys = list(footer.query(FooterKey))
        bound = [key for key in keys if not key.has_class("-command-palette")]
        assert bound and not any(key.compact or key.has_class("-compact") for key in bound)
        palette = [key for key in keys if key.has_class("-command-palette")]
        assert palette and all(key.has_class("-compact") for key in palette)  # Textual's look
        app.screen.refresh_bindings()  # published again, unchanged
        await pilot.pause()
        await pilot.pause()
        assert list(footer.query(FooterKey)) == keys, "unchanged keys were rebuilt"
        await pilot.resize_terminal(80, 24)  # narrow: compact keys, no palette key
        await settle(pilot, lambda: list(footer.query(FooterKey)) != keys)
        await pilot.pause()
        narrow = list(footer.query(FooterKey))
        assert all(key.compact and key.has_class("-compact") for key in narrow)
        assert_quit_shown(app)
        await pilot.resize_terminal(120, 40)
        await settle(pilot, lambda: list(footer.query(FooterKey)) != narrow)
        await pilot.pause()
        again = list(footer.query(FooterKey))
        assert [key.action for key in again] == [key.action for key in keys]
        bound = [key for key in again if not key.has_class("-command-palette")]
        assert not any(key.compact or key.has_class("-compact") for key in bound)


def test_every_screen_past_start_up_reads_the_screens_stylesheet() -> None:
    """studykit.tcss holds start-up's rules only: a screen without SCREENS_CSS is unstyled."""
    start_up: set[type[Screen[Any]]] = {HomeScreen, LoadingScreen, ErrorScreen}
    screens = []
    for module in pkgutil.iter_modules(studykit.tui.screens.__path__):
        loaded = importlib.import_module(f"studykit.tui.screens.{module.name}")
        screens += [
            value
            for value in vars(loaded).values()
            if isinstance(value, type)
            and issubclass(value, Screen)
            and value.__module__ == loaded.__name__
        ]
    assert len(screens) > len(start_up)
    unstyled = [s.__name__ for s in screens if s not in start_up and s.CSS_PATH != SCREENS_CSS]
    assert not unstyled, f"no CSS_PATH = SCREENS_CSS: {unstyled}"
    assert all(s.CSS_PATH is None for s in start_up)
    assert SCREENS_CSS.is_file()
    # Laid out at their size from the first layout on, not again when the size classes come.
    unsized = [s.__name__ for s in screens if not issubclass(s, SizedScreen)]
    assert not unsized, f"not a SizedScreen: {unsized}"


async def test_the_screens_stylesheet_is_read_while_home_is_idle(
    session: StudySession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read ahead, the later screens' CSS leaves home as it was, and opening a screen past
    home parses no stylesheet again (Textual's reparse of every rule, 100-200 ms)."""
    reparsed: list[object] = []
    reparse = Stylesheet.reparse

    def counted(sheet: Stylesheet) -> None:
        reparsed.append(sheet)
        reparse(sheet)

    monkeypatch.setattr(Stylesheet, "reparse", counted)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: at_home(app))
        await pilot.pause()
        home = app.export_screenshot()
        assert not app.stylesheet.has_source(str(SCREENS_CSS), "")
        preload_screens_css(app)
        assert app.stylesheet.has_source(str(SCREENS_CSS), "")
        await pilot.pause()
        assert app.export_screenshot() == home
        reparsed.clear()
        await pilot.press("n")
        await settle(pilot, lambda: isinstance(app.screen, NotesScreen))
        await pilot.pause()
        assert not reparsed, "opening Notes parsed the whole stylesheet again"
        sections = app.screen.query_one("#sections", OptionList)
        assert sections.styles.width is not None and sections.styles.width.value == 36


@pytest.mark.parametrize(
    ("size", "expected"), [((80, 24), {"-narrow", "-short"}), ((120, 40), {"-wide", "-tall"})]
)
async def test_a_screen_has_its_size_classes_before_its_widgets_are_made(
    session: StudySession, size: tuple[int, int], expected: set[str]
) -> None:
    """So that no widget is styled, nor the screen laid out, without them first."""
    seen: list[set[str]] = []

    class Probe(SizedScreen, Screen[None]):
        def compose(self) -> ComposeResult:
            seen.append(set(self.classes))
            yield Static("probe")

    app = make_app(session.settings, session=session)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, lambda: at_home(app))
        await app.push_screen(Probe())
        await pilot.pause()
        assert seen == [expected]
        assert set(app.screen.classes) >= expected  # and Textual's own resize agrees

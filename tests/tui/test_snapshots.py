"""SVG snapshots of the screens at 80x24 and 120x40 (pytest-textual-snapshot).

Deterministic by construction: a hand-built library, a database in tmp_path, the fake clock
(2026-03-02T09:00Z, UTC study days), history answered at fixed times, one-choice variants, no
experiment link on the typed card, the CUDA probe answered, the cursor not blinking.
Update after a deliberate change with `pytest tests/tui/test_snapshots.py --snapshot-update`,
and look at the SVGs in tests/tui/__snapshots__/ before committing them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import DataTable, Input, OptionList, SelectionList, Static

from studykit.content.loading import load_library
from studykit.core.config import Settings
from studykit.experiments import availability
from studykit.study.quiz_questions import QuizAnswer
from studykit.study.session import StudySession
from studykit.tui.app import StudykitApp, make_app
from studykit.tui.messages import ReviewScope
from studykit.tui.screens.browser import BrowserScreen
from studykit.tui.screens.browser_options import ColumnsScreen, SortScreen
from studykit.tui.screens.card_info import CardInfoScreen
from studykit.tui.screens.custom_study import CustomStudyScreen
from studykit.tui.screens.deck_options import DeckOptionsScreen
from studykit.tui.screens.experiments import ExperimentsScreen
from studykit.tui.screens.finish import FinishScreen
from studykit.tui.screens.help import HelpScreen
from studykit.tui.screens.home import HomeScreen
from studykit.tui.screens.notes import NotesScreen
from studykit.tui.screens.quiz import QuizScoreScreen
from studykit.tui.screens.review import ReviewScreen
from studykit.tui.screens.stats import MEMORY_LOADING, StatsScreen
from studykit.tui.widgets.answer_panel import AnswerPanel
from studykit.tui.widgets.experiment_form import CUDA_CHECKING
from tests.conftest import FakeClock
from tests.unit.test_deck_options import deck_root

from .helpers import at_home, settle
from .screens_library import library, with_history

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
MakeSession = Callable[..., StudySession]
SnapCompare = Callable[..., bool]
Before = Callable[[Pilot[None]], Awaitable[None]]


@pytest.fixture
def session(make_session: MakeSession, fixed_clock: FakeClock) -> StudySession:
    """The library with a week of answers behind it, at the fixed clock's time."""
    return with_history(make_session(library()), fixed_clock)


@pytest.fixture(autouse=True)
def no_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CUDA probe is a separate Python; its answer would differ between machines."""
    monkeypatch.setattr(availability, "cuda_status", lambda: "not asked in these tests")


async def steady(pilot: Pilot[None], screen: type[Screen[Any]], until: Callable[[], bool]) -> None:
    """Wait for `screen` and `until()`, then stop every cursor blinking."""
    await settle(pilot, lambda: isinstance(pilot.app.screen, screen) and until())
    for box in pilot.app.screen.query(Input):
        box.cursor_blink = False
    await pilot.pause()


def review_screen(app: App[None]) -> ReviewScreen:
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


async def home(pilot: Pilot[None]) -> None:
    await steady(pilot, HomeScreen, lambda: at_home(pilot.app))


async def front(pilot: Pilot[None]) -> None:
    await steady(pilot, ReviewScreen, lambda: review_screen(pilot.app).card is not None)


async def revealed(pilot: Pilot[None]) -> None:
    await front(pilot)
    await pilot.press("space")
    await steady(pilot, ReviewScreen, lambda: review_screen(pilot.app).revealed)


async def graded(pilot: Pilot[None]) -> None:
    await front(pilot)
    await pilot.press("1", "0", "0", "enter")  # wrong: k = 44

    def solved() -> bool:
        screen = review_screen(pilot.app)
        return screen.revealed and screen.query_one(AnswerPanel).has_class("-solved")

    await steady(pilot, ReviewScreen, solved)
    pilot.app.clear_notifications()  # the once-a-run typed-answer notice (test_keys_said.py)
    await pilot.pause()


async def notes(pilot: Pilot[None]) -> None:
    await home(pilot)
    await pilot.press("n")
    await steady(pilot, NotesScreen, lambda: True)


async def notes_drawer(pilot: Pilot[None]) -> None:
    await notes(pilot)
    await pilot.press("t")
    await steady(pilot, NotesScreen, lambda: pilot.app.screen.has_class("-sections-open"))


async def stats(pilot: Pilot[None]) -> None:
    await home(pilot)
    await pilot.press("s")

    def described() -> bool:  # the memory panel is worked out in a thread worker
        memory = pilot.app.screen.query_one("#memory", Static)
        return str(memory.render()) not in ("", MEMORY_LOADING)

    await steady(pilot, StatsScreen, described)


async def experiments(pilot: Pilot[None]) -> None:
    await home(pilot)
    await pilot.press("e")

    def probed() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, ExperimentsScreen) and screen.cuda != CUDA_CHECKING

    await steady(pilot, ExperimentsScreen, probed)


async def browser(pilot: Pilot[None]) -> None:
    await home(pilot)
    await pilot.press("b")

    def listed() -> bool:  # the list and the first card's detail come from a worker
        screen = pilot.app.screen
        return (
            isinstance(screen, BrowserScreen)
            and screen.detail is not None
            and not screen.runner.busy
        )

    await steady(pilot, BrowserScreen, listed)


async def card_info(pilot: Pilot[None]) -> None:
    await front(pilot)
    await pilot.press("i")

    def read() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, CardInfoScreen) and screen.detail is not None

    await steady(pilot, CardInfoScreen, read)


async def browser_sorted(pilot: Pilot[None]) -> None:
    """The browser by due, latest first, with Deck, Stab. and Laps in place of State."""
    await browser(pilot)
    await pilot.press("c")
    await settle(pilot, lambda: isinstance(pilot.app.screen, ColumnsScreen))
    ticks = pilot.app.screen.query_one(SelectionList)
    for name in ("deck", "stability", "lapses"):
        ticks.select(name)
    ticks.deselect("state")
    await pilot.press("escape")
    for _ in range(2):  # the second time turns it round
        await settle(pilot, lambda: isinstance(pilot.app.screen, BrowserScreen))
        await pilot.press("s")
        await settle(pilot, lambda: isinstance(pilot.app.screen, SortScreen))
        options = pilot.app.screen.query_one(OptionList)
        options.highlighted = options.get_option_index("due")
        await pilot.press("enter")

    def sorted_() -> bool:
        screen = pilot.app.screen
        if not isinstance(screen, BrowserScreen) or screen.runner.busy:
            return False
        table = screen.query_one("#browser-list", DataTable)
        return any(str(column.label) == "Due ▼" for column in table.columns.values())

    await steady(pilot, BrowserScreen, sorted_)


async def home_help(pilot: Pilot[None]) -> None:
    await home(pilot)
    await pilot.press("question_mark")
    await steady(pilot, HelpScreen, lambda: True)


async def review_help(pilot: Pilot[None]) -> None:
    await revealed(pilot)
    await pilot.press("question_mark")
    await steady(pilot, HelpScreen, lambda: True)


async def browser_no_detail(pilot: Pilot[None]) -> None:
    await browser(pilot)
    await pilot.press("d")
    await steady(pilot, BrowserScreen, lambda: pilot.app.screen.has_class("-no-detail"))
    await pilot.pause(0.1)  # the list refits after the pane goes


async def finish(pilot: Pilot[None]) -> None:
    await home(pilot)
    app = pilot.app
    assert isinstance(app, StudykitApp) and app.session is not None
    finished = FinishScreen(app.session, ReviewScope("Maths"), now=app.now, next_due=None)
    await app.push_screen(finished)
    await steady(pilot, FinishScreen, lambda: True)


async def quiz_score(pilot: Pilot[None]) -> None:
    await home(pilot)
    app = pilot.app
    assert isinstance(app, StudykitApp) and app.session is not None
    card = app.session.study_card("eigen", "basic-1")
    question = (
        "Why does the characteristic polynomial of a triangular matrix factor into its "
        "diagonal entries, and what does that say about the eigenvalues?"
    )
    misses = [QuizAnswer(card, False, question, "They are the diagonal entries.", "zero")]
    await app.push_screen(QuizScoreScreen(ReviewScope("Maths"), misses))
    await steady(pilot, QuizScoreScreen, lambda: True)


VIEWS: dict[str, tuple[str, str | None, Before]] = {
    # name: (start screen, deck to review, what to do before the picture)
    "home": ("home", None, home),
    "review-front": ("review", "eigen", front),
    "review-revealed": ("review", "eigen", revealed),
    "review-typed-graded": ("review", "eigen-computed", graded),
    "notes": ("home", None, notes),
    "stats": ("home", None, stats),
    "experiments": ("home", None, experiments),
    "browser": ("home", None, browser),
    "card-info": ("review", "eigen", card_info),
    "browser-sorted": ("home", None, browser_sorted),
    "help-home": ("home", None, home_help),
    "help-review": ("review", "eigen", review_help),
    "browser-no-detail": ("home", None, browser_no_detail),
    "finish": ("home", None, finish),
    "quiz-score": ("home", None, quiz_score),
}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("view", list(VIEWS))
def test_screen(snap_compare: SnapCompare, session: StudySession, view: str, size: str) -> None:
    start, deck_id, before = VIEWS[view]
    app = make_app(session.settings, session=session, start=start, deck_id=deck_id)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=before)


def test_notes_drawer_at_80x24(snap_compare: SnapCompare, session: StudySession) -> None:
    app = make_app(session.settings, session=session)
    assert snap_compare(app, terminal_size=SIZES["80x24"], run_before=notes_drawer)


async def custom_study(pilot: Pilot[None]) -> None:
    await home(pilot)
    await pilot.press("c")
    await steady(pilot, CustomStudyScreen, lambda: True)


@pytest.mark.parametrize("size", list(SIZES))
def test_custom_study_dialog(snap_compare: SnapCompare, session: StudySession, size: str) -> None:
    app = make_app(session.settings, session=session)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=custom_study)


async def deck_options(pilot: Pilot[None]) -> None:
    await home(pilot)
    await pilot.press("down", "o")

    def filled() -> bool:  # the file is read in a thread worker
        return not pilot.app.screen.query_one("#options-new", Input).disabled

    await steady(pilot, DeckOptionsScreen, filled)


@pytest.mark.parametrize("size", list(SIZES))
def test_deck_options_dialog(
    snap_compare: SnapCompare, make_session: MakeSession, tmp_path: Path, size: str
) -> None:
    root = deck_root(tmp_path)
    settings = Settings(root=root, data_dir=tmp_path / "data", enable_fuzzing=False)
    session = make_session(load_library(root), settings=settings)
    app = make_app(settings, session=session)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=deck_options)

"""Pilot: the deck header stays over its counts (after help, after reload); the browse
question column takes the room the card pane leaves; quiz misses wrap between words."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from textual.widgets import DataTable

from studykit.study.quiz_questions import QuizAnswer
from studykit.study.session import StudySession
from studykit.tui.app import StudykitApp
from studykit.tui.messages import ReviewScope
from studykit.tui.screens.browser import BrowserScreen
from studykit.tui.screens.help import HelpScreen
from studykit.tui.screens.quiz import QuizScoreScreen
from tests.conftest import FakeClock

from .helpers import screen_text, settle
from .screens_library import library, with_history

MakeSession = Callable[..., StudySession]
SIZES = [(80, 24), (120, 40)]


@pytest.fixture
def session(make_session: MakeSession, fixed_clock: FakeClock) -> StudySession:
    return with_history(make_session(library()), fixed_clock)


def reopening_app(session: StudySession) -> StudykitApp:
    """The app on `session`; `r` reloads by opening the same session again."""
    return StudykitApp(session.settings, session=session, opener=lambda settings: session)


def header_off_by(app: StudykitApp) -> int:
    """How far the `Due` title's end is from the end of the first deck row's due count."""
    lines = screen_text(app).splitlines()
    [header] = [line for line in lines if line.strip().startswith("Deck")]
    row = next(line for line in lines if "Maths" in line)
    count_end = max(match.end() for match in re.finditer(r"\d+", row))
    return header.rstrip().rindex("Due") + len("Due") - count_end


@pytest.mark.parametrize("size", SIZES)
async def test_the_deck_header_stays_over_its_counts(
    session: StudySession, size: tuple[int, int]
) -> None:
    app = reopening_app(session)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, lambda: app.screen.id == "home")
        await pilot.pause()
        assert header_off_by(app) == 0
        await pilot.press("question_mark")
        await settle(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen.id == "home")
        await pilot.pause()
        assert header_off_by(app) == 0, "after the help closed"
        await pilot.press("r")
        await settle(pilot, lambda: any("Reloaded" in n.message for n in app._notifications))
        await pilot.pause()
        assert header_off_by(app) == 0, "after r reloaded"


async def test_the_question_column_takes_the_room_the_card_pane_leaves(
    session: StudySession,
) -> None:
    app = reopening_app(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: app.screen.id == "home")
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, BrowserScreen))
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        await settle(pilot, lambda: screen.listing is not None and not screen.runner.busy)
        table = screen.query_one("#browser-list", DataTable)

        def widths() -> tuple[int, int]:
            columns = list(table.columns.values())
            return columns[0].width, sum(c.get_render_width(table) for c in columns)

        await pilot.pause()
        beside, _ = widths()
        await pilot.press("d")
        await settle(pilot, lambda: widths()[0] > beside)
        question, total = widths()
        assert question >= 70, question  # most of 120 columns, not ~36
        assert total <= table.scrollable_content_region.width  # no sideways scrolling
        await pilot.press("d")
        await settle(pilot, lambda: widths()[0] == beside)


async def test_quiz_misses_wrap_between_words_at_80_columns(session: StudySession) -> None:
    question = (
        "Why does the characteristic polynomial of a triangular matrix factor into the "
        "diagonal entries, and what does that say about its eigenvalues and their multiplicity?"
    )
    app = reopening_app(session)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, lambda: app.screen.id == "home")
        miss = QuizAnswer(session.study_card("eigen", "basic-1"), False, question, "Its diagonal.")
        app.push_screen(QuizScoreScreen(ReviewScope("Maths"), [miss]))
        await settle(pilot, lambda: isinstance(app.screen, QuizScoreScreen))
        await pilot.pause()
        box = app.screen.query_one("#score-box")
        assert box.region.right <= 80
        text = screen_text(app)
        for word in question.split():
            assert word in text, f"{word!r} was cut"

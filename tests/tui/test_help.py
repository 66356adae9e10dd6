"""Pilot: `?` on every screen lists that screen's keys; escape and `?` close it; the footer
keeps `?` and Quit in view at 80 columns."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from textual.binding import Binding
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input

from studykit.study.quiz_questions import QuizAnswer
from studykit.study.session import StudySession
from studykit.tui.app import StudykitApp, make_app
from studykit.tui.messages import ReviewScope
from studykit.tui.screens.finish import FinishScreen
from studykit.tui.screens.help import HelpScreen
from studykit.tui.screens.quiz import QuizScoreScreen, QuizScreen
from studykit.tui.widgets.footer import StudyFooter
from tests.conftest import FakeClock

from .helpers import screen_text, settle
from .screens_library import library, with_history

MakeSession = Callable[..., StudySession]
Open = Callable[[StudykitApp, Pilot[None]], Awaitable[None]]
NARROW = (80, 24)


@pytest.fixture
def session(make_session: MakeSession, fixed_clock: FakeClock) -> StudySession:
    return with_history(make_session(library()), fixed_clock)


def by_key(key: str) -> Open:
    async def press(app: StudykitApp, pilot: Pilot[None]) -> None:
        await pilot.press(key)

    return press


async def finish(app: StudykitApp, pilot: Pilot[None]) -> None:
    session = app.session
    assert session is not None
    await app.push_screen(
        FinishScreen(session, ReviewScope("Maths"), now=session.now, next_due=None)
    )


async def quiz_score(app: StudykitApp, pilot: Pilot[None]) -> None:
    session = app.session
    assert session is not None
    miss = QuizAnswer(session.study_card("eigen", "basic-1"), False, "Question 1?", "Answer 1.")
    await app.push_screen(QuizScoreScreen(ReviewScope("Maths"), [miss]))


async def leave_answer_box(app: StudykitApp, pilot: Pilot[None]) -> None:
    await settle(pilot, lambda: isinstance(app.focused, Input))
    await pilot.press("escape")


async def quiz(app: StudykitApp, pilot: Pilot[None]) -> None:
    """Open a quiz; its first question is drawn at random, so leave an answer box if it has one."""
    await pilot.press("z")
    await settle(pilot, lambda: isinstance(app.screen, QuizScreen) and app.screen.card is not None)
    await pilot.pause()
    if isinstance(app.focused, Input):
        await pilot.press("escape")


SCREENS: dict[str, tuple[str, str | None, Open | None, str]] = {
    # name: (start, deck, how to get there from the start, the screen's id)
    "home": ("home", None, None, "home"),
    "review": ("review", "eigen", None, "review"),
    "typed-review": ("review", "eigen-computed", leave_answer_box, "review"),
    "finish": ("home", None, finish, "finish"),
    "notes": ("home", None, by_key("n"), "notes"),
    "stats": ("home", None, by_key("s"), "stats"),
    "browser": ("home", None, by_key("b"), "browser"),
    "experiments": ("home", None, by_key("e"), "experiments"),
    "quiz": ("home", None, quiz, "quiz"),
    "quiz-score": ("home", None, quiz_score, "quiz-score-screen"),
}


def footer_line(app: StudykitApp) -> str:
    """The footer as a user reads it: the screen's last line."""
    return screen_text(app).splitlines()[-1]


def help_text(app: StudykitApp) -> str:
    return screen_text(app)


def expected_rows(screen: Screen[object], app: StudykitApp) -> list[tuple[str, str]]:
    """(key shown, description) of every key studykit binds on the screen that works now."""
    declared = {
        (binding.action, binding.description)
        for cls in type(screen).__mro__
        if cls.__module__.startswith("studykit")
        for binding in cls.__dict__.get("BINDINGS", ())
        if isinstance(binding, Binding)
    }
    return [
        (app.get_key_display(active.binding), active.binding.description)
        for active in screen.active_bindings.values()
        if active.node is screen and (active.binding.action, active.binding.description) in declared
    ]


def app_at(session: StudySession, name: str) -> StudykitApp:
    """The app started where the way to screen `name` begins."""
    start, deck, _, _ = SCREENS[name]
    return make_app(session.settings, session=session, start=start, deck_id=deck)


async def open_screen(app: StudykitApp, pilot: Pilot[None], name: str) -> Screen[object]:
    start, _, go, screen_id = SCREENS[name]
    await settle(pilot, lambda: app.screen.id == start)
    if go is not None:
        await go(app, pilot)
    await settle(pilot, lambda: app.screen.id == screen_id and not isinstance(app.focused, Input))
    await pilot.pause()
    return app.screen


@pytest.mark.parametrize("name", list(SCREENS))
async def test_question_mark_lists_the_screen_s_keys_and_escape_or_it_closes(
    session: StudySession, name: str
) -> None:
    app = app_at(session, name)
    async with app.run_test(size=NARROW) as pilot:
        screen = await open_screen(app, pilot, name)
        footer = footer_line(app)
        assert footer.startswith("q Quit ? Help"), footer
        quit_and_help = list(screen.query_one(StudyFooter).children)[:2]
        assert all(key.region.right <= NARROW[0] for key in quit_and_help)

        rows = expected_rows(screen, app)
        assert rows, "the screen binds keys of its own"
        for close in ("escape", "question_mark"):
            await pilot.press("question_mark")
            await settle(pilot, lambda: isinstance(app.screen, HelpScreen))
            await pilot.pause()
            lines = help_text(app).splitlines()
            for key, description in rows:
                assert any(key in line and description in line for line in lines), (
                    key,
                    description,
                )
            assert any("?" in line and "Help" in line for line in lines)
            assert any("escape or ? closes" in line for line in lines)
            await pilot.press(close)
            await settle(pilot, lambda: app.screen is screen)


async def test_the_help_lists_keys_the_footer_leaves_out(session: StudySession) -> None:
    app = make_app(session.settings, session=session)
    async with app.run_test(size=NARROW) as pilot:
        await open_screen(app, pilot, "home")
        await pilot.press("question_mark")
        await settle(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        text = help_text(app)
        assert "ctrl+p" in text and "themes" in text  # what the palette offers
        assert "Suspended" in text and "Export to Anki" in text  # cut from an 80-column footer
        assert "Copy selected text" not in text  # Textual's own keys stay out, as in its footer


async def test_f1_opens_the_help_while_typing_where_question_mark_is_a_character(
    session: StudySession,
) -> None:
    app = make_app(session.settings, session=session, start="review", deck_id="eigen-computed")
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, lambda: isinstance(app.focused, Input))
        await pilot.pause()
        assert footer_line(app).startswith("f1 Help"), footer_line(app)
        box = app.focused
        assert isinstance(box, Input)
        await pilot.press("question_mark")
        assert box.value == "?" and not isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        await settle(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        assert "Leave answer box" in help_text(app)
        await pilot.press("escape")
        await settle(pilot, lambda: app.focused is box)


async def test_keys_in_the_command_palette_opens_the_help(session: StudySession) -> None:
    app = make_app(session.settings, session=session)
    async with app.run_test(size=NARROW) as pilot:
        await open_screen(app, pilot, "home")
        [keys] = [c for c in app.get_system_commands(app.screen) if c.title == "Keys"]
        keys.callback()
        await settle(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen.id == "home")


@pytest.mark.parametrize("name", ["notes", "stats", "browser", "experiments"])
async def test_a_screen_left_with_escape_shows_esc_back_third_at_80_columns(
    session: StudySession, name: str
) -> None:
    app = app_at(session, name)
    async with app.run_test(size=NARROW) as pilot:
        await open_screen(app, pilot, name)
        footer = footer_line(app)
        assert footer.startswith("q Quit ? Help esc Back "), footer

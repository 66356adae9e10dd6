"""Pilot: keys that used to hide or surprise say what they do (footers, undo on Notes,
Study again with nothing due, the typed-answer notice)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from textual.widgets import Input

from studykit.study.session import StudySession
from studykit.tui.app import StudykitApp, make_app
from studykit.tui.messages import ReviewRequested, ReviewScope
from studykit.tui.notices import TYPED_ANSWER
from studykit.tui.screens.finish import FinishScreen
from studykit.tui.screens.notes import NotesScreen
from studykit.tui.screens.review import ReviewScreen
from tests.conftest import FakeClock, make_deck, make_library

from .helpers import reveal_and_rate, screen_text, settle, shown_review
from .screens_library import library, with_history

MakeSession = Callable[..., StudySession]
WIDE = (120, 40)


def notifications(app: StudykitApp) -> list[str]:
    return [notification.message for notification in app._notifications]


def footer_line(app: StudykitApp) -> str:
    return screen_text(app).splitlines()[-1]


def logged(session: StudySession) -> int:
    """How many answers the database holds."""
    return len(session.store.answers_in(["eigen"]))


async def test_home_and_browse_footers_show_bang_and_slash(
    make_session: MakeSession, fixed_clock: FakeClock
) -> None:
    session = with_history(make_session(library()), fixed_clock)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot, lambda: app.screen.id == "home")
        await pilot.pause()
        assert "! Suspended" in footer_line(app)
        await pilot.press("b")
        await settle(pilot, lambda: app.screen.id == "browser")
        await pilot.pause()
        assert "/ Search" in footer_line(app)


async def test_u_on_notes_undoes_nothing_and_says_where_undo_works(
    make_session: MakeSession, fixed_clock: FakeClock
) -> None:
    session = with_history(make_session(library()), fixed_clock)
    before = logged(session)
    app = make_app(session.settings, session=session, start="review", deck_id="eigen")
    async with app.run_test(size=WIDE) as pilot:
        review = await shown_review(app, pilot)
        await reveal_and_rate(pilot, review, "3")
        await settle(pilot, lambda: logged(session) == before + 1)
        await pilot.press("n")
        await settle(pilot, lambda: isinstance(app.screen, NotesScreen))
        await pilot.press("u")
        await settle(
            pilot, lambda: any("Nothing is undone on Notes" in n for n in notifications(app))
        )
        await pilot.pause(0.2)
        assert logged(session) == before + 1, "the rating is still there"


async def test_study_again_with_nothing_due_says_so(
    make_session: MakeSession, fixed_clock: FakeClock
) -> None:
    session = make_session(make_library([make_deck("solo", 1, name="Solo")]))
    app = make_app(session.settings, session=session, start="review", deck_id="solo")
    async with app.run_test(size=WIDE) as pilot:
        review = await shown_review(app, pilot)
        await reveal_and_rate(pilot, review, "4")
        await settle(pilot, lambda: isinstance(app.screen, FinishScreen))
        finish = app.screen
        await pilot.press("r")
        said = "Nothing to study in Solo yet. The next card is due"
        await settle(pilot, lambda: any(n.startswith(said) for n in notifications(app)))
        await pilot.pause(0.2)
        assert app.screen is finish
        fixed_clock.advance(timedelta(days=60))  # now the card is due: r studies it
        await pilot.press("r")
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))


async def test_the_typed_answer_notice_shows_once_per_run(
    make_session: MakeSession, fixed_clock: FakeClock
) -> None:
    session = with_history(make_session(library()), fixed_clock)
    app = make_app(session.settings, session=session, start="review", deck_id="eigen-computed")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, lambda: isinstance(app.focused, Input))
        await settle(pilot, lambda: TYPED_ANSWER in notifications(app))
        assert "u and space go into the box" in TYPED_ANSWER
        app.clear_notifications()
        await pilot.press("escape", "escape")  # leave the box, then home
        await settle(pilot, lambda: app.screen.id == "home")
        app.post_message(ReviewRequested(ReviewScope("Typed", ("eigen-computed",))))
        await settle(pilot, lambda: isinstance(app.focused, Input) and app.screen.id == "review")
        await pilot.pause(0.2)
        assert TYPED_ANSWER not in notifications(app)

    again = make_app(session.settings, session=session, start="review", deck_id="eigen-computed")
    async with again.run_test(size=WIDE) as pilot:  # a new run of the app says it again
        await settle(pilot, lambda: TYPED_ANSWER in notifications(again))

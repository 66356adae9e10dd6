"""Pilot: failures off the UI thread are shown; keys on typed-answer cards tell the truth."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from textual.widgets import Input, Static

from studykit.content.loading import Library
from studykit.core.config import Settings
from studykit.quiz import Grade, Variant
from studykit.study.session import Rating, StudySession
from studykit.tui.app import StudykitApp, make_app
from studykit.tui.screens.error import ErrorScreen
from studykit.tui.screens.finish import FinishScreen
from studykit.tui.screens.review import ReviewScreen
from studykit.tui.widgets import answer_panel
from tests.conftest import make_library

from .helpers import plain, reveal_and_rate, screen_text, settle, shown_review
from .test_computed import K_STAR, computed_deck, logged, open_review

SIZE = (120, 40)
MakeSession = Callable[..., StudySession]


def footer_actions(app: StudykitApp) -> set[str]:
    """The actions the footer lists now."""
    return {
        active.binding.action
        for active in app.screen.active_bindings.values()
        if active.binding.show
    }


async def test_a_grade_that_fails_is_shown_not_left_on_checking(
    make_session: MakeSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(variant: Variant, text: str) -> Grade:
        raise ZeroDivisionError("the answer cannot be evaluated for this variant")

    monkeypatch.setattr(answer_panel, "grade", broken)
    session = make_session(make_library([computed_deck(K_STAR)]))
    app = make_app(session.settings, session=session, start="review")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await pilot.press("9", "0", "enter")
        await settle(pilot, lambda: isinstance(app.screen, ErrorScreen))
        assert plain(app.screen.query_one("#error-title", Static)) == "Could not check your answer"
        assert "cannot be evaluated" in plain(app.screen.query_one("#error-message", Static))
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is screen)
        message = plain(screen.query_one("#answer-message", Static))
        assert "Checking" not in message and "Could not check" in message
        assert not screen.revealed and logged(session, "k-star") == []


async def test_an_unexpected_error_in_the_flow_is_a_dialog_and_the_card_stays(
    make_session: MakeSession, small_library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = make_session(small_library)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    app = make_app(session.settings, session=session, start="review", deck_id="alpha")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await settle(pilot, lambda: screen.card is not None)
        await pilot.press("space")
        await settle(pilot, lambda: screen.revealed)
        monkeypatch.setattr(session, "answer", broken)
        await pilot.press("3")
        await settle(pilot, lambda: isinstance(app.screen, ErrorScreen))
        assert plain(app.screen.query_one("#error-title", Static)) == "Your answer was not saved"
        assert "disk on fire" in plain(app.screen.query_one("#error-message", Static))
        monkeypatch.undo()
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is screen)
        assert screen.card is not None and screen.card.card.id == "sequential"
        await pilot.press("3")  # the retry goes through
        await settle(pilot, lambda: screen.card is not None and screen.card.card.id == "decay")


async def test_typed_cards_escape_leaves_the_box_and_the_footer_follows(
    make_session: MakeSession,
) -> None:
    deck = computed_deck(K_STAR, K_STAR.model_copy(update={"id": "k-two"}))
    session = make_session(make_library([deck]))
    app = make_app(session.settings, session=session, start="review")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        box = screen.query_one("#answer-input", Input)
        assert box.has_focus
        typing = footer_actions(app)
        assert {"leave", "home"} & typing == {"leave"}  # escape leaves the box first
        assert "undo_typing" in typing  # ctrl+z: u is a letter here
        assert not typing & {"reveal", "bury", "suspend", "undo", "notes", "quit", "rate"}
        assert "Bury" not in screen_text(app).splitlines()[-1]
        await pilot.press("minus")
        assert box.value == "-"  # typed, as the footer said
        box.value = ""

        await pilot.press("escape")
        await settle(pilot, lambda: not box.has_focus)
        assert isinstance(app.screen, ReviewScreen)
        assert {"reveal", "bury", "suspend", "undo", "notes", "home"} <= footer_actions(app)
        assert "undo_typing" not in footer_actions(app)
        await pilot.press("minus")  # now it buries
        await settle(pilot, lambda: screen.card is not None and screen.card.card.id == "k-two")
        assert session.remaining("computed")[0] == 1 and session.store.last_answer() is None
        assert screen.query_one("#answer-input", Input).has_focus  # typing on k-two
        await pilot.press("ctrl+z")  # undo the bury: k-star again
        await settle(pilot, lambda: screen.card is not None and screen.card.card.id == "k-star")
        assert session.remaining("computed")[0] == 2


async def test_after_reveal_the_footer_offers_ratings_not_show_answer(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session, start="review", deck_id="alpha")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await settle(pilot, lambda: screen.card is not None)
        assert "reveal" in footer_actions(app) and "rate(3)" not in footer_actions(app)
        await pilot.press("space")
        await settle(pilot, lambda: screen.revealed)
        assert "reveal" not in footer_actions(app)
        assert {"rate(1)", "rate(2)", "rate(3)", "rate(4)"} <= footer_actions(app)


async def test_u_after_suspend_undoes_the_suspend_and_finish_undo_goes_back(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session, start="review", deck_id="beta")
    async with app.run_test(size=SIZE) as pilot:
        screen = await shown_review(app, pilot)
        await reveal_and_rate(pilot, screen, "4")  # beta allows one new card a day: finished
        await settle(pilot, lambda: isinstance(app.screen, FinishScreen))
        await pilot.press("u")  # the rating is undone; its card shows again
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        again = app.screen
        assert isinstance(again, ReviewScreen)
        await settle(pilot, lambda: again.card is not None)
        assert again.card is not None and again.card.card.id == "gradient"
        assert session.store.last_answer() is None
        await pilot.press("exclamation_mark")  # suspend: context is next
        await settle(pilot, lambda: again.card is not None and again.card.card.id == "context")
        await pilot.press("u")
        await settle(pilot, lambda: again.card is not None and again.card.card.id == "gradient")
        assert not session.study_card("beta", "gradient").suspended
        assert session.store.last_answer() is None  # nothing else was undone
        await pilot.press("space")
        await settle(pilot, lambda: again.revealed)
        await pilot.press("3")
        await settle(pilot, lambda: session.store.last_answer() is not None)
        last = session.store.last_answer()
        assert last is not None and (last.card_id, last.rating) == ("gradient", Rating.Good)


async def test_review_straight_from_the_command_line_opens_behind_loading(
    tmp_settings: Settings,
) -> None:
    app = make_app(tmp_settings, start="review")  # the session opens in a worker first
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await settle(pilot, lambda: screen.card is not None)
        assert "Show answer" in screen_text(app).splitlines()[-1]


async def test_undo_on_finish_with_nothing_to_undo_comes_back_to_finish(
    make_session: MakeSession, small_library: Library
) -> None:
    before = make_session(small_library)
    for card_id in ("gradient", "context"):
        before.suspend(before.study_card("beta", card_id))  # nothing left, nothing logged
    before.close()
    session = make_session(small_library)  # suspensions are undoable only in their session
    app = make_app(session.settings, session=session, start="review", deck_id="beta")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, FinishScreen))
        finish = app.screen
        await pilot.press("u")
        await settle(
            pilot, lambda: isinstance(app.screen, FinishScreen) and app.screen is not finish
        )
        assert session.store.last_answer() is None


async def test_answers_commit_off_the_ui_thread_once_per_key(
    make_session: MakeSession, small_library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = make_session(small_library)
    threads: list[threading.Thread] = []
    slow_disk = threading.Event()
    real_answer = session.answer

    def answer(*args: Any, **kwargs: Any) -> None:
        threads.append(threading.current_thread())
        assert slow_disk.wait(10)  # the commit takes a while; the UI must not wait for it
        real_answer(*args, **kwargs)

    monkeypatch.setattr(session, "answer", answer)
    app = make_app(session.settings, session=session, start="review", deck_id="alpha")
    async with app.run_test(size=SIZE) as pilot:
        screen = await shown_review(app, pilot)
        await reveal_and_rate(pilot, screen, "3")
        await settle(pilot, lambda: len(threads) == 1)
        await pilot.press("3", "3")  # impatient: the UI still answers keys meanwhile
        assert screen.card is not None and screen.card.card.id == "sequential"
        slow_disk.set()
        await settle(pilot, lambda: screen.card is not None and screen.card.card.id == "decay")
        await pilot.pause(0.2)
        assert len(threads) == 1 and threads[0] is not threading.main_thread()
        assert not screen.revealed and session.remaining("alpha") == (2, 1, 0)

"""The Stats screen shows the memory-model panel, worked out off the UI thread."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from textual.widgets import Static

from studykit.content.loading import Library
from studykit.core.errors import StudykitError
from studykit.memory import panel
from studykit.study.session import Rating, StudySession
from studykit.tui.app import make_app
from studykit.tui.screens.stats import MEMORY_LOADING, StatsScreen

from .helpers import at_home, plain, settle


def _answered(make_session: Callable[..., StudySession], library: Library) -> StudySession:
    session = make_session(library)
    card = session.next_card("alpha")
    assert card is not None
    session.answer(card, Rating.Good, duration_ms=1500)
    return session


async def test_stats_screen_has_the_memory_model_panel(
    make_session: Callable[..., StudySession],
    small_library: Library,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = _answered(make_session, small_library)
    real = panel.memory_panel_lines
    release = threading.Event()
    threads: list[threading.Thread] = []

    def held(session: StudySession, **kwargs: int) -> list[str]:
        """The real panel, once the test has seen the screen waiting for it."""
        threads.append(threading.current_thread())
        assert release.wait(30)
        return real(session, **kwargs)

    monkeypatch.setattr(panel, "memory_panel_lines", held)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot, lambda: at_home(app))
        await pilot.press("s")
        await settle(pilot, lambda: isinstance(app.screen, StatsScreen) and bool(threads))
        memory = app.screen.query_one("#memory", Static)
        assert plain(memory) == MEMORY_LOADING  # the screen is up while the worker replays
        assert threads[0] is not threading.main_thread()
        release.set()
        await settle(pilot, lambda: plain(memory) != MEMORY_LOADING)
        text = plain(memory)
        assert text.startswith("Memory model: FSRS defaults")
        assert "Calibration" in text
        # One answer: no advice, but how many reviews it takes.
        assert "need 640 reviews a day or more apart; you have 0 (640 more to go)" in text
        assert "recommended" not in text.replace("a recommended retention need", "")


async def test_a_failing_memory_panel_says_so_in_place(
    make_session: Callable[..., StudySession],
    small_library: Library,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = _answered(make_session, small_library)

    def broken(session: StudySession, **kwargs: int) -> list[str]:
        raise StudykitError("the review log is unreadable")

    monkeypatch.setattr(panel, "memory_panel_lines", broken)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot, lambda: at_home(app))
        await pilot.press("s")
        await settle(pilot, lambda: isinstance(app.screen, StatsScreen))
        memory = app.screen.query_one("#memory", Static)
        await settle(pilot, lambda: plain(memory) != MEMORY_LOADING)
        assert plain(memory) == (
            "Could not describe the memory model: the review log is unreadable"
        )

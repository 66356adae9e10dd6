"""The Stats screen shows the memory-model panel."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Static

from studykit.loading import Library
from studykit.session import Rating, StudySession
from studykit.tui.app import make_app
from studykit.tui.screens.home import HomeScreen
from studykit.tui.screens.stats import StatsScreen

from .helpers import plain, settle


async def test_stats_screen_has_the_memory_model_panel(
    make_session: Callable[..., StudySession], small_library: Library
) -> None:
    session = make_session(small_library)
    card = session.next_card("alpha")
    assert card is not None
    session.answer(card, Rating.Good, duration_ms=1500)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.press("s")
        await settle(pilot, lambda: isinstance(app.screen, StatsScreen))
        text = plain(app.screen.query_one("#memory", Static))
        assert text.startswith("Memory model: FSRS defaults")
        assert "Calibration" in text

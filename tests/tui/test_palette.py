"""Pilot: the command palette (ctrl+p) lists studykit's commands beside Textual's, and runs them."""

from __future__ import annotations

from collections.abc import Callable

from textual.command import CommandList, CommandPalette

from studykit.content.loading import Library
from studykit.study.session import StudySession
from studykit.tui.app import StudykitApp, make_app
from studykit.tui.screens.stats import StatsScreen

from .helpers import at_home, settle

SIZE = (120, 40)
OURS = {
    "Browse cards",
    "Experiments",
    "Home",
    "Notes",
    "Quiz",
    "Reload",
    "Stats",
    "Suspended cards",
}


def _listed(app: StudykitApp) -> list[str]:
    """The titles the open palette lists, top to bottom (each option: title, then its help)."""
    options = app.screen.query_one(CommandList).options
    return [str(option.prompt).split("\n")[0] for option in options]


async def test_the_palette_lists_every_command_in_one_sorted_list_and_runs_one(
    make_session: Callable[..., StudySession], small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, CommandPalette))
        await settle(pilot, lambda: len(_listed(app)) > len(OURS))
        listed = _listed(app)
        assert OURS | {"Quit", "Theme"} <= set(listed)  # ours, and Textual's own
        assert listed == sorted(listed)
        await pilot.press(*"stats")
        await settle(pilot, lambda: _listed(app)[:1] == ["Stats"])
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, StatsScreen))

"""Quitting the app or leaving the Experiments screen mid-run leaves no experiment process."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace

import pytest
from textual.widgets import Input, Static

from studykit.content.loading import Library
from studykit.core.config import Settings
from studykit.experiments.budget import Budget
from studykit.study.session import StudySession
from studykit.tui.app import make_app
from studykit.tui.screens.experiments import ExperimentsScreen
from tests.experiment_fixtures import gone, run_children, wait_until_gone
from tests.tui.helpers import at_home, plain, settle

pytest.importorskip("torch")

SIZE = (120, 60)
MakeSession = Callable[..., StudySession]
# The long run below is over the default budget (its estimate says so and Run is disabled);
# these tests are about ending a running child, so they allow it an hour.
HOUR = Budget(seconds=3600.0)


def long_run_session(
    make_session: MakeSession, library: Library, settings: Settings
) -> StudySession:
    """A session whose configured experiment budget lets the long run start."""
    return make_session(library, settings=replace(settings, experiment_budget=HOUR))


async def start_a_long_run(pilot: object) -> tuple[ExperimentsScreen, int]:
    """Open Experiments, start effective-context for millions of steps; the child's PID."""
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    await settle(pilot, lambda: at_home(pilot.app))
    await pilot.press("e")
    await settle(pilot, lambda: isinstance(pilot.app.screen, ExperimentsScreen))
    screen = pilot.app.screen
    assert isinstance(screen, ExperimentsScreen)
    await settle(pilot, lambda: bool(screen.query("#param-gamma")))
    screen.query_one("#param-gamma", Input).value = "0.999999"
    screen.query_one("#param-threshold", Input).value = "0.000001"
    screen.query_one("#param-max_steps", Input).value = "10000000"
    await pilot.pause()
    await pilot.press("ctrl+r")
    status = screen.query_one("#experiment-status", Static)
    await settle(pilot, lambda: "step" in plain(status), steps=3000)
    [child] = run_children()
    return screen, child


async def until_gone(pid: int, timeout: float) -> float:
    """Like wait_until_gone, but lets the app's event loop run meanwhile."""
    started = time.monotonic()
    while not gone(pid):
        assert time.monotonic() - started < timeout, f"process {pid} is still there"
        await asyncio.sleep(0.01)
    return time.monotonic() - started


async def test_quitting_the_app_mid_run_leaves_no_child(
    make_session: MakeSession, small_library: Library, tmp_settings: Settings
) -> None:
    session = long_run_session(make_session, small_library, tmp_settings)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        _, child = await start_a_long_run(pilot)
        app.exit()
    took = wait_until_gone(child, 2.0)
    print(f"app quit: child gone after {took:.2f} s")
    assert run_children() == []


async def test_leaving_the_screen_mid_run_ends_the_child(
    make_session: MakeSession, small_library: Library, tmp_settings: Settings
) -> None:
    session = long_run_session(make_session, small_library, tmp_settings)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        _, child = await start_a_long_run(pilot)
        app.pop_screen()  # not through Escape, which cancels first: the screen just goes
        await settle(pilot, lambda: at_home(app))
        took = await until_gone(child, 2.0)
        print(f"screen left: child gone after {took:.2f} s")

"""The Experiments screen under Pilot with a test experiment whose run the test paces.

The run goes through `run_cached` and the real session cache; only the runner is inline
(a registered test experiment does not exist in a child process).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, OptionList, ProgressBar, Select, Static, Switch

from studykit.content.loading import Library
from studykit.experiments import availability, registry
from studykit.experiments.base import (
    Answer,
    Cost,
    Experiment,
    Outcome,
    Param,
    Params,
    Result,
    RunContext,
)
from studykit.experiments.budget import MIB, Budget
from studykit.experiments.device import torch_version
from studykit.experiments.params import validate
from studykit.study.session import StudySession
from studykit.tui.app import StudykitApp, make_app
from studykit.tui.screens.experiments import ExperimentsScreen
from studykit.tui.screens.home import HomeScreen
from studykit.tui.widgets.experiment_result import ExperimentResultView
from tests.tui.helpers import at_home, plain, screen_text, settle

NAME = "paced-test"
OTHER = "instant-test"
MakeSession = Callable[..., StudySession]


@dataclass
class Pace:
    """Lets the test hold a run half way, release it, and see whether it was told to cancel."""

    release: threading.Event = field(default_factory=threading.Event)
    half_way: threading.Event = field(default_factory=threading.Event)
    saw_cancel: threading.Event = field(default_factory=threading.Event)
    let_stop: threading.Event = field(default_factory=threading.Event)
    runs: list[Params] = field(default_factory=list)


PACE = Pace()


def paced_run(params: Params, context: RunContext) -> Outcome:
    """Steps to half way, waits for the test, then finishes; a cancel ends it when let stop."""
    pace = PACE  # this test's, even if the run outlives it
    pace.runs.append(dict(params))
    context.step(0.5, "half way there")
    pace.half_way.set()
    while not pace.release.wait(0.01):
        if context.cancelled is not None and context.cancelled():
            pace.saw_cancel.set()
            pace.let_stop.wait(10)  # a run slow to stop, as a real one can be
            context.check()
    size = int(params["size"])
    return Outcome(
        answers=tuple(Answer(f"a{i}", f"answer line {i}", size * i) for i in range(40)),
        explanation="A long result, so that it has to be scrolled to.",
    )


def paced_estimate(params: Params) -> Cost:
    """size MiB and size/10 seconds."""
    size = int(params["size"])
    return Cost(peak_bytes=size * MIB, seconds=size / 10, drivers=("size",))


PACED = Experiment(
    name=NAME,
    title="A paced test experiment",
    summary="The test decides when it finishes.",
    params=(
        Param("size", "int", 10, "how big", low=1, high=100_000),
        Param("wide", "bool", False, "a switch"),
        Param("mode", "choice", "fast", "a choice", choices=("fast", "slow")),
    ),
    run=paced_run,
    estimate=paced_estimate,
)

INSTANT = Experiment(
    name=OTHER,
    title="An instant test experiment",
    summary="Finishes at once.",
    params=(Param("x", "float", 2.0, "a number", low=0),),
    run=lambda params, context: Outcome(
        answers=(Answer("double", "twice x", 2 * float(params["x"])),), explanation="Doubled."
    ),
)


def inline_runner(
    experiment: Experiment | str,
    params: Mapping[str, object],
    *,
    device: str,
    seed: int,
    progress: Callable[[float, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    budget: Budget | None = None,
) -> Result:
    """Run a registered test experiment in this process (no torch, so no budget fences)."""
    found = registry.get(experiment) if isinstance(experiment, str) else experiment
    values = validate(found, params)
    context = RunContext(device=device, seed=seed, progress=progress, cancelled=cancelled)
    outcome = found.run(values, context)
    return Result(
        name=found.name,
        params=values,
        seed=seed,
        device=device,
        torch_version=torch_version(),
        elapsed_s=0.0,
        outcome=outcome,
        machine="test",
    )


@pytest.fixture(autouse=True)
async def test_experiments(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    """Register the test experiments; CUDA is reported unusable unless a test says otherwise.

    Async, so that its teardown runs before the test's event loop closes: closing it waits
    for the worker threads, and a run held by `let_stop` would keep it waiting 10 s.
    """
    global PACE
    PACE = Pace()
    monkeypatch.setattr(availability, "cuda_status", lambda: "no GPU in the test machine")
    registry.register(PACED)
    registry.register(INSTANT)
    yield
    PACE.let_stop.set()
    registry.unregister(NAME)
    registry.unregister(OTHER)


async def open_screen(
    pilot: Pilot[None], app: StudykitApp, session: StudySession, **options: object
) -> ExperimentsScreen:
    await settle(pilot, lambda: at_home(app))
    screen = ExperimentsScreen(session, selected=NAME, runner=inline_runner, **options)  # type: ignore[arg-type]
    app.push_screen(screen)
    await settle(pilot, lambda: app.screen is screen and bool(screen.query("#param-size")))
    # The form fills its estimate as it mounts, a moment after its fields are there.
    await settle(pilot, lambda: bool(estimate_line(screen)))
    return screen


def status(screen: ExperimentsScreen) -> str:
    return plain(screen.query_one("#experiment-status", Static))


def estimate_line(screen: ExperimentsScreen) -> str:
    return plain(screen.query_one("#experiment-estimate", Static))


def run_button(screen: ExperimentsScreen) -> Button:
    return screen.query_one("#experiment-run", Button)


async def test_progress_bar_moves_with_the_step_text_and_the_result_scrolls_into_view(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, app, session)
        bar = screen.query_one("#experiment-progress", ProgressBar)
        assert not bar.display
        await pilot.press("ctrl+r")
        await settle(pilot, lambda: bar.progress == 0.5, steps=1000)
        assert bar.display and bar.percentage == 0.5
        # Drawn, not squeezed away, and scrolled into view with the step text below it.
        await settle(pilot, lambda: "50%" in screen_text(app) and "half way" in screen_text(app))
        assert "half way there" in status(screen)
        assert run_button(screen).disabled

        pane = screen.query_one("#experiment-pane")
        status_line = screen.query_one("#experiment-status")
        assert status_line.region.y > pane.region.y + 5  # scrolled into view, near the bottom
        PACE.release.set()
        await settle(pilot, lambda: status(screen) == "Done.", steps=1000)
        view = screen.query_one(ExperimentResultView)
        # The status line, with the result below it, comes up to the top of the pane.
        await settle(pilot, lambda: status_line.region.y == pane.region.y + 1)  # its margin
        assert not bar.display
        assert view.shown is not None and view.shown.answer("a1").value == 10
        assert "answer line 1" in screen_text(app)

        # PageDown scrolls the result even with the list focused; ↑/↓ stay with the list.
        experiment_list = screen.query_one(OptionList)
        experiment_list.focus()
        highlighted = experiment_list.highlighted
        before = pane.scroll_y
        await pilot.press("pagedown")
        await settle(pilot, lambda: pane.scroll_y > before)
        assert experiment_list.highlighted == highlighted
        await pilot.press("pageup")
        await settle(pilot, lambda: pane.scroll_y < before + 1)
        await pilot.press("down")
        await settle(pilot, lambda: experiment_list.highlighted == (highlighted or 0) + 1)


async def test_estimate_shown_as_you_type_and_run_disabled_over_budget(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        budget = Budget(bytes=100 * MIB, seconds=60)
        screen = await open_screen(pilot, app, session, budget=budget)
        assert estimate_line(screen) == "estimate: ~10 MiB, ~1.0 s"
        assert not run_button(screen).disabled

        screen.query_one("#param-size", Input).value = "500"
        await settle(pilot, lambda: run_button(screen).disabled)
        line = estimate_line(screen)
        assert line.startswith("estimate: ~500 MiB, ~50 s — over the budget")
        assert "lower size" in line and "--" not in line
        assert "over the budget" in screen_text(app)
        await pilot.press("ctrl+r")  # the key does not get round the disabled button
        await pilot.pause()
        assert screen.active is None and not PACE.runs
        assert "Not started" in status(screen)

        screen.query_one("#param-size", Input).value = "abc"
        await settle(pilot, lambda: "fix the parameters" in estimate_line(screen))
        assert run_button(screen).disabled
        screen.query_one("#param-size", Input).value = "20"
        await settle(pilot, lambda: not run_button(screen).disabled)
        assert estimate_line(screen) == "estimate: ~20 MiB, ~2.0 s"

        await choose(pilot, screen, OTHER)
        assert estimate_line(screen) == "estimate: unknown"
        assert not run_button(screen).disabled


async def choose(pilot: Pilot[None], screen: ExperimentsScreen, name: str) -> None:
    screen.query_one(OptionList).highlighted = list(screen.catalogue).index(name)
    await settle(pilot, lambda: screen.selected == name and bool(screen.query(".param-row")))
    await pilot.pause()


async def test_switches_selects_and_the_last_result_of_each_kept_when_switching(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(pilot, app, session)
        assert isinstance(screen.query_one("#param-wide"), Switch)
        mode = screen.query_one("#param-mode", Select)
        assert mode.value == "fast"
        screen.query_one("#param-wide", Switch).value = True
        mode.value = "slow"
        screen.query_one("#param-size", Input).value = "3"
        await pilot.pause()
        PACE.release.set()
        await pilot.press("ctrl+r")
        view = screen.query_one(ExperimentResultView)
        await settle(pilot, lambda: status(screen) == "Done.", steps=1000)
        assert PACE.runs == [{"size": 3, "wide": True, "mode": "slow"}]
        paced = view.shown
        assert paced is not None

        await choose(pilot, screen, OTHER)
        assert not view.display  # nothing run for this one yet
        await pilot.press("ctrl+r")
        await settle(pilot, lambda: status(screen) == "Done.", steps=1000)
        assert view.shown is not None and view.shown.answer("double").value == 4.0

        await choose(pilot, screen, NAME)
        assert view.display and view.shown is paced
        assert "Last result" in status(screen)
        assert screen.query_one("#param-size", Input).value == "3"  # the values it ran with
        assert screen.query_one("#param-wide", Switch).value is True

        await choose(pilot, screen, OTHER)
        assert view.shown is not None and view.shown.name == OTHER


async def test_cuda_not_offered_without_it_and_the_reason_shown(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(pilot, app, session)
        await settle(pilot, lambda: screen.cuda == "no GPU in the test machine")
        device = screen.query_one("#param-device", Select)
        assert [value for _, value in device._options] == ["auto", "cpu"]
        help_text = plain(screen.query_one("#device-help", Static))
        assert "no GPU in the test machine" in help_text and "--device" not in help_text
        assert "no GPU in the test machine" in screen_text(app)


async def test_cuda_offered_when_usable(
    make_session: MakeSession, small_library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(availability, "cuda_status", lambda: None)
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(pilot, app, session)
        device = screen.query_one("#param-device", Select)
        await settle(pilot, lambda: screen.cuda is None)
        assert [value for _, value in device._options] == ["auto", "cpu", "cuda"]


async def test_escape_during_a_run_cancels_and_escape_again_leaves_at_once(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(pilot, app, session)
        await pilot.press("ctrl+r")
        await settle(pilot, PACE.half_way.is_set, steps=1000)
        assert "Cancel run" in screen_text(app).splitlines()[-1]
        await pilot.press("escape")
        await settle(pilot, lambda: "Cancelling" in status(screen))
        assert app.screen is screen  # the first Escape asks the run to stop
        # The run has not noticed yet (it is slow to stop); Escape again leaves at once.
        await pilot.press("escape")
        await settle(pilot, lambda: at_home(app))
        assert PACE.saw_cancel.is_set()
        assert screen.active is not None  # left before the run ended
        PACE.let_stop.set()
        await pilot.pause(0.1)
        assert isinstance(app.screen, HomeScreen)  # its end, off screen, changes nothing


async def test_leaving_the_screen_mid_run_sets_the_cancel_flag(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_screen(pilot, app, session)
        await pilot.press("ctrl+r")
        await settle(pilot, PACE.half_way.is_set, steps=1000)
        app.pop_screen()  # e.g. a key bound by the app
        await settle(pilot, lambda: at_home(app))
        assert PACE.saw_cancel.wait(5)


async def test_quitting_the_app_mid_run_sets_the_cancel_flag(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_screen(pilot, app, session)
        await pilot.press("ctrl+r")
        await settle(pilot, PACE.half_way.is_set, steps=1000)
        await pilot.press("q")
        await pilot.pause()
    assert PACE.saw_cancel.wait(5)


async def test_a_failed_run_shows_the_error_on_screen(
    make_session: MakeSession, small_library: Library
) -> None:
    def failing_runner(*args: object, **kwargs: object) -> Result:
        raise OSError(28, "No space left on device")

    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: at_home(app))
        screen = ExperimentsScreen(session, selected=OTHER, runner=failing_runner)
        app.push_screen(screen)
        await settle(pilot, lambda: app.screen is screen and bool(screen.query("#param-x")))
        await pilot.press("ctrl+r")
        await settle(pilot, lambda: status(screen).startswith("Failed"))
        assert "No space left on device" in status(screen)
        assert screen.query_one("#experiment-status").has_class("-error")
        assert not run_button(screen).disabled  # another try is possible


async def test_a_run_finishing_while_another_experiment_is_shown_keeps_its_result(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(pilot, app, session)
        await pilot.press("ctrl+r")
        await settle(pilot, PACE.half_way.is_set, steps=1000)
        await choose(pilot, screen, OTHER)  # ↑/↓ still move through the list mid-run
        assert run_button(screen).disabled  # one run at a time
        PACE.release.set()
        await settle(pilot, lambda: f"{NAME} is done" in status(screen), steps=1000)
        view = screen.query_one(ExperimentResultView)
        assert not view.display  # not shown over the other experiment
        assert not run_button(screen).disabled
        await choose(pilot, screen, NAME)
        assert view.shown is not None and view.shown.name == NAME

"""The Experiments screen under Pilot: validate as you type, run to the end, cancel, cache."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import replace

import pytest
from rich.console import Console
from textual.widgets import Button, Input, OptionList, Static

from studykit.content.loading import Library
from studykit.core.config import Settings
from studykit.experiments import availability
from studykit.experiments.base import Result
from studykit.experiments.budget import Budget
from studykit.experiments.device import torch_version
from studykit.study.session import StudySession
from studykit.tui.app import make_app
from studykit.tui.screens.experiments import ExperimentsScreen
from studykit.tui.widgets.experiment_result import ExperimentResultView, answers_table
from tests.tui.helpers import at_home, plain, settle

pytest.importorskip("torch")

SIZE = (120, 60)
MakeSession = Callable[..., StudySession]


@pytest.fixture(autouse=True)
def no_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skip the CUDA probe (a separate Python importing torch): report CUDA unusable."""
    monkeypatch.setattr(availability, "cuda_status", lambda: "not asked in these tests")


async def open_experiments(pilot: object, app: object) -> ExperimentsScreen:
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    await settle(pilot, lambda: at_home(pilot.app))
    await pilot.press("e")
    await settle(pilot, lambda: isinstance(pilot.app.screen, ExperimentsScreen))
    screen = pilot.app.screen
    assert isinstance(screen, ExperimentsScreen)
    return screen


async def choose(pilot: object, screen: ExperimentsScreen, name: str) -> None:
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    screen.query_one(OptionList).highlighted = list(screen.catalogue).index(name)
    await settle(
        pilot,
        lambda: (
            bool(screen.query("#param-" + screen.catalogue[name].params[0].name))
            and screen.selected == name
        ),
    )


def status(screen: ExperimentsScreen) -> str:
    return plain(screen.query_one("#experiment-status", Static))


async def test_run_to_the_end_then_again_from_the_cache(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_experiments(pilot, app)
        await choose(pilot, screen, "positional-encoding")
        screen.query_one("#param-positions", Input).value = "16"
        screen.query_one("#param-d_model", Input).value = "8"
        await pilot.pause()
        await pilot.press("ctrl+r")
        view = screen.query_one(ExperimentResultView)
        await settle(pilot, lambda: status(screen) == "Done.", steps=2000)
        assert view.display
        assert view.shown is not None and not view.shown.cached
        console = Console(width=100, record=True, file=io.StringIO())
        console.print(answers_table(view.shown))
        assert "PE(0)·PE(0) (= d/2)" in console.export_text()
        explanation = plain(screen.query_one("#experiment-explanation", Static))
        assert "sirf distance k par depend" in explanation
        stored = session.cached_experiment(
            name="positional-encoding",
            params={"positions": 16, "d_model": 8, "base": 10_000.0, "pos": 1, "dim": 0, "pair": 0},
            seed=0,
            device="cpu",
            torch_version=torch_version(),
        )
        assert stored is not None and stored["answers"][0]["value"] == 4.0

        await pilot.press("ctrl+r")
        await settle(pilot, lambda: status(screen) == "From the cache.", steps=2000)
        assert "from the cache" in plain(screen.query_one("#experiment-provenance", Static))
        assert view.shown is not None and view.shown.cached
        assert view.shown.outcome == Result.from_json(stored).outcome


async def test_typing_an_invalid_value_disables_run_and_escape_cancels_a_run(
    make_session: MakeSession, small_library: Library, tmp_settings: Settings
) -> None:
    # The long run below is over the default budget; an hour lets it start, to cancel it.
    hour = replace(tmp_settings, experiment_budget=Budget(seconds=3600.0))
    session = make_session(small_library, settings=hour)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_experiments(pilot, app)
        gamma = screen.query_one("#param-gamma", Input)
        gamma.value = "1.5"
        await settle(pilot, lambda: screen.query_one("#experiment-run", Button).disabled)
        error = plain(screen.query_one("#error-gamma", Static))
        assert "parameter `gamma` must be a number, 0 < gamma < 1; got 1.5" in error
        assert gamma.has_class("-invalid")

        # Runs for millions of steps unless cancelled.
        gamma.value = "0.999999"
        screen.query_one("#param-threshold", Input).value = "0.000001"
        screen.query_one("#param-max_steps", Input).value = "10000000"
        await settle(pilot, lambda: not screen.query_one("#experiment-run", Button).disabled)
        await pilot.press("ctrl+r")
        await settle(pilot, lambda: "step" in status(screen), steps=2000)
        await pilot.press("escape")
        await settle(pilot, lambda: status(screen) == "Cancelled.", steps=2000)
        assert isinstance(app.screen, ExperimentsScreen)  # escape cancelled, did not go back
        assert not screen.query_one(ExperimentResultView).display
        await pilot.press("escape")
        await settle(pilot, lambda: at_home(app))

"""Pilot: `e` on a note section runs its linked experiment at once, with its parameters."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Input, Static

from studykit.content.loading import load_library
from studykit.core.config import Settings
from studykit.experiments import availability
from studykit.study.session import StudySession
from studykit.tui.app import make_app
from studykit.tui.messages import NotesRequested
from studykit.tui.screens.experiments import ExperimentsScreen
from studykit.tui.screens.notes import NotesScreen
from studykit.tui.widgets.experiment_result import ExperimentResultView

from .helpers import at_home, plain, screen_text, settle

SIZE = (120, 40)


@pytest.fixture(autouse=True)
def no_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skip the CUDA probe (a separate Python importing torch): report CUDA unusable."""
    monkeypatch.setattr(availability, "cuda_status", lambda: "not asked in these tests")


async def test_e_in_notes_runs_the_sections_experiment_at_once_with_its_params(
    make_session: Callable[..., StudySession], tmp_settings: Settings
) -> None:
    pytest.importorskip("torch")
    library = load_library(tmp_settings.root)
    note = library.notes["rnn-limitations"]
    section = note.section("effective-context")
    assert section is not None and section.experiment is not None
    linked_gamma = section.experiment.params["gamma"]
    session = make_session(library)
    app = make_app(tmp_settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        app.post_message(NotesRequested(note.id, "effective-context"))
        await settle(pilot, lambda: isinstance(app.screen, NotesScreen))
        line = app.screen.query_one("#section-effective-context .section-experiment", Static)
        assert "effective-context" in plain(line) and "press e" in plain(line)
        await pilot.press("e")
        await settle(pilot, lambda: isinstance(app.screen, ExperimentsScreen))
        screen = app.screen
        assert isinstance(screen, ExperimentsScreen)
        assert screen.selected == "effective-context"
        assert float(screen.query_one("#param-gamma", Input).value) == float(linked_gamma)
        # No Run pressed: the run started on opening and its result comes into view.
        view = screen.query_one(ExperimentResultView)
        await settle(pilot, lambda: view.shown is not None, steps=3000)
        assert view.shown is not None and view.shown.name == "effective-context"
        assert view.shown.params["gamma"] == float(linked_gamma)
        assert plain(screen.query_one("#experiment-status", Static)) in ("Done.", "From the cache.")
        footer = screen_text(app).splitlines()[-1]
        assert "Run" in footer and "Experiments" not in footer  # no key back to where we are


async def test_e_on_a_section_without_experiment_stays_on_notes(
    make_session: Callable[..., StudySession], tmp_settings: Settings
) -> None:
    library = load_library(tmp_settings.root)
    session = make_session(library)
    app = make_app(tmp_settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        app.post_message(NotesRequested("rnn-limitations", "overview"))
        await settle(pilot, lambda: isinstance(app.screen, NotesScreen))
        assert "section's experiment" in screen_text(app).splitlines()[-1]
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, NotesScreen)

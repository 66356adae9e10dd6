"""Experiments: pick one, set its parameters, run it in a worker, see the numbers and plot."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState, get_current_worker

from studykit.experiments.base import Cancelled, Experiment, Result, Value
from studykit.experiments.cache import ExperimentCache, run_cached
from studykit.experiments.registry import experiments
from studykit.tui.guard import describe_error
from studykit.tui.widgets.experiment_form import ExperimentForm
from studykit.tui.widgets.experiment_result import ExperimentResultView
from studykit.tui.widgets.title_bar import TitleBar

RUN_WORKER = "experiment-run"


class ExperimentsScreen(Screen[None]):
    """The nine experiments; results come from the session's cache when it has them."""

    SUB_TITLE = "Experiments"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel_or_back", "Cancel / back"),
        Binding("ctrl+r", "run", "Run"),
    ]

    def __init__(
        self,
        cache: ExperimentCache,
        *,
        selected: str | None = None,
        params: Mapping[str, Value] | None = None,
    ) -> None:
        super().__init__(id="experiments")
        self.cache = cache
        self.catalogue = experiments()
        self.selected = selected if selected in self.catalogue else next(iter(self.catalogue))
        self.initial = params if selected == self.selected else None
        self._stop_run = threading.Event()
        self._run_busy = False

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="experiments-body"):
            yield OptionList(
                *(Option(e.name, id=e.name) for e in self.catalogue.values()),
                id="experiment-list",
            )
            with VerticalScroll(id="experiment-pane"):
                yield Static("", id="experiment-title")
                yield Static("", id="experiment-summary", markup=False)
                yield ExperimentForm(
                    self.catalogue[self.selected], initial=self.initial, id="experiment-form"
                )
                with Horizontal(id="experiment-actions"):
                    yield Button("Run", id="experiment-run", variant="primary")
                    yield ProgressBar(total=1.0, id="experiment-progress", show_eta=False)
                yield Static("", id="experiment-status", markup=False)
                yield ExperimentResultView(id="experiment-result")
        yield Footer()

    def on_mount(self) -> None:
        option_list = self.query_one(OptionList)
        option_list.highlighted = list(self.catalogue).index(self.selected)
        self._describe(self.catalogue[self.selected])
        self.query_one(ExperimentResultView).show(None)
        self.query_one("#experiment-progress", ProgressBar).display = False

    def _describe(self, experiment: Experiment) -> None:
        self.query_one("#experiment-title", Static).update(
            f"[b]{experiment.title}[/b]  ({experiment.name})"
        )
        self.query_one("#experiment-summary", Static).update(experiment.summary)

    @on(OptionList.OptionHighlighted, "#experiment-list")
    async def _pick(self, event: OptionList.OptionHighlighted) -> None:
        name = event.option.id
        if name is None or name == self.selected or self._run_busy:
            return
        self.selected = name
        experiment = self.catalogue[name]
        self._describe(experiment)
        old = self.query_one(ExperimentForm)
        await old.remove()
        await self.query_one("#experiment-pane").mount(
            ExperimentForm(experiment, id="experiment-form"), before="#experiment-actions"
        )
        self.query_one("#experiment-run", Button).disabled = False
        self.query_one("#experiment-status", Static).update("")
        self.query_one(ExperimentResultView).show(None)

    @on(ExperimentForm.Validity)
    def _validity(self, event: ExperimentForm.Validity) -> None:
        self.query_one("#experiment-run", Button).disabled = not event.valid or self._run_busy

    @on(Button.Pressed, "#experiment-run")
    def _run_pressed(self) -> None:
        self.action_run()

    def action_run(self) -> None:
        """Start the selected experiment with the form's values (cached results show at once)."""
        if self._run_busy:
            return
        values = self.query_one(ExperimentForm).values()
        if values is None:
            self.query_one("#experiment-status", Static).update("Fix the parameters first.")
            return
        params, device, seed = values
        self._stop_run.clear()
        self._run_busy = True
        self.query_one("#experiment-run", Button).disabled = True
        bar = self.query_one("#experiment-progress", ProgressBar)
        bar.display = True
        bar.update(progress=0.0)
        self.query_one("#experiment-status", Static).update(
            f"Running {self.selected} on {device}… (Escape cancels)"
        )
        self.run_selected(self.selected, params, device, seed)

    @work(thread=True, exclusive=True, exit_on_error=False, group="experiment", name=RUN_WORKER)
    def run_selected(
        self, name: str, params: dict[str, object], device: str, seed: int
    ) -> Result | None:
        """Run (or fetch from the cache) off the UI thread; None when cancelled."""
        worker = get_current_worker()

        def progress(fraction: float, message: str) -> None:
            self.app.call_from_thread(self._progress, fraction, message)

        def cancelled() -> bool:
            return self._stop_run.is_set() or worker.is_cancelled

        try:
            return run_cached(
                self.cache,
                name,
                params,
                device=device,
                seed=seed,
                progress=progress,
                cancelled=cancelled,
            )
        except Cancelled:
            return None

    def _progress(self, fraction: float, message: str) -> None:
        self.query_one("#experiment-progress", ProgressBar).update(progress=fraction)
        if message:
            self.query_one("#experiment-status", Static).update(
                f"Running {self.selected}: {message}… (Escape cancels)"
            )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.name != RUN_WORKER or event.state not in (
            WorkerState.SUCCESS,
            WorkerState.ERROR,
            WorkerState.CANCELLED,
        ):
            return
        self._run_busy = False
        self.query_one("#experiment-run", Button).disabled = bool(
            self.query_one(ExperimentForm).errors
        )
        self.query_one("#experiment-progress", ProgressBar).display = False
        status = self.query_one("#experiment-status", Static)
        result = event.worker.result if event.state == WorkerState.SUCCESS else None
        if isinstance(result, Result):
            status.update("From the cache." if result.cached else "Done.")
            self.query_one(ExperimentResultView).show(result)
        elif event.state == WorkerState.ERROR and event.worker.error is not None:
            status.update(f"Failed: {describe_error(event.worker.error)}")
        else:
            status.update("Cancelled.")

    def action_cancel_or_back(self) -> None:
        """Escape cancels a running experiment; otherwise it goes back."""
        if self._run_busy:
            self._stop_run.set()
            self.query_one("#experiment-status", Static).update("Cancelling…")
            return
        self.app.pop_screen()

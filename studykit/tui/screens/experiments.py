"""Experiments: pick one, set its parameters, run it in a worker, see the numbers and plot."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState, get_current_worker

from studykit.core.errors import describe_error
from studykit.experiments import availability
from studykit.experiments.base import (
    Cancelled,
    DeviceUnavailable,
    Experiment,
    Params,
    Result,
    Value,
)
from studykit.experiments.budget import Budget, describe_cost
from studykit.experiments.cache import ExperimentCache, Runner, run_cached
from studykit.experiments.process import prewarm_if_useful
from studykit.experiments.registry import experiments
from studykit.tui.guard import GuardedHandlers
from studykit.tui.screens import SCREENS_CSS
from studykit.tui.screens.sizing import SizedScreen
from studykit.tui.widgets.experiment_form import CUDA_CHECKING, ExperimentForm
from studykit.tui.widgets.experiment_result import ExperimentResultView
from studykit.tui.widgets.footer import StudyFooter
from studykit.tui.widgets.title_bar import TitleBar

RUN_WORKER = "experiment-run"
CUDA_WORKER = "cuda-probe"


_CUDA_PROBE = threading.Lock()


def cuda_reason() -> str | None:
    """The CUDA probe's answer; a second thread asking waits for the first instead of probing."""
    with _CUDA_PROBE:
        return availability.cuda_status()


def resolve_device(choice: str) -> str:
    """`cpu` or `cuda` for the form's choice, asking the cached CUDA probe (never torch here)."""
    if choice == "cpu":
        return "cpu"
    reason = cuda_reason()
    if reason is None:
        return "cuda"
    if choice == "cuda":
        raise DeviceUnavailable(f"CUDA cannot be used here: {reason}")
    return "cpu"


class ProgressRelay:
    """Hands a run's latest progress to the screen, with at most one message in flight."""

    def __init__(self, screen: ExperimentsScreen) -> None:
        self._screen = screen
        self._lock = threading.Lock()
        self._latest: tuple[float, str] | None = None
        self._in_flight = False

    def __call__(self, fraction: float, text: str) -> None:
        """Called on the run's thread for every step; posts only when none is pending."""
        with self._lock:
            self._latest = (fraction, text)
            post, self._in_flight = not self._in_flight, True
        if post:
            self._screen.post_message(RunProgress(self))

    def take(self) -> tuple[float, str] | None:
        """The newest (fraction, text), on the UI thread; the next step may post again."""
        with self._lock:
            self._in_flight = False
            return self._latest


@dataclass
class RunProgress(Message):
    """A run moved on; read the newest step from `relay`."""

    relay: ProgressRelay


@dataclass
class ActiveRun:
    """The run in progress: which experiment, its cancel flag and its progress relay."""

    name: str
    relay: ProgressRelay
    stop: threading.Event = field(default_factory=threading.Event)

    @property
    def cancelling(self) -> bool:
        """A cancel was asked for and the run has not ended yet."""
        return self.stop.is_set()


class ExperimentList(GuardedHandlers, OptionList):
    """The experiments; ↑/↓ pick one, PageUp/PageDown scroll the result instead of the list."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("pagedown", "screen.page_result(1)", "Scroll result", show=False),
        Binding("pageup", "screen.page_result(-1)", "Scroll result", show=False),
    ]


class ExperimentsScreen(SizedScreen, GuardedHandlers, Screen[None]):
    """The experiments; a run shows its progress, and its result stays while you switch."""

    CSS_PATH = SCREENS_CSS

    SUB_TITLE = "Experiments"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("escape", "cancel_run", "Cancel run"),
        Binding("escape", "leave", "Leave (run stops)"),
        Binding("ctrl+r", "run", "Run"),
        Binding("pagedown", "page_result(1)", "Scroll", show=False),
        Binding("pageup", "page_result(-1)", "Scroll", show=False),
    ]

    def __init__(
        self,
        cache: ExperimentCache,
        *,
        selected: str | None = None,
        params: Mapping[str, Value] | None = None,
        run: bool = False,
        budget: Budget | None = None,
        runner: Runner | None = None,
    ) -> None:
        super().__init__(id="experiments")
        self.cache = cache
        self.budget = budget or Budget()
        self.runner = runner  # None: run_cached's own (the child-process runner)
        self.catalogue = experiments()
        self.selected = selected if selected in self.catalogue else next(iter(self.catalogue))
        self.run_at_once = run and selected == self.selected
        self.used: dict[str, Params] = {}  # the values each experiment last ran (or opened) with
        if params is not None and selected == self.selected:
            self.used[self.selected] = dict(params)
        self.results: dict[str, Result] = {}  # the last result of each, while the screen lives
        self.cuda: str | None = CUDA_CHECKING
        self.active: ActiveRun | None = None

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="experiments-body"):
            yield ExperimentList(
                *(Option(e.name, id=e.name) for e in self.catalogue.values()),
                id="experiment-list",
            )
            with VerticalScroll(id="experiment-pane"):
                yield Static("", id="experiment-title")
                yield Static("", id="experiment-summary", markup=False)
                yield self._form(self.catalogue[self.selected])
                with Horizontal(id="experiment-actions"):
                    yield Button("Run", id="experiment-run", variant="primary")
                    yield ProgressBar(total=1.0, id="experiment-progress", show_eta=False)
                yield Static("", id="experiment-status", markup=False)
                yield ExperimentResultView(id="experiment-result")
        yield StudyFooter()

    def _form(self, experiment: Experiment) -> ExperimentForm:
        return ExperimentForm(
            experiment,
            initial=self.used.get(experiment.name),
            budget=self.budget,
            cuda=self.cuda,
            id="experiment-form",
        )

    def on_mount(self) -> None:
        option_list = self.query_one(ExperimentList)
        option_list.highlighted = list(self.catalogue).index(self.selected)
        option_list.focus()
        self._describe(self.catalogue[self.selected])
        self.query_one(ExperimentResultView).show(None)
        self.query_one("#experiment-progress", ProgressBar).display = False
        if self.runner is None:
            prewarm_if_useful()  # the first Run then starts in milliseconds, not seconds
        self.probe_cuda()
        if self.run_at_once:
            self.call_after_refresh(self.action_run)

    def on_unmount(self) -> None:
        """Leaving the screen (or quitting the app) cancels the run in progress."""
        if self.active is not None:
            self.active.stop.set()

    # -- the list and the form -------------------------------------------------

    def _describe(self, experiment: Experiment) -> None:
        self.query_one("#experiment-title", Static).update(
            f"[b]{experiment.title}[/b]  ({experiment.name})"
        )
        self.query_one("#experiment-summary", Static).update(experiment.summary)

    @on(OptionList.OptionHighlighted, "#experiment-list")
    async def _pick(self, event: OptionList.OptionHighlighted) -> None:
        name = event.option.id
        if name is None or name == self.selected:
            return
        self.selected = name
        experiment = self.catalogue[name]
        self._describe(experiment)
        old = self._shown_form()
        if old is not None:
            await old.remove()
        if not self.is_attached:
            return  # the screen was left while the old form went
        await self.query_one("#experiment-pane").mount(
            self._form(experiment), before="#experiment-actions"
        )
        kept = self.results.get(name)
        self.query_one(ExperimentResultView).show(kept)
        if self.active is None:
            self._status("Last result from this visit." if kept else "")
        self._update_run_button()

    @on(ExperimentForm.Changed)
    def _form_changed(self, event: ExperimentForm.Changed) -> None:
        self._update_run_button()

    def _shown_form(self) -> ExperimentForm | None:
        """The form on screen; None while `_pick` swaps it for the next one (or on leaving)."""
        return next(iter(self.query(ExperimentForm)), None)

    def _update_run_button(self) -> None:
        form = self._shown_form()
        if form is None:
            return  # the next form says when it is mounted (ExperimentForm.Changed)
        self.query_one("#experiment-run", Button).disabled = (
            self.active is not None or not form.runnable
        )

    def _status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#experiment-status", Static)
        status.update(text)
        status.set_class(error, "-error")

    @work(thread=True, exit_on_error=False, group="cuda", name=CUDA_WORKER)
    def probe_cuda(self) -> str | None:
        """Ask (once per process, in a separate Python) whether CUDA can be used."""
        return cuda_reason()

    # -- running ---------------------------------------------------------------

    @on(Button.Pressed, "#experiment-run")
    def _run_pressed(self) -> None:
        self.action_run()

    def action_run(self) -> None:
        """Start the selected experiment with the form's values (cached results show at once)."""
        if self.active is not None:
            return
        form = self._shown_form()
        if form is None:
            self._status("Not started: the form was being switched; run it again.", error=True)
            return
        values = form.values()
        if values is None:
            self._status("Fix the parameters first.", error=True)
            return
        if form.problem is not None:
            self._status(f"Not started: {form.problem}.", error=True)
            return
        params, device, seed = values
        self.used[self.selected] = params
        self.active = ActiveRun(self.selected, ProgressRelay(self))
        self._update_run_button()
        self.refresh_bindings()
        bar = self.query_one("#experiment-progress", ProgressBar)
        bar.update(total=1.0, progress=0.0)
        bar.display = True
        cost = f" (estimate {describe_cost(form.cost)})" if form.cost else ""
        self._status(f"Starting {self.selected} on {self._where(device)}{cost}…")
        self.call_after_refresh(self._scroll_to_progress)
        self.run_experiment(self.active, params, device, seed)

    def _where(self, device: str) -> str:
        """The device a run will use, in words, as far as the CUDA probe has told us."""
        if device != "auto" or self.cuda == CUDA_CHECKING:
            return device
        return "auto: cuda" if self.cuda is None else "auto: cpu"

    @work(thread=True, exit_on_error=False, group="experiment", name=RUN_WORKER)
    def run_experiment(
        self, run: ActiveRun, params: Params, device: str, seed: int
    ) -> Result | None:
        """Run (or fetch from the cache) off the UI thread; None when cancelled."""
        worker = get_current_worker()

        def cancelled() -> bool:
            return run.stop.is_set() or worker.is_cancelled

        call = run_cached if self.runner is None else partial(run_cached, runner=self.runner)
        try:
            return call(
                self.cache,
                run.name,
                params,
                device=resolve_device(device),
                seed=seed,
                progress=run.relay,
                cancelled=cancelled,
                budget=self.budget,
            )
        except Cancelled:
            return None

    @on(RunProgress)
    def _progress(self, event: RunProgress) -> None:
        latest = event.relay.take()
        if self.active is None or event.relay is not self.active.relay or latest is None:
            return
        fraction, text = latest
        self.query_one("#experiment-progress", ProgressBar).update(progress=fraction)
        if not self.active.cancelling:
            step = f": {text}" if text else ""
            self._status(f"Running {self.active.name}{step}  (Escape cancels)")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        if event.worker.name == CUDA_WORKER:
            self._cuda_known(event.worker)
        elif event.worker.name == RUN_WORKER:
            self._run_ended(event.worker)

    def _cuda_known(self, worker: Worker[object]) -> None:
        if worker.state == WorkerState.SUCCESS:
            result = worker.result
            self.cuda = result if isinstance(result, str) else None
        else:
            self.cuda = f"could not check for CUDA: {describe_error(worker.error or Exception())}"
        form = self._shown_form()
        if form is not None:  # else the next form is made with self.cuda
            form.set_cuda(self.cuda)

    def _run_ended(self, worker: Worker[object]) -> None:
        run, self.active = self.active, None
        self.refresh_bindings()
        self._update_run_button()
        self.query_one("#experiment-progress", ProgressBar).display = False
        result = worker.result if worker.state == WorkerState.SUCCESS else None
        if isinstance(result, Result) and run is not None:
            self.results[run.name] = result
            if run.name == self.selected:
                self._status("From the cache." if result.cached else "Done.")
                self.query_one(ExperimentResultView).show(result)
                self._scroll_to_result()
            else:
                self._status(f"{run.name} is done; its result is kept under its name.")
        elif worker.state == WorkerState.ERROR:
            self._status(f"Failed: {describe_error(worker.error or Exception())}", error=True)
        else:
            self._status("Cancelled.")

    def _scroll_to_progress(self) -> None:
        """Make sure the Run row, the bar and the step text below it can be seen."""
        self.query_one("#experiment-pane", VerticalScroll).scroll_to_widget(
            self.query_one("#experiment-status"), animate=False
        )

    def _scroll_to_result(self, tries: int = 30) -> None:
        """Bring the status line and the result below it to the top of the pane."""
        pane = self.query_one("#experiment-pane", VerticalScroll)
        status = self.query_one("#experiment-status")
        if pane.max_scroll_y < status.virtual_region.y and tries:
            # The pane is laid out with the new result on a later frame: look again then.
            self.set_timer(1 / 30, partial(self._scroll_to_result, tries - 1))
            return
        pane.scroll_to_widget(status, animate=False, top=True, immediate=True)

    def action_page_result(self, direction: int) -> None:
        """PageUp/PageDown scroll the form and result pane, wherever the focus is."""
        pane = self.query_one("#experiment-pane", VerticalScroll)
        if direction > 0:
            pane.scroll_page_down(animate=False)
        else:
            pane.scroll_page_up(animate=False)

    # -- leaving ---------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape backs out when idle, cancels a run, and leaves at once while cancelling."""
        if action == "back":
            return self.active is None
        if action == "cancel_run":
            return self.active is not None and not self.active.cancelling
        if action == "leave":
            return self.active is not None and self.active.cancelling
        return True

    def action_back(self) -> None:
        """Back to the previous screen."""
        self.dismiss()

    def action_cancel_run(self) -> None:
        """Ask the run to stop; the screen can be left at once with Escape again."""
        if self.active is None:
            return
        self.active.stop.set()
        self.refresh_bindings()
        self._status(f"Cancelling {self.active.name}…  (Escape again leaves now)")

    def action_leave(self) -> None:
        """Leave while a cancel is under way; the run stops in the background."""
        if self.active is not None:
            self.active.stop.set()
        self.dismiss()

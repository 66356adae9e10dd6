"""Beside a computed card's expected value: what its linked experiment measured (cached or run)."""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import ProgressBar, Static
from textual.worker import Worker, WorkerState, get_current_worker

from studykit.experiments.base import ExperimentError, TorchMissing
from studykit.quiz.measured import Measured, measurable, measure
from studykit.quiz.variants import Variant
from studykit.study.session import StudySession
from studykit.tui.guard import GuardedHandlers, LoudWorkers

MEASURE_WORKER = "measure-experiment"
MEASURE_GROUP = "measure"


class MeasuredValue(GuardedHandlers, LoudWorkers, Vertical):
    """Hidden until a revealed card links an experiment answer; then a progress bar, the value."""

    worker_titles: ClassVar[dict[str, str]] = {MEASURE_WORKER: "Could not measure the value"}

    def shown_inline(self, error: BaseException) -> bool:
        """Experiment errors are said beside the value; without torch nothing is shown."""
        return isinstance(error, ExperimentError | TorchMissing)

    def __init__(self, session: StudySession, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session
        self.variant: Variant | None = None
        self.measured: Measured | None = None
        self._worker: Worker[tuple[Variant, Measured | None]] | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="measured-text", markup=False)
        yield ProgressBar(total=1.0, show_eta=False, id="measured-progress")

    def reset(self) -> None:
        """A new card: forget the last one, stop its run."""
        self.workers.cancel_group(self, MEASURE_GROUP)
        self.variant = None
        self.measured = None
        self._worker = None
        self.set_classes("")

    def show_for(self, variant: Variant | None) -> None:
        """After reveal: the cached value at once, or a run in a worker with a progress bar."""
        self.reset()
        if variant is None or not measurable(variant):
            return
        self.variant = variant
        assert variant.card.experiment is not None
        self.query_one("#measured-text", Static).update(
            f"measuring… (experiment {variant.card.experiment.name}, cpu)"
        )
        self.query_one(ProgressBar).update(progress=0.0)
        self.set_classes("-shown -running")
        self._worker = self.run_measure(variant)

    @work(
        thread=True, exclusive=True, exit_on_error=False, group=MEASURE_GROUP, name=MEASURE_WORKER
    )
    def run_measure(self, variant: Variant) -> tuple[Variant, Measured | None]:
        """Cache lookup first; otherwise run on cpu and cache through the session."""
        worker = get_current_worker()

        def progress(fraction: float, _message: str) -> None:
            self.app.call_from_thread(self._progress, variant, fraction)

        found = measure(
            variant,
            self.session,
            progress=progress,
            cancelled=lambda: worker.is_cancelled,
            budget=self.session.settings.experiment_budget,
        )
        return variant, found

    def _progress(self, variant: Variant, fraction: float) -> None:
        if variant is self.variant:
            self.query_one(ProgressBar).update(progress=fraction)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.name != MEASURE_WORKER:
            return
        event.stop()
        if event.worker is not self._worker:
            return  # a run for a card that is no longer shown
        text = self.query_one("#measured-text", Static)
        if event.state == WorkerState.SUCCESS:
            outcome = event.worker.result
            if not isinstance(outcome, tuple):
                return
            self.measured = outcome[1]
            if self.measured is None:
                self.set_classes("")
                return
            text.update(self.measured.text())
            self.set_classes("-shown")
        elif event.state == WorkerState.ERROR:
            error = event.worker.error
            if isinstance(error, TorchMissing) or not isinstance(error, ExperimentError):
                self.set_classes("")  # nothing extra without torch; others: LoudWorkers' dialog
                return
            text.update(f"not measured: {error}")
            self.set_classes("-shown")

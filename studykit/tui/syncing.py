"""Home's `y` (Anki's key): one `studykit sync` in a thread worker, a progress line under the
decks, and the counts again when it is done. `anki` is imported inside the worker only."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from studykit.core.errors import StudykitError, describe_error
from studykit.tui.guard import LoudWorkers

if TYPE_CHECKING:
    from studykit.study.session import StudySession
    from studykit.sync.report import SyncReport

SYNC_WORKER = "anki-sync"
SYNC_LINE = "#sync-line"


def summary(report: SyncReport) -> str:
    """One line: what moved, and how many conflicts are open."""
    moved = (
        f"{report.answers_in} answer(s) in, {report.answers_out} out"
        f"{', full ' + report.full if report.full else ''}"
    )
    if report.notes_added or report.notes_updated:
        moved += f", notes {report.notes_added} added, {report.notes_updated} updated"
    if report.conflicts:
        moved += f"; {len(report.conflicts)} conflict(s): `studykit sync status` lists them"
    if not report.fsrs:
        moved += "; FSRS is off in Anki (`studykit sync --enable-fsrs`)"
    return f"Synced at {datetime.now():%H:%M}: {moved}."


class HomeSync(LoudWorkers, Screen[None]):
    """Home's part that syncs: the worker, its progress line and its outcome."""

    @property
    def session(self) -> StudySession:
        """Home's open session."""
        raise NotImplementedError

    worker_titles: ClassVar[dict[str, str]] = {SYNC_WORKER: "The sync failed"}

    def refresh_decks(self) -> None:
        """Count the decks again (home's own)."""
        raise NotImplementedError

    def _sync_line(self, text: str) -> None:
        line = self.query_one(SYNC_LINE, Static)
        line.display = bool(text)
        line.update(text)

    def _sync_running(self) -> bool:
        return any(w.name == SYNC_WORKER and w.is_running for w in self.workers)

    def action_sync(self) -> None:
        """Sync with Anki (`studykit sync login` first)."""
        if self._sync_running():
            self.notify("A sync is running.", timeout=3)
            return
        self._sync_line("Sync: starting…")
        self.run_sync(yes=False)

    @work(thread=True, exclusive=True, exit_on_error=False, group="sync", name=SYNC_WORKER)
    def run_sync(self, *, yes: bool) -> SyncReport:
        """One sync off the UI thread; each step shows on the progress line."""
        from studykit.sync.account import SyncPaths
        from studykit.sync.run import SyncOptions, run_sync

        session = self.session
        paths = SyncPaths.in_data_dir(session.settings.data_dir)
        app = self.app

        def progress(text: str) -> None:
            app.call_from_thread(self._sync_line, f"Sync: {text}")

        return run_sync(session, paths, SyncOptions(yes=yes, progress=progress))

    def shown_inline(self, error: BaseException) -> bool:
        """A sync error a user can act on shows on the progress line (and as a notice)."""
        return isinstance(error, StudykitError)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker: Worker[Any] = event.worker
        if worker.name != SYNC_WORKER or event.state not in (
            WorkerState.SUCCESS,
            WorkerState.ERROR,
        ):
            return
        if event.state == WorkerState.SUCCESS:
            report = worker.result
            if report is None:
                return
            self._sync_line(summary(report))
            self.refresh_decks()
            from studykit.sync.report import FSRS_OFF

            lines = [line for line in report.lines() if line != FSRS_OFF][:8]
            self.notify("\n".join(lines), title="Anki sync", timeout=10, markup=False)
            return
        error = worker.error
        if error is None or not isinstance(error, StudykitError):
            self._sync_line("")
            return
        from studykit.sync.errors import UploadDeclined

        if isinstance(error, UploadDeclined):
            self._ask_to_upload(error.question)
            return
        message = describe_error(error)
        self._sync_line(f"Sync failed: {message}")
        self.notify(message, title="Anki sync", severity="error", timeout=10, markup=False)

    def _ask_to_upload(self, question: str) -> None:
        from studykit.tui.screens.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self._sync_line("Sync: uploading…")
                self.run_sync(yes=True)
            else:
                self._sync_line("Sync: nothing was uploaded (the server holds no collection).")

        self.app.push_screen(ConfirmScreen(question, yes="Upload"), answered)

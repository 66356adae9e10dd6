"""Turning errors a user can act on into a message on screen instead of a traceback."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from textual.dom import DOMNode
from textual.worker import Worker, WorkerState

from studykit.core.errors import StudykitError

USER_ERRORS: tuple[type[BaseException], ...] = (StudykitError, sqlite3.Error, OSError)


def describe_error(error: BaseException) -> str:
    """One or two lines saying what went wrong, for a user."""
    if isinstance(error, StudykitError):
        return str(error)
    if isinstance(error, sqlite3.Error):
        return f"The study database failed: {error}"
    if isinstance(error, OSError) and error.strerror:
        where = f": {error.filename}" if error.filename else ""
        return f"{error.strerror}{where}"
    return f"Unexpected error ({type(error).__name__}): {error}"


@contextmanager
def shown_on_screen(node: DOMNode, title: str) -> Iterator[None]:
    """Run a block; a user-facing error in it becomes an error dialog and ends the block."""
    try:
        yield
    except USER_ERRORS as error:
        from studykit.tui.screens.error import ErrorScreen

        node.app.push_screen(ErrorScreen(title, describe_error(error)))


class LoudWorkers:
    """Mixin for widgets and screens: a worker of theirs that fails is shown, never swallowed."""

    # Worker.StateChanged does not bubble, so the app never sees it; this turns an error into
    # a WorkerFailed message, which does. Textual calls this beside the class's own handler.
    WORKER_FAILED_TITLE = "Something went wrong"

    def shown_inline(self, error: BaseException) -> bool:
        """True for an error the widget itself shows in place (no dialog then)."""
        return False

    def _on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        from studykit.tui.messages import WorkerFailed

        error = event.worker.error
        if event.state == WorkerState.ERROR and error is not None and not self.shown_inline(error):
            assert isinstance(self, DOMNode)
            title = getattr(self, "worker_titles", {}).get(event.worker.name, "")
            self.post_message(WorkerFailed(title or self.WORKER_FAILED_TITLE, error))

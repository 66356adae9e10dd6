"""Turning errors a user can act on into a message on screen instead of a traceback."""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.dom import DOMNode
from textual.worker import Worker, WorkerState

from studykit.core.errors import USER_ERRORS, describe_error

ERROR_LOG = "errors.log"
"""In the data dir: the tracebacks of errors the app caught and carried on from."""
ERROR_LOG_BYTES = 1 << 20
"""Past this size the log moves to `errors.log.1` (replacing it) and starts again."""
CARRY_ON_LIMIT = 100
"""Errors the app shows and carries on from; past this many (a loop that fails on every
frame), Textual's own policy ends it."""

if TYPE_CHECKING:
    from textual.message import Message
    from textual.message_pump import MessagePump

    _Pump = MessagePump
else:
    _Pump = object


@contextmanager
def shown_on_screen(node: DOMNode, title: str) -> Iterator[None]:
    """Run a block; a user-facing error in it becomes an error dialog and ends the block."""
    try:
        yield
    except USER_ERRORS as error:
        show_error(node.app, title, describe_error(error))


def show_error(app: App[Any], title: str, message: str) -> None:
    """An error dialog; while one is open, the next error comes as a notification instead
    (one dialog at a time, and Textual refuses two screens with one id)."""
    from studykit.tui.screens.error import ErrorScreen

    if any(isinstance(screen, ErrorScreen) for screen in app.screen_stack):
        app.notify(message, title=title, severity="error", timeout=10, markup=False)
    else:
        app.push_screen(ErrorScreen(title, message))


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


class GuardedHandlers(_Pump):
    """Mixin for the app, its screens and widgets: an exception in one of their handlers (a
    key's action, a click, a message) is shown in a dialog, and the app and the widget go on.

    Textual ends the app on such an exception, and a widget whose handler raised stops
    handling messages for good: no input may do either here.
    """

    async def _dispatch_message(self, message: Message) -> None:
        try:
            await super()._dispatch_message(message)
        except Exception as error:
            carry_on = getattr(self.app, "carry_on_after", None)
            if carry_on is None:  # not in a studykit app: Textual's own policy
                raise
            carry_on(error)


def log_error(data_dir: Path, error: BaseException) -> Path | None:
    """Append `error`'s traceback to the data dir's error log; its path, or None if unwritable."""
    path = data_dir / ERROR_LOG
    lines = traceback.format_exception(type(error), error, error.__traceback__)
    entry = f"--- {datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC\n{''.join(lines)}"
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > ERROR_LOG_BYTES:
            path.replace(path.with_name(ERROR_LOG + ".1"))
        with path.open("a", encoding="utf-8") as log:
            log.write(entry)
    except OSError:
        return None
    return path


def carry_on(app: App[Any], error: Exception, data_dir: Path) -> None:
    """What the app does after a handler raised `error`: log its traceback, say so in a
    dialog (one at a time, however many keys fail), and go on."""
    from studykit.tui.screens.error import ErrorScreen

    if app._exception is None:
        # Pilot's run_test raises this when a test ends (nothing else reads it): a test
        # still fails on an error that the app carried on from.
        app._exception = error
    logged = log_error(data_dir, error)
    if any(isinstance(screen, ErrorScreen) for screen in app.screen_stack):
        return
    where = f" Its details are in {logged}." if logged is not None else ""
    message = f"{describe_error(error)}\n\nThe app carries on.{where}"
    app.push_screen(ErrorScreen("Something went wrong", message))

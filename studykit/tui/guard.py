"""Handlers that never end the app: the mixins that turn a handler's or a worker's error into
a message, and the error log (the dialog that shows them is `screens/error.py`)."""

from __future__ import annotations

import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.dom import DOMNode
from textual.screen import Screen
from textual.worker import Worker, WorkerState

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
        if isinstance(message, events.Mount) and self._quit_before_composed():
            return  # nothing to set up on a screen that will never show
        try:
            await super()._dispatch_message(message)
        except Exception as error:
            carry_on = getattr(self.app, "carry_on_after", None)
            if carry_on is None:  # not in a studykit app: Textual's own policy
                raise
            carry_on(error)

    def _quit_before_composed(self) -> bool:
        """A screen the app quit under before it composed: Textual mounts it without its
        widgets, and its mount handlers would fail on them."""
        return isinstance(self, Screen) and self.app._exit and not self.children


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

"""A dialog with an error message written for the user (never a traceback), and the ways
errors reach it: a block's user error, a failed worker, a handler that raised."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from studykit.core.errors import USER_ERRORS, describe_error
from studykit.tui.guard import GuardedHandlers, log_error
from studykit.tui.screens.sizing import SizedScreen


class ErrorScreen(SizedScreen, GuardedHandlers, ModalScreen[None]):
    """What went wrong and a button to carry on."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("enter", "close", "Close", show=False),
    ]

    def __init__(self, title: str, message: str) -> None:
        super().__init__(id="error")
        self.title_text = title
        self.message = message

    def compose(self) -> ComposeResult:
        with Vertical(id="error-box"):
            yield Static(self.title_text, id="error-title")
            yield Static(self.message, id="error-message", markup=False)
            yield Button("OK", id="error-ok", variant="error")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss()

    def action_close(self) -> None:
        self.dismiss()


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
    if any(isinstance(screen, ErrorScreen) for screen in app.screen_stack):
        app.notify(message, title=title, severity="error", timeout=10, markup=False)
    else:
        app.push_screen(ErrorScreen(title, message))


def carry_on(app: App[Any], error: Exception, data_dir: Path) -> None:
    """What the app does after a handler raised `error`: log its traceback, say so in a
    dialog (one at a time, however many keys fail), and go on."""
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

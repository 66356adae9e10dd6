"""Shown when the study session cannot open: why, and `r` to try again (loading then)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import LoadingIndicator, Static

from studykit.tui.guard import GuardedHandlers
from studykit.tui.messages import ReloadRequested
from studykit.tui.screens.sizing import SizedScreen
from studykit.tui.widgets.footer import StudyFooter
from studykit.tui.widgets.title_bar import TitleBar


class LoadingScreen(SizedScreen, GuardedHandlers, Screen[None]):
    """Why opening failed; on retry, a loading indicator until it opens or fails again."""

    SUB_TITLE = "Loading"
    FAILED_SUB_TITLE = "Could not open"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "retry", "Retry"),
    ]

    def __init__(self, *, error: str | None = None) -> None:
        super().__init__(id="loading")
        self.failed = False
        self._error = error  # shown as soon as the screen is up

    def on_mount(self) -> None:
        if self._error is not None:
            self.show_error(self._error)

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Center(), Vertical(id="loading-box"):
            yield Static("Loading your decks…", id="loading-text")
            yield LoadingIndicator(id="loading-indicator")
            yield Static("", id="loading-error", markup=False)
        yield StudyFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "retry":
            return self.failed
        return True

    def show_error(self, message: str) -> None:
        """Replace the indicator with what went wrong."""
        self.failed = True
        self._retitle(self.FAILED_SUB_TITLE)
        self.query_one("#loading-text", Static).update("Could not open your study data.")
        self.query_one("#loading-indicator").display = False
        error = self.query_one("#loading-error", Static)
        error.update(f"{message}\n\nPress r to retry or q to quit.")
        error.display = True
        self.refresh_bindings()

    def _retitle(self, sub_title: str) -> None:
        self.sub_title = sub_title
        self.query_one(TitleBar).show_sub_title()

    def show_loading(self) -> None:
        """Back to the indicator (on retry)."""
        self.failed = False
        self._retitle(self.SUB_TITLE)
        self.query_one("#loading-text", Static).update("Loading your decks…")
        self.query_one("#loading-indicator").display = True
        self.query_one("#loading-error", Static).display = False
        self.refresh_bindings()

    def action_retry(self) -> None:
        if self.failed:
            self.show_loading()
            self.post_message(ReloadRequested())

"""The app's remembered choices: ui.json read once at start, each change written off the UI
thread (the theme picked in the palette, the browser's columns and sort)."""

from __future__ import annotations

import contextlib
import threading
from dataclasses import replace
from pathlib import Path

from textual.app import App
from textual.theme import Theme

from studykit.core.preferences import (
    PREFERENCES_FILENAME,
    BrowserLayout,
    Preferences,
    read_preferences,
    write_preferences,
)

__all__ = ["PreferencesKeeper"]


class PreferencesKeeper:
    """One app's preferences; `problem` says what was wrong with the file when it was read."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / PREFERENCES_FILENAME
        self.current, self.problem = read_preferences(self.path)
        self._lock = threading.Lock()  # one write at a time, each of the latest preferences

    def apply_theme(self, app: App[None]) -> None:
        """Start on the remembered theme, and remember each theme picked from now on."""
        theme = self.current.theme
        if theme is not None and theme in app.available_themes:
            app.theme = theme
        elif theme is not None:
            self.problem = f"The remembered theme {theme!r} is not known; using the default."
        app.theme_changed_signal.subscribe(app, lambda picked: self._theme_picked(app, picked))

    def _theme_picked(self, app: App[None], theme: Theme) -> None:
        if theme.name != self.current.theme:
            self.remember(app, replace(self.current, theme=theme.name))

    def remember_layout(self, app: App[None], layout: BrowserLayout) -> None:
        """Keep the browser's columns and sort for the next start."""
        if layout != self.current.browser:
            self.remember(app, replace(self.current, browser=layout))

    def remember(self, app: App[None], preferences: Preferences) -> None:
        """Make `preferences` the current ones and write them in a thread worker."""
        self.current = preferences
        app.run_worker(
            lambda: self._write(app), thread=True, group="preferences", exit_on_error=False
        )

    def _write(self, app: App[None]) -> None:
        with self._lock:
            try:
                write_preferences(self.path, self.current)
            except OSError as error:
                message = f"Could not remember the choice in {self.path}: {error.strerror or error}"
                with contextlib.suppress(RuntimeError):  # the app closed meanwhile
                    app.call_from_thread(app.notify, message, severity="error", markup=False)

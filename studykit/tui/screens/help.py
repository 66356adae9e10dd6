"""`?` on any screen: that screen's keys and what they do, read from its own bindings."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from studykit.core.terminal import terminal_safe
from studykit.tui.guard import GuardedHandlers
from studykit.tui.screens import SCREENS_CSS
from studykit.tui.screens.sizing import SizedScreen

PALETTE_KEY = ("ctrl+p", "Commands: every screen, themes, reload")
CLOSE_HINT = "escape or ? closes"


def _textual_own() -> frozenset[tuple[str, str, str]]:
    """Textual's own keys on every screen (tab, copy, ctrl+q): left out, as its footer does."""
    bindings = [*App.BINDINGS, *Screen.BINDINGS, *ModalScreen.BINDINGS]
    return frozenset(
        (key.strip(), binding.action, binding.description)
        for binding in bindings
        if isinstance(binding, Binding)
        for key in binding.key.split(",")
    )


def screen_keys(screen: Screen[object]) -> list[tuple[str, str]]:
    """(keys, what they do) for what works on `screen` now: its own keys (shown in its footer
    or not), the keys its focused widget shows, then the app's; one row per description."""
    app = screen.app
    textual_own = _textual_own()
    rows: dict[str, list[str]] = {}
    ordered = sorted(
        screen.active_bindings.items(),
        key=lambda item: 0 if item[1].node is screen else 2 if item[1].node is app else 1,
    )
    for key, active in ordered:
        binding = active.binding
        ours = active.node is screen or active.node is app
        if binding.system or not binding.description or not (binding.show or ours):
            continue
        if (key, binding.action, binding.description) in textual_own:
            continue
        if binding.action == "command_palette":  # the last row says what it offers
            continue
        keys = rows.setdefault(binding.description, [])
        shown = app.get_key_display(binding)
        if shown not in keys:
            keys.append(shown)
    listed = [(" ".join(keys), description) for description, keys in rows.items()]
    return [*listed, PALETTE_KEY]


class HelpScreen(SizedScreen, GuardedHandlers, ModalScreen[None]):
    """A panel over the screen it explains; escape or `?` closes it."""

    CSS_PATH = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("question_mark", "close", "Close", key_display="?"),
    ]

    def __init__(self, title: str, keys: list[tuple[str, str]]) -> None:
        super().__init__()
        self.help_title = terminal_safe(title)
        self.keys = keys

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for keys, description in self.keys:
            table.add_row(Text(keys), Text(description))
        with Vertical(id="help-box"):
            yield Static(f"Keys · {self.help_title}", id="help-title", markup=False)
            with VerticalScroll(id="help-keys"):
                yield Static(table, id="help-table")
            yield Static(CLOSE_HINT, id="help-hint", markup=False)

    def action_close(self) -> None:
        self.dismiss()

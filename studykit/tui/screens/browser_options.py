"""The browser's two menus: which columns the list shows (`c`) and what it is sorted by (`s`)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, SelectionList
from textual.widgets.option_list import Option

from studykit.tui.guard import GuardedHandlers
from studykit.tui.screens import SCREENS_CSS
from studykit.tui.screens.sizing import SizedScreen
from studykit.tui.widgets.browser_columns import COLUMNS, SORT_LABELS

DECK_ORDER = "deck-order"


class ColumnsScreen(SizedScreen, GuardedHandlers, ModalScreen[tuple[str, ...]]):
    """Tick the columns to show; escape (or `c`) closes and applies, in the list's order."""

    CSS_PATH = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "done", "Apply"),
        Binding("c", "done", "Apply", show=False),
    ]

    def __init__(self, shown: tuple[str, ...]) -> None:
        super().__init__(id="browser-columns")
        self.shown = shown

    def compose(self) -> ComposeResult:
        with Vertical(id="browser-menu-box"):
            choices = [(c.label, c.id, c.id in self.shown) for c in COLUMNS.values()]
            yield SelectionList[str](*choices, id="browser-columns-list")

    def on_mount(self) -> None:
        box = self.query_one("#browser-menu-box")
        box.border_title = "Columns"
        box.border_subtitle = "space ticks · esc applies"
        self.query_one(SelectionList).focus()

    def action_done(self) -> None:
        ticked = set(self.query_one(SelectionList).selected)
        self.dismiss(tuple(name for name in COLUMNS if name in ticked))


class SortScreen(SizedScreen, GuardedHandlers, ModalScreen[str | None]):
    """Pick what to sort by (picking the current sort again turns it round); escape cancels."""

    CSS_PATH = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, sort: str | None, *, descending: bool) -> None:
        super().__init__(id="browser-sort")
        self.sort = sort
        self.descending = descending

    def _label(self, key: str, label: str) -> str:
        if key != (self.sort or DECK_ORDER):
            return label
        if key == DECK_ORDER:
            return f"{label} (now)"
        return f"{label} {'▼' if self.descending else '▲'} (again: turn round)"

    def compose(self) -> ComposeResult:
        options = [Option(self._label(DECK_ORDER, "Deck order"), id=DECK_ORDER)]
        options += [Option(self._label(key, label), id=key) for key, label in SORT_LABELS.items()]
        with Vertical(id="browser-menu-box"):
            yield OptionList(*options, id="browser-sort-list")

    def on_mount(self) -> None:
        box = self.query_one("#browser-menu-box")
        box.border_title = "Sort by"
        box.border_subtitle = "enter picks · esc cancels"
        options = self.query_one(OptionList)
        options.highlighted = options.get_option_index(self.sort or DECK_ORDER)
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)

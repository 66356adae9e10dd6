"""The card browser: search, a list, the selected card with its history, and its actions."""

from __future__ import annotations

import os
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Input, Markdown, Rule, Static

from studykit.core.preferences import BrowserLayout
from studykit.core.terminal import terminal_safe
from studykit.study.browser import BrowserView, CardBrowser, Detail
from studykit.study.browsing import Browse, CardRow, as_template
from studykit.study.cardtext import back_markdown, front_markdown
from studykit.study.search import MAX_QUERY
from studykit.study.session import StudyCard, StudySession
from studykit.tui.editor import edit_card
from studykit.tui.flowrunner import SerialRunner
from studykit.tui.guard import GuardedHandlers, LoudWorkers
from studykit.tui.messages import BrowserDone
from studykit.tui.preferences import PreferencesKeeper
from studykit.tui.screens import SCREENS_CSS
from studykit.tui.screens.sizing import SizedScreen
from studykit.tui.widgets.browser_columns import (
    COLUMNS,
    DEFAULT_COLUMNS,
    SORT_LABELS,
    chosen_columns,
    heading,
)
from studykit.tui.widgets.card_facts import (
    HISTORY_COLUMNS,
    due_label,
    fill_history,
    number,
    source_of,
    state_label,
)
from studykit.tui.widgets.footer import StudyFooter
from studykit.tui.widgets.title_bar import TitleBar

WIDE = 110
"""From this many columns the detail sits beside the list, not below it."""
SEARCH_DELAY = 0.3  # seconds of no typing before a search runs
# Actions on letters the search box would swallow: hidden from the footer while typing.
TYPED_OVER = frozenset(
    {"search", "suspend", "unsuspend", "bury", "unbury", "forget", "edit", "info", "undo", "detail"}
    | {"sort", "columns"}
)
PLACEHOLDER = (
    "Search: words  tag:x  deck:x  card:N  is:new|learning|review|due|suspended|leech|buried"
)


class BrowserScreen(SizedScreen, GuardedHandlers, LoudWorkers, Screen[None]):
    """Renders a CardBrowser; its calls run in one serialized worker."""

    CSS_PATH = SCREENS_CSS

    SUB_TITLE = "Browse"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "search", "Search", key_display="/"),
        # One key, two bindings: the footer names what the key does to the selected card.
        Binding("exclamation_mark", "suspend", "Suspend", key_display="!"),
        Binding("exclamation_mark", "unsuspend", "Unsuspend", key_display="!"),
        Binding("minus", "bury", "Bury", key_display="-"),
        Binding("minus", "unbury", "Unbury", key_display="-"),
        Binding("f", "forget", "Forget"),
        Binding("e", "edit", "Edit"),
        Binding("i", "info", "Info"),
        Binding("u", "undo", "Undo"),
        Binding("d", "detail", "Detail"),
        Binding("s", "sort", "Sort"),
        Binding("c", "columns", "Columns"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, session: StudySession, query: str = "") -> None:
        super().__init__(id="browser")
        self.session = session
        self.browser = CardBrowser(session, query)
        self.runner: SerialRunner[BrowserView] = SerialRunner(self, BrowserDone)
        self.cards: dict[str, StudyCard] = {}  # row key -> card, of the rows listed
        self.listing: Browse | None = None
        self.detail: Detail | None = None
        self._search_timer: Timer | None = None
        self.columns: tuple[str, ...] = (
            DEFAULT_COLUMNS  # shown after the question, which takes the rest
        )

    def compose(self) -> ComposeResult:
        yield TitleBar()
        search = Input(
            self.browser.query, placeholder=PLACEHOLDER, max_length=MAX_QUERY, id="browser-search"
        )
        yield search
        with Vertical(id="browser-body"):
            with Vertical(id="browser-left"):
                yield DataTable(id="browser-list", cursor_type="row", zebra_stripes=True)
                yield Static("", id="browser-count", markup=False)
            with Vertical(id="browser-detail"):
                yield Static("", id="browser-head")
                with VerticalScroll(id="browser-card"):
                    yield Markdown(id="browser-front")
                    yield Rule(id="browser-rule")
                    yield Markdown(id="browser-back")
                yield DataTable(id="browser-history", cursor_type="none", zebra_stripes=True)
        yield StudyFooter()

    def on_mount(self) -> None:
        table = self.query_one("#browser-list", DataTable)
        history = self.query_one("#browser-history", DataTable)
        history.add_columns(*HISTORY_COLUMNS)
        self.set_class(self.size.width >= WIDE, "-wide")
        table.focus()
        self._restore_layout()
        query = self.browser.query
        self.runner.submit("Could not search the cards", lambda: self.browser.search(query))

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width >= WIDE, "-wide")
        if self.listing is not None:
            self.call_after_refresh(self._fill, self.listing)  # columns fit the new width

    # -- results ---------------------------------------------------------------------------

    async def on_browser_done(self, message: BrowserDone) -> None:
        """Render what the browser did."""
        message.stop()
        view = message.view
        count = self.query_one("#browser-count", Static)
        if view.error:  # the search cannot be read: said in red where the count goes
            count.add_class("-error")
            count.update(view.error)
        if view.listing is not None:
            count.remove_class("-error")
            self._fill(view.listing)
        if view.detail is not None or (view.listing is not None and not view.listing.rows):
            await self._show_detail(view.detail)
        if view.note:
            self.notify(f"{view.note} u undoes." if view.undoable else view.note)

    def _fill(self, listing: Browse) -> None:
        """Put the listed rows in the table, the cursor kept on the same card when it is there."""
        self.listing = listing
        table = self.query_one("#browser-list", DataTable)
        keep = self.browser.selected
        kept = None if keep is None else keep.name
        old_row = table.cursor_row
        table.clear(columns=True)
        sort, down = self.browser.sort, self.browser.descending
        picked = [COLUMNS[name] for name in self.columns]
        titles = [heading(column.title, sort, column.sort, descending=down) for column in picked]
        widths = [max(c.width, len(title)) for c, title in zip(picked, titles, strict=True)]
        # The question takes what the other columns leave (each column pads 1 either side).
        question = max(12, table.size.width - sum(widths) - 2 * (len(picked) + 1) - 2)
        title = heading("Question", sort, "question", descending=down)
        table.add_column(title, width=question, key="question")
        for column, title, width in zip(picked, titles, widths, strict=True):
            table.add_column(title, width=width, key=column.id)
        self.cards = {}
        for row in listing.rows:
            self.cards[row.name] = row.card
            table.add_row(*self._cells(row, question), key=row.name)
        names = [row.name for row in listing.rows]
        if not names:
            self.browser.selected = None  # nothing shown: the keys have nothing to act on
            self.refresh_bindings()
        else:
            at = names.index(kept) if kept in names else min(max(old_row, 0), len(names) - 1)
            table.move_cursor(row=at, animate=False)
            if names[at] != kept:
                self._select(self.cards[names[at]])
        count = self.query_one("#browser-count", Static)
        shown = f"{listing.total} card{'' if listing.total == 1 else 's'}"
        if listing.more:
            more = f"{listing.more} more: narrow the search"
            shown = f"{len(listing.rows)} of {listing.total} shown, {more}"
        count.update(shown)

    def _cells(self, row: CardRow, question: int) -> tuple[Text, ...]:
        """The list's cells; a suspended row is yellow and a buried one dim, as in Anki."""
        card = row.card
        text = terminal_safe(row.question(question))
        style = "yellow" if card.suspended else "dim" if row.buried else ""
        local = self.session.local
        cells = (text, *(terminal_safe(COLUMNS[name].cell(row, local)) for name in self.columns))
        return tuple(Text(cell, style=style, no_wrap=True) for cell in cells)  # never markup

    async def _show_detail(self, detail: Detail | None) -> None:
        self.detail = detail
        self.refresh_bindings()
        head = self.query_one("#browser-head", Static)
        history = self.query_one("#browser-history", DataTable)
        history.clear()
        if detail is None:
            head.update(Text("No card matches." if not self.cards else ""))
            await self.query_one("#browser-front", Markdown).update("")
            await self.query_one("#browser-back", Markdown).update("")
            return
        row = detail.row
        card = row.card
        where = source_of(row)
        parts = [
            state_label(row),
            f"due {due_label(row, self.session.local)}",
            f"S {number(row.stability, 'd')}",
            f"D {number(row.difficulty)}",
            f"{row.reps} reps",
            f"{card.lapses} lapses",
        ]
        head.update(
            Text.assemble(
                (row.name, "bold"),
                "  ",
                (" · ".join(parts), ""),
                "\n",
                (terminal_safe(where), "dim"),
            )
        )
        note = self.session.library.note_for(card.deck)
        shown = as_template(card.card)
        front, back = (
            front_markdown(shown, note, card.ordinal),
            back_markdown(shown, note, card.ordinal),
        )
        await self.query_one("#browser-front", Markdown).update(front)
        await self.query_one("#browser-back", Markdown).update(back)
        fill_history(history, detail, self.session.local)

    # -- selection and search --------------------------------------------------------------

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id != "browser-list":
            return
        event.stop()
        card = self.cards.get(str(event.row_key.value))
        selected = self.browser.selected
        same = selected is not None and card is not None and selected.key == card.key
        if card is not None and not same:
            self._select(card)

    def _select(self, card: StudyCard) -> None:
        self.browser.selected = card  # at once, so that an action pressed now acts on it
        self.runner.submit("Could not read the card", lambda: self.browser.select(card))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._search_timer is not None:
            self._search_timer.stop()
        self._search_timer = self.set_timer(SEARCH_DELAY, self._search_now)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._search_now()
        self.query_one("#browser-list", DataTable).focus()

    def _search_now(self) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        text = self.query_one("#browser-search", Input).value
        if text != self.browser.query or self.listing is None:
            self.runner.submit("Could not search the cards", lambda: self.browser.search(text))

    # -- actions ---------------------------------------------------------------------------

    def _typing(self) -> bool:
        return isinstance(self.focused, Input)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in TYPED_OVER and self._typing():
            return False
        selected = self.browser.selected
        acts = {"suspend", "unsuspend", "bury", "unbury", "forget", "edit", "info"}
        if action in acts and not selected:
            return False
        row = self.detail.row if self.detail is not None else None
        shown = row is not None and selected is not None and row.card.key == selected.key
        if action in {"suspend", "unsuspend"}:  # exactly one of the two is on
            return (action == "unsuspend") == (shown and row is not None and row.card.suspended)
        if action in {"bury", "unbury"}:
            return (action == "unbury") == (shown and row is not None and row.buried)
        return True

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self.refresh_bindings()

    def action_search(self) -> None:
        self.query_one("#browser-search", Input).focus()

    def action_suspend(self) -> None:
        self.runner.submit("Could not suspend the card", self.browser.toggle_suspend)

    def action_unsuspend(self) -> None:
        self.runner.submit("Could not unsuspend the card", self.browser.toggle_suspend)

    def action_bury(self) -> None:
        self.runner.submit("Could not bury the card", self.browser.toggle_bury)

    def action_unbury(self) -> None:
        self.runner.submit("Could not unbury the card", self.browser.toggle_bury)

    def action_forget(self) -> None:
        card = self.browser.selected
        if card is None:
            return
        from studykit.tui.screens.confirm import ConfirmScreen

        name = card.name
        question = (
            f"Forget {name}? It becomes a new card; its review history is kept, "
            "and u undoes the forget."
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.runner.submit("Could not forget the card", self.browser.forget)

        self.app.push_screen(ConfirmScreen(question, yes="Forget"), answered)

    def action_undo(self) -> None:
        self.runner.submit("Could not undo", self.browser.undo)

    def action_detail(self) -> None:
        """Hide or show the card pane; the question column takes the room it leaves."""
        self.toggle_class("-no-detail")
        if self.listing is not None:
            self.call_after_refresh(self._fill, self.listing)

    def action_edit(self) -> None:
        card = self.browser.selected
        if card is not None and edit_card(self.app, self.session.library.root, card, os.environ):
            origin = card.card.origin
            where = origin.path if origin is not None else card.name
            self.notify(f"Edited {where}. Press r on the deck list to reload.", markup=False)

    def action_info(self) -> None:
        card = self.browser.selected
        if card is not None:
            from studykit.tui.screens.card_info import CardInfoScreen

            self.app.push_screen(CardInfoScreen(self.session, card))

    # -- columns and sort (remembered in ui.json) -------------------------------------------

    def _keeper(self) -> PreferencesKeeper | None:
        keeper = getattr(self.app, "preferences", None)
        return keeper if isinstance(keeper, PreferencesKeeper) else None

    def _restore_layout(self) -> None:
        """The columns and sort of the last run (unknown names left out, and said)."""
        keeper = self._keeper()
        if keeper is None:
            return
        layout = keeper.current.browser
        self.columns, said = chosen_columns(layout.columns)
        if layout.sort in SORT_LABELS:
            self.browser.sort, self.browser.descending = layout.sort, layout.descending
        elif layout.sort is not None:
            said = f"{said} Unknown browser sort {layout.sort!r}: deck order.".strip()
        if said:
            self.notify(said, severity="warning", markup=False)

    def _remember_layout(self) -> None:
        keeper = self._keeper()
        if keeper is not None:
            browser = self.browser
            layout = BrowserLayout(self.columns, browser.sort, browser.descending)
            keeper.remember_layout(self.app, layout)

    def sort_by(self, key: str | None) -> None:
        """Sort by `key` (None: deck order); the current key again turns the order round."""
        browser = self.browser
        down = not browser.descending if key is not None and key == browser.sort else False
        self.runner.submit(
            "Could not sort the cards", lambda: browser.sorted_by(key, descending=down)
        )
        browser.sort, browser.descending = key, down  # remembered now, listed when sorted
        self._remember_layout()

    def action_sort(self) -> None:
        from studykit.tui.screens.browser_options import DECK_ORDER, SortScreen

        def picked(key: str | None) -> None:
            if key is not None:
                self.sort_by(None if key == DECK_ORDER else key)

        screen = SortScreen(self.browser.sort, descending=self.browser.descending)
        self.app.push_screen(screen, picked)

    def action_columns(self) -> None:
        from studykit.tui.screens.browser_options import ColumnsScreen

        def chosen(columns: tuple[str, ...] | None) -> None:
            if columns is not None and columns != self.columns:
                self.columns = columns
                self._remember_layout()
                if self.listing is not None:
                    self._fill(self.listing)

        self.app.push_screen(ColumnsScreen(self.columns), chosen)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        """A click on a column's title sorts by it (again: the other way round)."""
        if event.data_table.id != "browser-list":
            return
        event.stop()
        key = str(event.column_key.value)
        sort = "question" if key == "question" else COLUMNS[key].sort if key in COLUMNS else None
        if sort is not None:
            self.sort_by(sort)

    def action_back(self) -> None:
        if self._typing():
            self.query_one("#browser-list", DataTable).focus()
            return
        self.dismiss()

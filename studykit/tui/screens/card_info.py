"""Card info (`i` in review and in the browser), as Anki's: where the card is, its memory
state and recall now, its due date, and every answer."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static
from textual.worker import Worker, WorkerState

from studykit.core.terminal import terminal_safe
from studykit.study.browsing import CardDetail
from studykit.study.formatting import format_interval
from studykit.study.session import StudyCard, StudySession
from studykit.tui.guard import GuardedHandlers, LoudWorkers
from studykit.tui.screens import SCREENS_CSS
from studykit.tui.screens.sizing import SizedScreen
from studykit.tui.widgets.card_facts import HISTORY_COLUMNS, fill_history, number, source_of


def fact_rows(detail: CardDetail, session: StudySession) -> list[tuple[str, str]]:
    """(label, value) of each fact, in the order Anki's card info lists them."""
    row = detail.row
    card = row.card
    side = f" ({card.side})" if card.side else ""
    due = "-" if row.due is None else f"{session.local(row.due):%Y-%m-%d %H:%M}"
    recall = detail.retrievability
    return [
        ("Deck", card.deck.name),
        ("Source", source_of(row)),
        ("Ordinal", f"{card.ordinal}{side}"),
        ("State", ", ".join(part for part in (card.state, row.flags) if part)),
        ("Due", due),
        ("Interval", "-" if row.interval is None else format_interval(row.interval)),
        ("Stability", number(row.stability, " days")),
        ("Difficulty", number(row.difficulty)),
        ("Retrievability", "-" if recall is None else f"{recall:.0%} now"),
        ("Reviews", str(row.reps)),
        ("Lapses", str(card.lapses)),
    ]


class CardInfoScreen(SizedScreen, GuardedHandlers, LoudWorkers, ModalScreen[None]):
    """One card's info, read in a thread worker; escape or `i` closes it."""

    CSS_PATH = SCREENS_CSS
    WORKER_FAILED_TITLE = "Could not read the card's info"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("i", "close", "Close", show=False),
    ]

    def __init__(self, session: StudySession, card: StudyCard) -> None:
        super().__init__(id="card-info")
        self.session = session
        self.card = card
        self.detail: CardDetail | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="card-info-box"):
            yield Static(Text(terminal_safe(self.card.name), "bold"), id="card-info-title")
            yield Static("Reading…", id="card-info-facts")
            yield DataTable(id="card-info-history", cursor_type="none", zebra_stripes=True)

    def on_mount(self) -> None:
        box = self.query_one("#card-info-box")
        box.border_title = "Card info"
        box.border_subtitle = "esc or i closes"
        self.query_one("#card-info-history", DataTable).add_columns(*HISTORY_COLUMNS)
        self.read()

    @work(thread=True, exit_on_error=False)
    def read(self) -> CardDetail:
        """The card's detail, off the UI thread."""
        return self.session.card_detail(self.card)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.SUCCESS and isinstance(event.worker.result, CardDetail):
            self.show(event.worker.result)
        elif event.state == WorkerState.ERROR:
            self.query_one("#card-info-facts", Static).update("The card could not be read.")

    def show(self, detail: CardDetail) -> None:
        """Fill the facts and the history."""
        self.detail = detail
        facts = Table.grid(padding=(0, 2))
        facts.add_column(style="bold", no_wrap=True)
        facts.add_column()
        for label, value in fact_rows(detail, self.session):
            facts.add_row(label, Text(terminal_safe(value)))
        self.query_one("#card-info-facts", Static).update(facts)
        history = self.query_one("#card-info-history", DataTable)
        fill_history(history, detail, self.session.local)

    def action_close(self) -> None:
        self.dismiss()

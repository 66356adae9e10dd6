"""A card's facts and history as text: the browser's detail and the card info share them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from rich.text import Text
from textual.widgets import DataTable

from studykit.study.browsing import CardDetail, CardRow, HistoryRow
from studykit.study.formatting import format_interval
from studykit.tui.keys import RATINGS

Local = Callable[[datetime], datetime]
HISTORY_COLUMNS = ("Date", "Rating", "Ivl", "Stab.", "Diff.")


def number(value: float | None, unit: str = "") -> str:
    """`2.35d`, or `-` for no value."""
    return "-" if value is None else f"{value:.2f}{unit}"


def state_label(row: CardRow) -> str:
    """`review`, `new, suspended`, … — the state and the flags that hold."""
    return ", ".join(part for part in (row.card.state, row.flags) if part)


def due_label(row: CardRow, local: Local) -> str:
    """The due date in local time (`-` for a new card)."""
    return "-" if row.due is None else f"{local(row.due):%Y-%m-%d}"


def history_cells(row: HistoryRow, local: Local) -> tuple[str, str, str, str, str]:
    """(date, rating, interval, stability, difficulty) of one history row."""
    rating = "Forgot" if row.rating is None else dict(RATINGS)[row.rating]
    interval = "-" if row.interval is None else format_interval(row.interval)
    when = f"{local(row.at):%y-%m-%d %H:%M}"
    return when, rating, interval, number(row.stability, "d"), number(row.difficulty)


def fill_history(table: DataTable[Text], detail: CardDetail, local: Local) -> None:
    """The history, newest first as in Anki's card info (`never reviewed` when empty)."""
    table.clear()
    for event in reversed(detail.history):
        table.add_row(*(Text(cell) for cell in history_cells(event, local)))
    if not detail.history:
        table.add_row(Text("never reviewed"), *(Text("") for _ in HISTORY_COLUMNS[1:]))


def source_of(row: CardRow) -> str:
    """The card's file:line, or `no source file`."""
    origin = row.card.card.origin
    return f"{origin.path}:{origin.line}" if origin is not None else "no source file"

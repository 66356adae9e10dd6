"""The browser list's columns after the question: each one's title, width, cell and sort."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from studykit.study.browsing import CardRow
from studykit.study.formatting import format_interval
from studykit.tui.widgets.card_facts import Local, due_label, number


@dataclass(frozen=True)
class Column:
    """One column: `sort` is the key it sorts by (study.browsing.SORT_KEYS)."""

    id: str
    title: str
    label: str  # in the columns menu
    width: int
    cell: Callable[[CardRow, Local], str]
    sort: str | None = None


def _ordinal(row: CardRow, local: Local) -> str:
    """The ordinal of a card with several (a reversed card's 2 is its back, a cloze's 2 its c2)."""
    card = row.card
    return str(card.ordinal) if card.name.endswith(f"#{card.ordinal}") else ""


def _state(row: CardRow, local: Local) -> str:
    return row.flags.split(", ")[0] or row.card.state  # the detail lists every flag


def _interval(row: CardRow, local: Local) -> str:
    return "-" if row.interval is None else format_interval(row.interval)


def _stability(row: CardRow, local: Local) -> str:
    return number(row.stability, "d")


def _difficulty(row: CardRow, local: Local) -> str:
    return number(row.difficulty)


COLUMNS: dict[str, Column] = {
    column.id: column
    for column in (
        Column("ordinal", "#", "# (ordinal)", 3, _ordinal),
        Column("state", "State", "State", 10, _state),
        Column("due", "Due", "Due", 10, due_label, "due"),
        Column("interval", "Ivl", "Interval", 5, _interval, "interval"),
        Column("deck", "Deck", "Deck", 16, lambda row, _: row.card.deck.name, "deck"),
        Column("stability", "Stab.", "Stability", 7, _stability, "stability"),
        Column("difficulty", "Diff.", "Difficulty", 5, _difficulty, "difficulty"),
        Column("reviews", "Revs", "Reviews", 4, lambda row, _: str(row.reps), "reviews"),
        Column("lapses", "Laps", "Lapses", 4, lambda row, _: str(row.card.lapses), "lapses"),
    )
}
DEFAULT_COLUMNS = ("ordinal", "state", "due", "interval")
SORT_LABELS = {
    "question": "Question",
    "deck": "Deck",
    "due": "Due",
    "interval": "Interval",
    "stability": "Stability",
    "difficulty": "Difficulty",
    "reviews": "Reviews",
    "lapses": "Lapses",
}
"""The sorts the browser offers, in the order its sort menu lists them."""


def chosen_columns(names: Sequence[str] | None) -> tuple[tuple[str, ...], str]:
    """The known columns among `names` (the defaults for None) and what was dropped, said."""
    if names is None:
        return DEFAULT_COLUMNS, ""
    known = tuple(dict.fromkeys(name for name in names if name in COLUMNS))
    unknown = [name for name in names if name not in COLUMNS]
    said = f"Unknown browser columns left out: {', '.join(unknown)}." if unknown else ""
    return known, said


def heading(title: str, sort: str | None, key: str | None, *, descending: bool) -> str:
    """A column's title, with ▲ or ▼ when the list is sorted by it."""
    if key is None or sort != key:
        return title
    return f"{title} {'▼' if descending else '▲'}"

"""Key bindings that more than one screen shares, so they read the same everywhere."""

from __future__ import annotations

from textual.binding import Binding

# Anki's keys: space shows the answer, 1-4 rate it.
ANSWER_BINDINGS: tuple[Binding, ...] = (
    Binding("space", "reveal", "Show answer"),
    Binding("1", "rate(1)", "Again"),
    Binding("2", "rate(2)", "Hard"),
    Binding("3", "rate(3)", "Good"),
    Binding("4", "rate(4)", "Easy"),
)

"""Key bindings and rating buttons that more than one screen shares, so they read the same."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta

from textual.binding import Binding

from studykit.study.formatting import format_interval
from studykit.study.session import Rating

# Anki's keys: space shows the answer, 1-4 rate it.
ANSWER_BINDINGS: tuple[Binding, ...] = (
    Binding("space", "reveal", "Show answer"),
    Binding("1", "rate(1)", "Again"),
    Binding("2", "rate(2)", "Hard"),
    Binding("3", "rate(3)", "Good"),
    Binding("4", "rate(4)", "Easy"),
)

RATINGS: tuple[tuple[Rating, str], ...] = (
    (Rating.Again, "Again"),
    (Rating.Hard, "Hard"),
    (Rating.Good, "Good"),
    (Rating.Easy, "Easy"),
)


def rating_labels(intervals: Mapping[Rating, timedelta]) -> dict[Rating, str]:
    """`Good · 3d` for each rating (the bare name where no interval is known)."""
    labels = {}
    for rating, name in RATINGS:
        interval = intervals.get(rating)
        labels[rating] = name if interval is None else f"{name} · {format_interval(interval)}"
    return labels

"""Short human forms of intervals, durations, local times and deck names for the UI."""

from __future__ import annotations

from datetime import datetime, timedelta

from rich.cells import cell_len, set_cell_size

from studykit.srs.hierarchy import SEPARATOR, deck_path

_MINUTE = 60
_HOUR = 60 * _MINUTE
_DAY = 24 * _HOUR


def format_interval(interval: timedelta) -> str:
    """Anki-style interval on a rating button: `<1m`, `10m`, `5h`, `3d`, `2.1mo`, `1.4y`."""
    seconds = max(0.0, interval.total_seconds())
    if seconds < _MINUTE:
        return "<1m"
    if seconds < _HOUR:
        return f"{round(seconds / _MINUTE)}m"
    if seconds < _DAY:
        return f"{round(seconds / _HOUR)}h"
    days = seconds / _DAY
    if days < 30:
        return f"{round(days)}d"
    if days < 365:
        return f"{days / 30:.1f}mo"
    return f"{days / 365:.1f}y"


def format_until(delta: timedelta) -> str:
    """How long until a moment, two units at most: `in 3h 20m`, `in 2d 4h`, `now`."""
    seconds = int(delta.total_seconds())
    if seconds <= 0:
        return "now"
    if seconds < _MINUTE:
        return "in <1m"
    days, rest = divmod(seconds, _DAY)
    hours, rest = divmod(rest, _HOUR)
    minutes = rest // _MINUTE
    parts = [(days, "d"), (hours, "h"), (minutes, "m")]
    first = next(i for i, (value, _) in enumerate(parts) if value)
    shown = [f"{value}{unit}" for value, unit in parts[first : first + 2] if value]
    return "in " + " ".join(shown)


def format_local(moment: datetime) -> str:
    """A UTC moment in the user's local time zone, e.g. `Tue 12 May 14:20`."""
    return moment.astimezone().strftime("%a %d %b %H:%M")


def fit_deck_name(name: str, width: int) -> str:
    """A deck name in `width` cells: parents give way first (`…::Sub`), the last part stays."""
    if cell_len(name) <= width:
        return name
    parts = deck_path(name) or (name,)
    for start in range(1, len(parts)):
        shorter = "…::" + SEPARATOR.join(parts[start:])
        if cell_len(shorter) <= width:
            return shorter
    last = parts[-1]
    if cell_len(last) <= width:
        return last
    return set_cell_size(last, max(0, width - 1)) + "…" if width > 0 else ""

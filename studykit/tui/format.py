"""Short human forms of intervals, durations and local times for the UI."""

from __future__ import annotations

from datetime import datetime, timedelta

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

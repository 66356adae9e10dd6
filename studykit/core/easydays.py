"""Easy Days: weekdays that get fewer reviews, as a share of a normal day's (Anki's Easy Days).

Written `{sat = 0.5, sun = 0}` in config.toml and `easy_days: {sat: 0.5, sun: 0}` in a
deck: 1 is a normal day, 0 as few reviews as the fuzz range allows, and a share between
keeps the day at about that share of the other days' reviews. Unnamed days are normal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["NORMAL_WEEK", "WEEKDAYS", "Loads", "describe", "loads_of"]

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
Loads = tuple[float, ...]  # seven shares, Monday first
NORMAL_WEEK: Loads = (1.0,) * 7


def loads_of(days: Mapping[str, float] | None) -> Loads:
    """Seven shares from a weekday mapping (None: a normal week); ValueError if malformed."""
    if days is None:
        return NORMAL_WEEK
    loads = list(NORMAL_WEEK)
    for name, share in days.items():
        if name not in WEEKDAYS:
            raise ValueError(f"unknown weekday `{name}`; use {', '.join(WEEKDAYS)}")
        if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1:
            raise ValueError(f"`{name}` must be a share from 0 to 1, got {share!r}")
        loads[WEEKDAYS.index(name)] = float(share)
    return tuple(loads)


def describe(loads: Sequence[float]) -> str:
    """`sat 50 %, sun 0 %` for the days that are not normal ('' for a normal week)."""
    return ", ".join(
        f"{name} {share:.0%}".replace("%", " %")
        for name, share in zip(WEEKDAYS, loads, strict=True)
        if share < 1
    )

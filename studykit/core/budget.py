"""How much one experiment run may use (memory and time), and the `8GiB,300s` form that sets it.

Settings hold a Budget, so it lives here, below the experiments that check an estimate against it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from typing import Final

from studykit.core.errors import StudykitError

__all__ = ["GIB", "MIB", "Budget", "BudgetError", "describe_bytes", "machine_bytes", "parse_budget"]


GIB: Final = 1 << 30


MIB: Final = 1 << 20


DEFAULT_BYTES: Final = 2 * GIB


DEFAULT_SECONDS: Final = 60.0


MIN_BYTES: Final = 64 * MIB


MIN_SECONDS: Final = 1.0


MAX_SECONDS: Final = 24 * 3600.0


_UNITS: Final = {"mib": MIB, "gib": GIB, "tib": GIB << 10}


_SECONDS: Final = {"s": 1.0, "min": 60.0, "h": 3600.0}


_NUMBER: Final = re.compile(r"\d+(?:\.\d+)?")


_PART: Final = re.compile(rf"({_NUMBER.pattern})([a-z]+)")


_KILO: Final = frozenset({"k", "kb", "kib"})
"""Kilobytes: below any budget's floor, so no size to suggest."""

_MEANT: Final = {
    **dict.fromkeys(("mb", "mi"), "MiB"),
    **dict.fromkeys(("g", "gb", "gi"), "GiB"),
    **dict.fromkeys(("t", "tb", "ti"), "TiB"),
    **dict.fromkeys(("sec", "secs", "second", "seconds"), "s"),
    **dict.fromkeys(("mins", "minute", "minutes"), "min"),
    **dict.fromkeys(("hr", "hrs", "hour", "hours"), "h"),
}
"""Units people write for the ones accepted; only said, never guessed: `8GB` is refused."""

_FORMS: Final = "sizes are in MiB, GiB or TiB, times in s, min or h (e.g. 8GiB,300s)"


class BudgetError(StudykitError, ValueError):
    """A budget written in a form that is not accepted; the message says which forms are."""


@dataclass(frozen=True)
class Budget:
    """How much one run may use: peak memory in bytes and wall-clock seconds."""

    bytes: int = DEFAULT_BYTES
    seconds: float = DEFAULT_SECONDS


def describe_bytes(value: float) -> str:
    """Bytes for people: `512 MiB`, `2.0 GiB`."""
    if value >= GIB:
        return f"{value / GIB:.1f} GiB"
    return f"{max(value, 0) / MIB:.0f} MiB"


def machine_bytes() -> int:
    """This machine's physical memory: the most any budget may ask for."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def parse_budget(spec: str, *, base: Budget | None = None) -> Budget:
    """`8GiB`, `300s` or `8GiB,300s` over `base`; BudgetError saying what is accepted."""
    budget = base or Budget()
    seen: set[str] = set()
    if not spec.strip():
        raise BudgetError(f"budget {spec!r} is empty; {_FORMS}")
    for part in spec.replace(" ", "").split(","):
        match = _PART.fullmatch(part.lower())
        unit = match.group(2) if match else ""
        if match is None or (unit not in _UNITS and unit not in _SECONDS):
            raise BudgetError(f"budget {spec!r}: {_unaccepted(part, match)}")
        what = "memory" if unit in _UNITS else "time"
        if what in seen:
            raise BudgetError(f"budget {spec!r} gives the {what} twice")
        seen.add(what)
        number = float(match.group(1))
        if what == "memory":
            budget = replace(budget, bytes=_checked_bytes(spec, number * _UNITS[unit]))
        else:
            budget = replace(budget, seconds=_checked_seconds(spec, number * _SECONDS[unit]))
    return budget


def _unaccepted(part: str, match: re.Match[str] | None) -> str:
    """What is wrong with one part of a budget, and what to write instead."""
    if not part:
        return f"a part between commas is empty; {_FORMS}"
    if match is None:
        if _NUMBER.fullmatch(part):
            return f"`{part}` has no unit; {_FORMS}"
        return f"`{part}` is not a positive number followed by a unit; {_FORMS}"
    number, unit = match.groups()
    if unit == "m":
        return f"`{part}`: write {number}min (a time) or {number}MiB (memory); {_FORMS}"
    if unit in _KILO:
        return f"`{part}`: memory is counted in MiB or GiB, at least 64 MiB; {_FORMS}"
    meant = _MEANT.get(unit)
    if meant is not None:
        return f"`{part}`: write {number}{meant}; {_FORMS}"
    return f"`{part}`: `{unit}` is not a unit here; {_FORMS}"


def _checked_bytes(spec: str, value: float) -> int:
    most = machine_bytes()
    if not MIN_BYTES <= value <= most:
        raise BudgetError(
            f"budget {spec!r}: memory must be from {describe_bytes(MIN_BYTES)} to this "
            f"machine's {describe_bytes(most)}"
        )
    return int(value)


def _checked_seconds(spec: str, value: float) -> float:
    if not MIN_SECONDS <= value <= MAX_SECONDS:
        raise BudgetError(
            f"budget {spec!r}: time must be from {MIN_SECONDS:.0f} s to {MAX_SECONDS / 3600:.0f} h"
        )
    return value

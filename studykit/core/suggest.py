""" "Did you mean …?": the nearest of the known names to a misspelt one."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

__all__ = ["closest", "did_you_mean"]

SHOWN_OPTIONS = 12


def closest(word: str, options: Sequence[str]) -> str | None:
    """The option nearest to `word`, if one is near enough to be what was meant."""
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(word: str, options: Sequence[str], listing: str) -> str | None:
    """`did you mean `x`?`, else `listing: `a`, `b`, …` (None when there are no options)."""
    near = closest(word, options)
    if near is not None:
        return f"did you mean `{near}`?"
    if not options:
        return None
    shown = ", ".join(f"`{option}`" for option in list(options)[:SHOWN_OPTIONS])
    return f"{listing}: {shown}" + (", …" if len(options) > SHOWN_OPTIONS else "")

"""Ids from text: a slug of the words (valid as a card, deck or section id), made unique."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

MAX_SLUG = 60
_NOT_WORD = re.compile(r"[^a-z0-9]+")


def slug(text: str, *, fallback: str = "card") -> str:
    """Lowercase ASCII words joined by `-`, at most MAX_SLUG characters, cut at a word."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = _NOT_WORD.sub("-", ascii_text.lower()).strip("-")
    if len(words) > MAX_SLUG:
        cut = words[: MAX_SLUG + 1]
        words = cut[: cut.rfind("-")] if "-" in cut else words[:MAX_SLUG]
    return words.strip("-") or fallback


@dataclass
class Slugs:
    """Hands out slugs once each: a repeat gets `-2`, `-3`, … in order of arrival."""

    taken: set[str] = field(default_factory=set)
    # The last N tried per wanted slug: `taken` only grows, so the search resumes there and
    # a thousand cards with one front cost a thousand steps, not half a million.
    _last: dict[str, int] = field(default_factory=dict)

    def take(self, wanted: str) -> str:
        """`wanted`, or `wanted-N` with the smallest N >= 2 that is free."""
        candidate, n = wanted, self._last.get(wanted, 1)
        if n > 1:
            candidate = f"{wanted}-{n}"
        while candidate in self.taken:
            n += 1
            candidate = f"{wanted}-{n}"
        self._last[wanted] = n
        self.taken.add(candidate)
        return candidate

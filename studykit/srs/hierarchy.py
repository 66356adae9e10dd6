"""Parent decks and sub-decks, by the `::`-separated parts of deck names."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable

from studykit.srs.decks import ScheduledDeck

__all__ = ["SEPARATOR", "DeckHierarchy", "deck_path"]

SEPARATOR = "::"


def deck_path(name: str) -> tuple[str, ...]:
    """The parts of a deck name, `A :: B::C` -> ("A", "B", "C"); blank parts dropped."""
    return tuple(part.strip() for part in name.split(SEPARATOR) if part.strip())


class DeckHierarchy:
    """Which loaded decks lie above and below each other (two decks of one name do not)."""

    def __init__(self, decks: Iterable[ScheduledDeck]) -> None:
        paths = {deck.id: deck_path(deck.name) for deck in decks}
        at: defaultdict[tuple[str, ...], list[str]] = defaultdict(list)
        for deck_id, path in paths.items():
            at[path].append(deck_id)
        self._above: dict[str, tuple[str, ...]] = {}
        below: defaultdict[str, list[str]] = defaultdict(list)
        for deck_id, path in paths.items():
            parents = tuple(p for depth in range(len(path) - 1, 0, -1) for p in at[path[:depth]])
            self._above[deck_id] = parents  # nearest first
            for parent in parents:
                below[parent].append(deck_id)
        self._below = {deck_id: (deck_id, *below[deck_id]) for deck_id in paths}

    def ancestors(self, deck_id: str) -> tuple[str, ...]:
        """The parent decks of a deck, nearest first (not the deck itself)."""
        return self._above.get(deck_id, ())

    def subtree(self, deck_id: str) -> tuple[str, ...]:
        """The deck and all of its sub-decks."""
        return self._below.get(deck_id, (deck_id,))

    def contains(self, parent_id: str, deck_id: str) -> bool:
        """True when `deck_id` is `parent_id` or one of its sub-decks."""
        return deck_id == parent_id or parent_id in self.ancestors(deck_id)

    def parent_in(self, deck_id: str, scope: Collection[str]) -> str | None:
        """The nearest parent deck of `deck_id` that is in `scope`, if any."""
        return next((p for p in self.ancestors(deck_id) if p in scope), None)

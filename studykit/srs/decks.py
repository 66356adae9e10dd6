"""What scheduling needs of a deck: its id and name, its limits and its cards' ids and ordinals.

The content layer's `DeckOutline` (and its `Deck` model) have these; scheduling names the
shape, not the class, so `srs` depends on nothing above the core.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

__all__ = ["ScheduledCard", "ScheduledDeck"]


class ScheduledCard(Protocol):
    """A card as the queue sees it: its id and its ordinals (one schedule each)."""

    @property
    def id(self) -> str: ...
    @property
    def ordinals(self) -> tuple[int, ...]: ...


class ScheduledDeck(Protocol):
    """A deck as the queue, the daily limits and the deck tree see it."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def desired_retention(self) -> float | None: ...
    @property
    def new_per_day(self) -> int | None: ...
    @property
    def reviews_per_day(self) -> int | None: ...
    @property
    def bury_new_siblings(self) -> bool | None: ...
    @property
    def bury_review_siblings(self) -> bool | None: ...
    @property
    def cards(self) -> Sequence[ScheduledCard]: ...

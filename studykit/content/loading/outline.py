"""What the deck list and the queue need of each deck, without the content models.

A library read from the cache gives these straight from its JSON; its pydantic models (and
pydantic itself) are only built when something needs a card's content (`Library.ready`).
So the first screen, which shows only names, descriptions and counts, never imports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from studykit.core.easydays import Loads, loads_of

if TYPE_CHECKING:
    from studykit.content.model import Deck

__all__ = ["CardOutline", "DeckOutline"]


@dataclass(frozen=True, slots=True)
class CardOutline:
    """A card as the queue sees it: its id and its ordinals (one schedule each)."""

    id: str
    ordinals: tuple[int, ...] = (1,)


@dataclass(frozen=True, slots=True)
class DeckOutline:
    """A deck's names, limits and card ids: what home's counts and the queue are built on."""

    id: str
    name: str
    description: str
    note: str | None
    desired_retention: float | None
    new_per_day: int | None
    reviews_per_day: int | None
    cards: tuple[CardOutline, ...]
    easy_days: Loads | None = None  # the deck's Easy Days, Monday first; None: config's
    bury_new_siblings: bool | None = None
    bury_review_siblings: bool | None = None

    @classmethod
    def of(cls, deck: Deck) -> DeckOutline:
        """The outline of a loaded deck."""
        return cls(
            deck.id,
            deck.name,
            deck.description,
            deck.note,
            deck.desired_retention,
            deck.new_per_day,
            deck.reviews_per_day,
            tuple(CardOutline(card.id, card.ordinals) for card in deck.cards),
            None if deck.easy_days is None else loads_of(dict(deck.easy_days.items())),
            deck.bury_new_siblings,
            deck.bury_review_siblings,
        )

"""A card as the UI sees it: its content, which of its schedules, and a summary of that one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from studykit.content.ordinals import ordinal_label

if TYPE_CHECKING:
    from studykit.content.model import Card, Deck

__all__ = ["StateName", "StudyCard", "schedule_name"]


StateName = Literal["new", "learning", "review", "relearning"]


def schedule_name(deck_id: str, card_id: str, ordinal: int, ordinals: tuple[int, ...]) -> str:
    """`deck/card`, or `deck/card#2` for one of several ordinals (or one that is not 1)."""
    if ordinals == (1,) and ordinal == 1:
        return f"{deck_id}/{card_id}"
    return f"{deck_id}/{card_id}#{ordinal}"


@dataclass(frozen=True)
class StudyCard:
    """One schedule of a card as the UI sees it: content plus its scheduling summary."""

    deck: Deck
    card: Card
    key: int
    state: StateName
    lapses: int
    leech: bool
    suspended: bool
    ordinal: int = 1
    """Which of the card's schedules: 1; 2 for a reversed card's back; a cloze's deletion."""

    @property
    def name(self) -> str:
        """`deck/card`, or `deck/card#2` when the card has several ordinals."""
        return schedule_name(self.deck.id, self.card.id, self.ordinal, self.card.ordinals)

    @property
    def side(self) -> str:
        """Which ordinal, as the review header shows it: `c2`, `back → front`, or ``."""
        if len(self.card.ordinals) < 2 and self.card.kind != "cloze":
            return ""
        return ordinal_label(self.card.kind, self.ordinal)

"""A card as the UI sees it: its content and a summary of its schedule."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from studykit.content.model import Card, Deck

__all__ = ["StateName", "StudyCard"]


StateName = Literal["new", "learning", "review", "relearning"]


@dataclass(frozen=True)
class StudyCard:
    """A card as the UI sees it: content plus its scheduling summary."""

    deck: Deck
    card: Card
    key: int
    state: StateName
    lapses: int
    leech: bool
    suspended: bool

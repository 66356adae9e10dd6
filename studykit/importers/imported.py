"""What an import found: cards, decks and the report's lines (shared by the import's steps)."""

from __future__ import annotations

from dataclasses import dataclass, field

from studykit.content.ordinals import card_ordinals
from studykit.importers.cardsyntax import CardKind
from studykit.importers.srschedule import Schedule


@dataclass(frozen=True)
class ImportedCard:
    """A card found in the file, with the line it starts on and the plugin's schedules."""

    id: str
    kind: CardKind
    front: str
    back: str | None
    line: int
    schedules: tuple[Schedule, ...] = ()
    tags: tuple[str, ...] = ()
    end: int = 0
    """The card's last line (0: its first); its schedule comment is on it or the next."""
    block: str | None = None
    """The Obsidian block id (`^id`) ending the card's last line, which is its id."""
    note: str = ""
    """The note it is in (once its id is given)."""

    def placed(
        self,
        *,
        tags: tuple[str, ...] | None = None,
        id: str | None = None,
        note: str | None = None,
    ) -> ImportedCard:
        """This card with its deck's tags, or its id and note, given (one constructor call:
        `dataclasses.replace` costs twice as much, twice for every card of a vault)."""
        return ImportedCard(
            self.id if id is None else id,
            self.kind,
            self.front,
            self.back,
            self.line,
            self.schedules,
            self.tags if tags is None else tags,
            self.end,
            self.block,
            self.note if note is None else note,
        )

    @property
    def ordinals(self) -> tuple[int, ...]:
        """The card's schedules here: one per sibling the plugin keeps an entry for."""
        return card_ordinals(self.kind, self.front)


@dataclass
class ImportedDeck:
    """The cards of one deck (a `#flashcards/...` tag, or one note)."""

    id: str
    name: str
    cards: list[ImportedCard] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    """The notes its cards come from, as the deck file names them."""


@dataclass(frozen=True)
class ReportLine:
    """Lines `line`..`end` that look like a card but made none, and why."""

    line: int
    end: int
    why: str

    def __str__(self) -> str:
        where = f"{self.line}" if self.end == self.line else f"{self.line}-{self.end}"
        return f"{where}: {self.why}"

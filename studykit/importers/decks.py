"""Cards found in a note -> imported decks: the tag line in force chooses decks, fronts the ids.

A line of `#flashcards/...` tags applies to the cards after it until the next tag line
(several tags: the card is in each deck); tags at the start of a card's first line are for
that card only. Cards before any tag line join the note's first tag line, or a deck named
after the note when it has none. With one deck per note, tags become card tags instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from studykit.content.ordinals import card_ordinals
from studykit.core.ids import Slugs, slug
from studykit.importers.cardsyntax import CardKind, Draft, without_cloze_marks
from studykit.importers.srschedule import Schedule
from studykit.text.clozes import cloze_number_problem


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
    slugs: Slugs = field(default_factory=Slugs)


@dataclass(frozen=True)
class ReportLine:
    """Lines `line`..`end` that look like a card but made none, and why."""

    line: int
    end: int
    why: str

    def __str__(self) -> str:
        where = f"{self.line}" if self.end == self.line else f"{self.line}-{self.end}"
        return f"{where}: {self.why}"


@dataclass
class ObsidianImport:
    """The decks (in order of first use) and what was skipped, in line order."""

    decks: list[ImportedDeck]
    skipped: list[ReportLine]
    tagged: bool = True  # a `#flashcards` tag somewhere (the plugin reads no other note)

    @property
    def cards(self) -> int:
        """How many cards, over all decks."""
        return sum(len(deck.cards) for deck in self.decks)

    @property
    def schedules(self) -> int:
        """How many plugin schedules the cards carry (one per sibling)."""
        return sum(len(card.schedules) for deck in self.decks for card in deck.cards)


class DeckBuilder:
    """The decks of one note, filled card by card in line order under the tag line in force."""

    def __init__(self, stem: str, *, one_deck: tuple[str, str] | None) -> None:
        self.stem = stem
        self.one_deck = one_deck
        self.decks: dict[str, ImportedDeck] = {}
        self.by_path: dict[str, ImportedDeck] = {}  # tag path -> its deck
        self.report: list[ReportLine] = []
        self.group: list[str] | None = None  # the tag line in force
        self.pending: list[ImportedCard] = []  # cards before any tag line
        self.last_card: ImportedCard | None = None
        self.last_card_deck: list[ImportedDeck] = []
        self.last_card_end = 0
        self.tagged = False

    def skip(self, line: int, end: int, why: str) -> None:
        """Lines `line`..`end` made no card: say why in the report."""
        self.report.append(ReportLine(line, end, why))

    def _deck(self, path: str) -> ImportedDeck:
        known = self.by_path.get(path)
        if known is not None:
            return known
        parts = [p for p in path.split("/") if p]
        deck_id = slug("-".join(parts)) if parts else slug(self.stem)
        name = "::".join(parts) if parts else self.stem
        deck = self.by_path[path] = self.decks.setdefault(deck_id, ImportedDeck(deck_id, name))
        return deck

    def use_group(self, tags: list[str]) -> None:
        """A tag line: the cards after it go to its decks (and those before any, too)."""
        self.group, self.tagged = tags, True
        pending, self.pending = self.pending, []
        for card in pending:
            self._place(card, tags)

    def add(
        self, draft: Draft, line: int, end: int, schedules: list[Schedule], own_tags: list[str]
    ) -> None:
        """A card on lines `line`..`end`; `own_tags` (at its start) override the tag line."""
        if draft.kind == "cloze" and (problem := cloze_number_problem(draft.front)) is not None:
            self.skip(line, end, problem)
            return
        card = ImportedCard(
            "", draft.kind, draft.front, draft.back, line, tuple(schedules), end=end
        )
        tags = own_tags or self.group
        self.tagged = self.tagged or bool(own_tags)
        self.last_card_end = end
        if tags is None and self.one_deck is None:
            self.pending.append(card)
            self.last_card, self.last_card_deck = card, []
            return
        self._place(card, tags or [])

    def _place(self, card: ImportedCard, tags: list[str]) -> None:
        if self.one_deck is not None:
            deck_id, name = self.one_deck
            decks = [self.decks.setdefault(deck_id, ImportedDeck(deck_id, name))]
            card_tags = tuple(dict.fromkeys(slug(t.replace("/", "-")) for t in tags if t))
        else:
            decks = [self._deck(t) for t in dict.fromkeys(tags)] or [self._deck("")]
            card_tags = ()
        self.last_card_deck = []
        for deck in decks:
            card_id = deck.slugs.take(slug(without_cloze_marks(card.front)))
            placed = ImportedCard(
                card_id,
                card.kind,
                card.front,
                card.back,
                card.line,
                card.schedules,
                card_tags,
                end=card.end,
            )
            deck.cards.append(placed)
            self.last_card_deck.append(deck)
        self.last_card = card

    def attach_schedules(self, number: int, schedules: list[Schedule]) -> None:
        """A schedule comment on its own line `number`: it belongs to the card just above."""
        if self.last_card is not None and self.last_card_end == number - 1:
            self._add_schedules(schedules)
            self.last_card_end = number
            return
        self.skip(number, number, "schedule comment not under a card")

    def _add_schedules(self, schedules: list[Schedule]) -> None:
        card = self.last_card
        assert card is not None
        targets = [deck.cards for deck in self.last_card_deck] or [self.pending]
        for cards in targets:
            for i in range(len(cards) - 1, -1, -1):
                if cards[i].line == card.line:
                    old = cards[i]
                    cards[i] = ImportedCard(
                        old.id,
                        old.kind,
                        old.front,
                        old.back,
                        old.line,
                        old.schedules + tuple(schedules),
                        old.tags,
                        end=old.end,
                    )
                    break

    def finish(self) -> ObsidianImport:
        """The decks with cards; cards still before any tag line join the note's deck."""
        tagged = self.tagged
        if self.pending:
            self.use_group([""])
        self.report.sort(key=lambda r: (r.line, r.end))
        decks = [deck for deck in self.decks.values() if deck.cards]
        return ObsidianImport(decks=decks, skipped=self.report, tagged=tagged)

"""Cards found in a note -> imported decks: the tag line in force chooses decks.

A line of `#flashcards/...` tags applies to the cards after it until the next tag line
(several tags: the card is in each deck); tags at the start of a card's first line are for
that card only. Cards before any tag line join the note's first tag line, or a deck named
after the note when it has none. With one deck per note, tags become card tags instead.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from studykit.core.ids import slug
from studykit.importers.cardids import NoteDecks, assign_ids
from studykit.importers.cardsyntax import Draft
from studykit.importers.imported import ImportedCard, ImportedDeck, ReportLine
from studykit.importers.srschedule import Schedule
from studykit.text.clozes import cloze_number_problem

__all__ = ["DeckBuilder", "ImportedCard", "ImportedDeck", "ObsidianImport", "ReportLine"]


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
    """The decks of one note, filled card by card in line order under the tag line in force;
    ids are given at the end (`cardids`)."""

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
        self,
        draft: Draft,
        line: int,
        end: int,
        schedules: list[Schedule],
        own_tags: list[str],
        block: str | None = None,
    ) -> None:
        """A card on lines `line`..`end`; `own_tags` (at its start) override the tag line."""
        if draft.kind == "cloze" and (problem := cloze_number_problem(draft.front)) is not None:
            self.skip(line, end, problem)
            return
        card = ImportedCard(
            "", draft.kind, draft.front, draft.back, line, tuple(schedules), end=end, block=block
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
            deck.cards.append(card.placed(tags=card_tags))
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
                    cards[i] = replace(cards[i], schedules=cards[i].schedules + tuple(schedules))
                    break

    def finish(self) -> ObsidianImport:
        """The decks with cards; cards still before any tag line join the note's deck."""
        tagged = self.tagged
        if self.pending:
            self.use_group([""])
        decks = [deck for deck in self.decks.values() if deck.cards]
        assigned = assign_ids([NoteDecks(self.stem, decks)])
        self.report += [line for _, line in assigned.report]
        self.report.sort(key=lambda r: (r.line, r.end))
        return ObsidianImport(decks=assigned.decks, skipped=self.report, tagged=tagged)

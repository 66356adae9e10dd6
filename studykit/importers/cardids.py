"""Card ids for imported cards: a note's block id (`^id`) first, else a slug of the front.

History hangs on (deck id, card id). A slug of the front changes when the question is edited,
so the import writes each card's id into its note as an Obsidian block id, and a card that has
one keeps it whatever its text becomes. One card has one id in every deck it is in; ids are
unique within a deck, across all the notes that feed it. Cards with block ids are placed first,
so a new card whose front slugs to a taken id gets `-2` instead of taking it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from studykit.core.ids import slug
from studykit.importers.cardsyntax import without_cloze_marks
from studykit.importers.imported import ImportedCard, ImportedDeck, ReportLine


@dataclass
class NoteDecks:
    """One note's decks as parsed (the note's name as the deck files quote it)."""

    name: str
    decks: Sequence[ImportedDeck]


@dataclass(frozen=True)
class BlockIdWrite:
    """A card that had no block id: `^id` goes at the end of line `line` of note `note`."""

    note: str
    line: int
    id: str


@dataclass
class Assigned:
    """The decks with ids, the block ids to write, and the notes' report lines (note, line)."""

    decks: list[ImportedDeck]
    writes: list[BlockIdWrite]
    report: list[tuple[str, ReportLine]]


class _Taken:
    """Ids taken per deck, with where each search for a wanted id left off."""

    def __init__(self) -> None:
        self.ids: dict[str, set[str]] = {}
        self.last: dict[tuple[str, ...], int] = {}

    def free(self, decks: Sequence[str], wanted: str) -> bool:
        if len(decks) == 1:  # most cards: no generator per candidate
            return wanted not in self.ids.setdefault(decks[0], set())
        return all(wanted not in self.ids.setdefault(deck, set()) for deck in decks)

    def take(self, decks: Sequence[str], wanted: str) -> str:
        """`wanted`, or `wanted-N` with the smallest N >= 2 free in every deck of the card."""
        key = (wanted, *decks)
        n = self.last.get(key, 1)
        candidate = wanted if n == 1 else f"{wanted}-{n}"
        while not self.free(decks, candidate):
            n += 1
            candidate = f"{wanted}-{n}"
        self.last[key] = n
        for deck in decks:
            self.ids[deck].add(candidate)
        return candidate


def assign_ids(notes: Sequence[NoteDecks]) -> Assigned:
    """Merge the notes' decks by id and give each card its id (see the module's rules)."""
    merged: dict[str, ImportedDeck] = {}
    # A card placed in several decks is one entry per deck with the same line.
    places: dict[tuple[str, int], list[str]] = {}
    firsts: dict[tuple[str, int], ImportedCard] = {}
    for note in notes:
        for deck in note.decks:
            into = merged.setdefault(deck.id, ImportedDeck(deck.id, deck.name, cards=[]))
            if note.name not in into.sources:
                into.sources.append(note.name)
            for card in deck.cards:
                places.setdefault((note.name, card.line), []).append(deck.id)
                firsts.setdefault((note.name, card.line), card)
    taken = _Taken()
    ids: dict[tuple[str, int], str] = {}
    report: list[tuple[str, ReportLine]] = []
    for key, card in firsts.items():
        if card.block is None:
            continue
        wanted = slug(card.block)
        if taken.free(places[key], wanted):
            ids[key] = taken.take(places[key], wanted)
            continue
        ids[key] = taken.take(places[key], wanted)
        why = (
            f"block id ^{card.block} is another card's id in its deck; this card is "
            f"{ids[key]} until you give it a block id of its own"
        )
        report.append((key[0], ReportLine(card.line, card.end or card.line, why)))
    writes: list[BlockIdWrite] = []
    for key, card in firsts.items():
        if key in ids:
            continue
        ids[key] = taken.take(places[key], slug(without_cloze_marks(card.front)))
        writes.append(BlockIdWrite(key[0], card.end or card.line, ids[key]))
    for note in notes:
        for deck in note.decks:
            merged[deck.id].cards += [
                card.placed(id=ids[(note.name, card.line)], note=note.name) for card in deck.cards
            ]
    return Assigned(list(merged.values()), writes, report)

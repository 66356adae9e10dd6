"""A deck's notes as the export ledger keeps them: stamps, and the notes as written.

Both are column lists (one list per attribute, not one object per note), which JSON encodes
and decodes several times faster. Stamps are read on every export; records (the notes'
fields, which are most of the bytes) only when a note of the deck is gone or the deck changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast, get_args

from studykit.export.blobs import BadBlob, integers, strings
from studykit.export.plan import ModelKind, PlannedDeck, PlannedNote

MODELS = frozenset(get_args(ModelKind))


Stamp = tuple[str, str, int, bool]
"""What the ledger knows of one note: deck id, content digest, modification time, and
whether it is live (its record is kept, and it has not gone out as removed since).

A plain tuple: ten thousand of them are built from columns at C speed (`decode_stamps`).
"""


def encode_stamps(
    guids: list[str], digests: list[str], mods: list[int], live: list[bool]
) -> list[object]:
    """The stamps of one deck's notes, as columns (of the same length)."""
    if not len(guids) == len(digests) == len(mods) == len(live):
        raise ValueError("stamp columns of different lengths")
    return [guids, digests, mods, [int(flag) for flag in live]]


def decode_stamps(deck_id: str, value: object) -> dict[str, Stamp]:
    """Inverse of `encode_stamps`, for the blob of `deck_id`."""
    guids, digests, mods, live = _columns(value, 4)
    guids, digests, mods, flags = strings(guids), strings(digests), integers(mods), integers(live)
    if not len(guids) == len(digests) == len(mods) == len(flags):
        raise BadBlob("stamp columns of different lengths")
    decks = [deck_id] * len(guids)
    return dict(zip(guids, zip(decks, digests, mods, map(bool, flags), strict=True), strict=True))


def encode_records(deck: PlannedDeck, notes: Sequence[tuple[str, PlannedNote]]) -> list[object]:
    """A deck and its notes as written (GUID, model, card, GUID key, fields, tags)."""
    return [
        [deck.id, deck.name, deck.description],
        [guid for guid, _ in notes],
        [note.model for _, note in notes],
        [note.card_id for _, note in notes],
        [note.guid_key for _, note in notes],  # tuples: JSON writes them as lists
        [note.fields for _, note in notes],
        [note.tags for _, note in notes],
    ]


def decode_records(deck_id: str, value: object) -> tuple[PlannedDeck, dict[str, PlannedNote]]:
    """Inverse of `encode_records`, for the blob of `deck_id`."""
    deck_row, guids, models, cards, keys, fields, tags = _columns(value, 7)
    header = strings(deck_row)
    if len(header) != 3:
        raise BadBlob("a deck is id, name and description")
    deck = PlannedDeck(*header)
    if deck.id != deck_id:
        raise BadBlob("the records of another deck")
    names, kinds, card_ids = strings(guids), strings(models), strings(cards)
    keyed, texts, tagged = _nested(keys), _nested(fields), _nested(tags)
    if len({len(names), len(kinds), len(card_ids), len(keyed), len(texts), len(tagged)}) != 1:
        raise BadBlob("record columns of different lengths")
    if not MODELS.issuperset(kinds):
        raise BadBlob("an unknown model")
    notes = {
        guid: PlannedNote(
            model=cast(ModelKind, model),
            deck_id=deck.id,
            card_id=card,
            guid_key=tuple(key),
            fields=tuple(field),
            tags=tuple(tag),
        )
        for guid, model, card, key, field, tag in zip(
            names, kinds, card_ids, keyed, texts, tagged, strict=True
        )
    }
    return deck, notes


def _columns(value: object, count: int) -> list[object]:
    if not isinstance(value, list) or len(value) != count:
        raise BadBlob(f"expected {count} columns")
    return value


def _nested(value: object) -> list[list[str]]:
    if not isinstance(value, list):
        raise BadBlob("expected a list of lists")
    return [strings(item) for item in value]

"""Notes exported before whose card is gone: exported once more, tagged `studykit::removed`.

Anki never deletes a note on import, so a card removed from the YAML would linger there
unnoticed; tagged, one search (`tag:studykit::removed`) finds them all. The export ledger
keeps each exported note as a JSON record, which is all that is needed to write it again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace

from studykit.export.plan import ExportPlan, PlannedDeck, PlannedNote

REMOVED_TAG = "studykit::removed"


_ENCODER = json.JSONEncoder(ensure_ascii=False)  # what `json.dumps` makes anew for each call


def note_record(note: PlannedNote, deck: PlannedDeck) -> str:
    """A note and its deck as written, for the ledger."""
    return _ENCODER.encode(
        {
            "model": note.model,
            "deck": [deck.id, deck.name, deck.description],
            "card_id": note.card_id,
            "guid_key": list(note.guid_key),
            "fields": list(note.fields),
            "tags": list(note.tags),
        }
    )


def read_record(text: str) -> tuple[PlannedNote, PlannedDeck]:
    """Inverse of `note_record`."""
    data = json.loads(text)
    deck = PlannedDeck(*data["deck"])
    note = PlannedNote(
        model=data["model"],
        deck_id=deck.id,
        card_id=data["card_id"],
        guid_key=tuple(data["guid_key"]),
        fields=tuple(data["fields"]),
        tags=tuple(data["tags"]),
    )
    return note, deck


def removed_ref(note: PlannedNote) -> str:
    """`deck/card` of a removed card; a dropped variant of a computed card says which."""
    ref = f"{note.deck_id}/{note.card_id}"
    variant = note.guid_key[3] if len(note.guid_key) > 3 else ""
    return f"{ref} ({variant.replace('-', ' ')})" if variant.startswith("variant-") else ref


def with_removed(plan: ExportPlan, gone: Mapping[str, str]) -> ExportPlan:
    """`plan` plus the `gone` records (guid -> record), tagged removed, with their decks."""
    if not gone:
        return plan
    decks = {deck.id: deck for deck in plan.decks}
    notes: list[PlannedNote] = []
    refs: dict[str, None] = {}
    for guid in sorted(gone):
        note, deck = read_record(gone[guid])
        decks.setdefault(deck.id, deck)
        tags = note.tags if REMOVED_TAG in note.tags else (*note.tags, REMOVED_TAG)
        notes.append(replace(note, tags=tags, removed=True))
        refs.setdefault(removed_ref(note), None)
    return replace(
        plan,
        decks=tuple(decks.values()),
        notes=(*plan.notes, *notes),
        removed=(*plan.removed, *refs),
    )

"""Notes exported before whose card is gone: exported once more, tagged `studykit::removed`.

Anki never deletes a note on import, so a card removed from the YAML would linger there
unnoticed; tagged, one search (`tag:studykit::removed`) finds them all. The export ledger
keeps each exported note as written, which is all that is needed to write it again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from studykit.export.plan import ExportPlan, PlannedDeck, PlannedNote

REMOVED_TAG = "studykit::removed"


def removed_ref(note: PlannedNote) -> str:
    """`deck/card` of a removed card; a dropped variant of a computed card says which."""
    ref = f"{note.deck_id}/{note.card_id}"
    variant = note.guid_key[3] if len(note.guid_key) > 3 else ""
    return f"{ref} ({variant.replace('-', ' ')})" if variant.startswith("variant-") else ref


def with_removed(
    plan: ExportPlan, gone: Mapping[str, tuple[PlannedNote, PlannedDeck]]
) -> ExportPlan:
    """`plan` plus the `gone` notes (guid -> note and deck), tagged removed, with their decks."""
    if not gone:
        return plan
    decks = {deck.id: deck for deck in plan.decks}
    notes: list[PlannedNote] = []
    refs: dict[str, None] = {}
    for guid in sorted(gone):
        note, deck = gone[guid]
        decks.setdefault(deck.id, deck)
        tags = note.tags if REMOVED_TAG in note.tags else (*note.tags, REMOVED_TAG)
        notes.append(note._replace(tags=tags, removed=True))
        refs.setdefault(removed_ref(note), None)
    return replace(
        plan,
        decks=tuple(decks.values()),
        notes=(*plan.notes, *notes),
        removed=(*plan.removed, *refs),
    )

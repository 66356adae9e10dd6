"""Moving a ledger of the row-per-note format into blobs, once, so that nothing is lost.

Before blobs (`blobs`), the ledger kept a row per note in `notes` (GUID, digest, time), one
per note in `records` (GUID, deck, JSON record, removed) and one per field in `html`. A user
who exported then keeps each note's time and the records of removed cards. The old HTML cache
is not moved (it was keyed by hashes, the cache now by text): the next export renders again.
The old tables go in the same transaction, so a ledger is moved once, whoever opens it first.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from studykit.export.blobs import encode, ensure_table, read_blobs, write_blob
from studykit.export.deckrecords import (
    MODELS,
    Stamp,
    decode_records,
    decode_stamps,
    encode_records,
    encode_stamps,
)
from studykit.export.plan import PlannedDeck, PlannedNote

UNKNOWN_DECK = ""
"""Where a note of the old format without a record goes, until it is exported again."""


def _old_tables(db: sqlite3.Connection) -> dict[str, str]:
    query = "SELECT name, type FROM sqlite_master WHERE name IN ('notes', 'records', 'html')"
    return dict(db.execute(query).fetchall())


def migrate_rows(db: sqlite3.Connection, version: str) -> None:
    """Move the old tables' rows into blobs of `version` and drop the tables, if there are any."""
    if not _old_tables(db):
        return
    with db:
        db.execute("BEGIN IMMEDIATE")
        found = _old_tables(db)  # again under the lock: another export may have done it
        if not found:
            return
        ensure_table(db)
        stamps, records = _old_notes(db)
        for deck_id, entries in stamps.items():
            stored = read_blobs(db, "stamps", version, decode_stamps, {deck_id})
            merged = stored.get(deck_id, {}) | entries
            columns = encode_stamps(
                list(merged),
                [digest for _, digest, _, _ in merged.values()],
                [mod for _, _, mod, _ in merged.values()],
                [live for _, _, _, live in merged.values()],
            )
            body = encode(columns)
            write_blob(db, "stamps", deck_id, version, body)
        for deck_id, (deck, notes) in records.items():
            kept = read_blobs(db, "records", version, decode_records, {deck_id})
            written = kept.get(deck_id, (deck, {}))[1] | notes
            body = encode(encode_records(deck, list(written.items())))
            write_blob(db, "records", deck_id, version, body)
        for name, kind in found.items():
            db.execute(f"DROP {'VIEW' if kind == 'view' else 'TABLE'} IF EXISTS {name}")


def _rows(db: sqlite3.Connection, query: str, *args: object) -> list[Any]:
    """The rows of an old table; none where it is damaged or has another shape."""
    try:
        return db.execute(query, args).fetchall()
    except sqlite3.DatabaseError:
        return []


def _old_notes(
    db: sqlite3.Connection,
) -> tuple[dict[str, dict[str, Stamp]], dict[str, tuple[PlannedDeck, dict[str, PlannedNote]]]]:
    """deck id -> stamps, and deck id -> (deck, notes) of the records still current."""
    decks: dict[str, str] = {}
    kept: dict[str, tuple[PlannedNote, PlannedDeck]] = {}
    for guid, deck_id, record, removed in _rows(
        db, "SELECT guid, deck_id, record, removed FROM records"
    ):
        decks[guid] = str(deck_id)
        read = _old_record(record) if removed == 0 else None
        if read is not None and read[0].deck_id == deck_id:
            kept[guid] = read
    stamps: dict[str, dict[str, Stamp]] = {}
    records: dict[str, tuple[PlannedDeck, dict[str, PlannedNote]]] = {}
    for guid, digest, mod in _rows(db, "SELECT guid, digest, mod FROM notes"):
        if not (isinstance(guid, str) and isinstance(digest, str) and type(mod) is int):
            continue
        deck_id = decks.get(guid, UNKNOWN_DECK)
        stamps.setdefault(deck_id, {})[guid] = (deck_id, digest, mod, guid in kept)
        if guid in kept:
            note, deck = kept[guid]
            records.setdefault(deck_id, (deck, {}))[1][guid] = note
    return stamps, records


def _old_record(text: object) -> tuple[PlannedNote, PlannedDeck] | None:
    """A note and its deck from an old JSON record; None if it is not one."""
    try:
        data = json.loads(text)  # type: ignore[arg-type]
        deck = PlannedDeck(*(str(part) for part in data["deck"][:3]))
        note = PlannedNote(
            model=data["model"],
            deck_id=deck.id,
            card_id=str(data["card_id"]),
            guid_key=tuple(str(part) for part in data["guid_key"]),
            fields=tuple(str(field) for field in data["fields"]),
            tags=tuple(str(tag) for tag in data["tags"]),
        )
    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
        return None
    return (note, deck) if note.model in MODELS else None

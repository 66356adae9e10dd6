"""A ledger of the row-per-note format (before blobs) is moved into blobs, losing nothing."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import genanki
from anki.collection import Collection

from studykit.content.loading import Library, load_library
from studykit.export import export_anki
from studykit.export.anki import note_digest
from studykit.export.fieldcache import renderer_version
from studykit.export.ledger import ExportLedger
from studykit.export.plan import plan_export, selected_decks
from studykit.export.variants import variant_source
from tests.unit.test_export_anki import DECK, import_package, write_root

# The old format's tables, as the ledger made them before blobs.
OLD_SCHEMA = """
CREATE TABLE IF NOT EXISTS notes
  (guid TEXT PRIMARY KEY, digest TEXT NOT NULL, mod INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS records (guid TEXT PRIMARY KEY, deck_id TEXT NOT NULL,
  record TEXT NOT NULL, removed INTEGER NOT NULL DEFAULT 0 CHECK (removed IN (0, 1)));
CREATE TABLE IF NOT EXISTS html (key TEXT PRIMARY KEY, version TEXT NOT NULL,
  html TEXT NOT NULL, check_sum TEXT NOT NULL);
"""
WITHOUT_TERM = DECK.replace(
    "  - id: term\n    kind: reversed\n    front: Term\n",
    "  - id: term2\n    kind: reversed\n    front: Other term\n",
)


def old_ledger(path: Path, library: Library, mod: int) -> None:
    """The ledger the old code wrote for an export of `library` at `mod`: its SQL, its JSON."""
    plan = plan_export(library, selected_decks(library), variant_source=variant_source())
    decks = {deck.id: deck for deck in plan.decks}
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path)) as db, db:
        db.executescript(OLD_SCHEMA)
        for note in plan.notes:
            deck = decks[note.deck_id]
            guid = genanki.guid_for(*note.guid_key)
            record = {
                "model": note.model,
                "deck": [deck.id, deck.name, deck.description],
                "card_id": note.card_id,
                "guid_key": list(note.guid_key),
                "fields": list(note.fields),
                "tags": list(note.tags),
            }
            db.execute(
                "INSERT INTO notes VALUES (?, ?, ?)", (guid, note_digest(note, deck.name), mod)
            )
            db.execute(
                "INSERT INTO records VALUES (?, ?, ?, 0)",
                (guid, note.deck_id, json.dumps(record, ensure_ascii=False)),
            )
        # A card removed and sent as removed long ago: never again.
        db.execute("INSERT INTO notes VALUES ('long-gone', 'x', ?)", (mod,))
        gone = {"model": "basic", "deck": ["demo", "Demo", ""], "card_id": "old"}
        gone |= {"guid_key": ["studykit", "demo", "old"], "fields": ["a", "b", ""], "tags": []}
        db.execute("INSERT INTO records VALUES ('long-gone', 'demo', ?, 1)", (json.dumps(gone),))
        kept = hashlib.blake2b(b"<p>kept</p>", digest_size=8).hexdigest()
        rows = [("kept", "<p>kept</p>", kept), ("damaged", "<p>bad</p>", "0")]
        db.executemany(f"INSERT INTO html VALUES (?, '{renderer_version()}', ?, ?)", rows)


def test_an_old_ledger_keeps_times_and_sends_a_removed_card_once(
    tmp_path: Path, collection: Collection
) -> None:
    root = write_root(tmp_path / "root")
    first = export_anki(load_library(root), tmp_path / "1.apkg", timestamp=1000)
    assert len(import_package(collection, first.path).new) == first.notes
    ledger = ExportLedger.in_data_dir(tmp_path / "data")
    old_ledger(ledger.path, load_library(root), mod=1000)

    assert ledger.field_cache().known == {}  # the old cache's keys were hashes: not moved
    (root / "decks" / "demo.yaml").write_text(WITHOUT_TERM, encoding="utf-8")
    second = export_anki(load_library(root), tmp_path / "2.apkg", ledger=ledger, timestamp=2000)
    assert second.removed == ("demo/term",)
    log = import_package(collection, second.path)
    # Only the removed card changed (tagged); the rest kept their time, so Anki skips them.
    assert (len(log.new), len(log.updated)) == (1, 1)
    assert len(collection.find_notes("tag:studykit::removed Term")) == 1

    third = export_anki(load_library(root), tmp_path / "3.apkg", ledger=ledger, timestamp=3000)
    assert third.removed == ()
    log = import_package(collection, third.path)
    assert (len(log.new), len(log.updated)) == (0, 0)
    with closing(sqlite3.connect(ledger.path)) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert not tables & {"notes", "records", "html"}


def test_damaged_old_tables_lose_only_what_is_damaged(tmp_path: Path) -> None:
    root = write_root(tmp_path / "root")
    ledger = ExportLedger.in_data_dir(tmp_path / "data")
    old_ledger(ledger.path, load_library(root), mod=1000)
    with closing(sqlite3.connect(ledger.path)) as db:
        db.executescript(
            "DROP TABLE records; CREATE TABLE records (guid TEXT);"
            "DROP TABLE html; CREATE VIEW html AS SELECT 1 AS x;"
        )
    result = export_anki(load_library(root), tmp_path / "2.apkg", ledger=ledger, timestamp=2000)
    assert result.removed == ()  # the records are lost
    times = {mod for _, _, mod, _ in ledger.notes().known.values()}
    assert times == {1000}  # but not the times: every note is as the old ledger had it

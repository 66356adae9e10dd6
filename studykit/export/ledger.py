"""When each exported note's content last changed, so that only changed notes look newer.

Anki's import updates a note when the package's note is newer than its own copy, and counts
every newer note as updated, changed or not. So a note keeps the modification time of the
export where its content (a digest) last changed; a changed note gets the export's time, at
least one second past its previous one (times are whole seconds).

The ledger also keeps each exported note as written, so that a note whose card is gone can
be exported once more, marked removed; and rendered field HTML by content hash
(`fieldcache`), so that an unchanged field is not rendered again. All of it is kept by deck,
one blob per deck and kind (`blobs`): "stamps" and "records" (`deckrecords`), and "html".
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from pathlib import Path

from studykit.core.terminal import shorten, terminal_safe
from studykit.export.blobs import (
    BadBlob,
    Damage,
    encode,
    ensure_table,
    read_blobs,
    stale_blobs,
    strings,
    write_blob,
)
from studykit.export.deckrecords import (
    Stamp,
    decode_records,
    decode_stamps,
    encode_records,
    encode_stamps,
)
from studykit.export.fieldcache import FieldCache
from studykit.export.ledgermigrate import migrate_rows
from studykit.export.plan import ExportPlan, PlannedDeck, PlannedNote

LEDGER_FILENAME = "anki-export.sqlite3"
NOTES_VERSION = "1"
"""The format of the stamps and records blobs; blobs of another are ignored."""


class ExportLedger:
    """A small SQLite file in the data dir: each deck's notes and rendered fields."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.damaged: list[Damage] = []
        """Blobs found damaged by this ledger's reads (left unread, written anew)."""

    @classmethod
    def in_data_dir(cls, data_dir: Path) -> ExportLedger:
        """The ledger that lives beside the review database."""
        return cls(Path(data_dir) / LEDGER_FILENAME)

    def connect(self) -> sqlite3.Connection:
        """The ledger's database, moved out of the row-per-note format first if it has that."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=10)
        try:
            migrate_rows(db, NOTES_VERSION)
        except BaseException:
            db.close()
            raise
        return db

    def notes(self) -> LedgerNotes:
        """What the ledger knows of every note exported before."""
        with closing(self.connect()) as db:
            decks = read_blobs(db, "stamps", NOTES_VERSION, decode_stamps, None, self.damaged)
        known: dict[str, Stamp] = {}
        for stamps in decks.values():
            known.update(stamps)
        return LedgerNotes(self, known)

    def field_cache(self) -> FieldCache:
        """The cached HTML of this renderer; a damaged blob (or table) is ignored, and redone."""
        cache = FieldCache()
        try:
            with closing(self.connect()) as db:
                decks = read_blobs(db, "html", cache.version, _decode_html, None, self.damaged)
        except sqlite3.DatabaseError:  # unreadable: render everything; `keep_html` writes it
            self.damaged.append(Damage("html", ""))
            return cache
        for deck_id, entries in decks.items():
            cache.known.update(entries)
            cache.stored[deck_id] = entries.keys()
        return cache

    def keep_html(self, cache: FieldCache, decks: Collection[str]) -> None:
        """Keep, for each deck exported, the HTML of the fields it used.

        Blobs of decks not in `decks` (the library's), and of other renderers, go.
        """
        changed = {
            deck_id: used
            for deck_id, used in cache.used.items()
            if cache.stored.get(deck_id) != used.keys()
        }
        with closing(self.connect()) as db, db:
            if not changed and not stale_blobs(db, "html", decks, cache.version):
                return  # the usual export where nothing changed: no write, no lock
            db.execute("BEGIN IMMEDIATE")
            ensure_table(db)
            for deck_id, used in changed.items():
                body = encode([list(used), list(used.values())])
                write_blob(db, "html", deck_id, cache.version, body)
            db.executemany(
                "DELETE FROM blobs WHERE kind = 'html' AND deck_id = ?",
                [(deck_id,) for deck_id in stale_blobs(db, "html", decks, cache.version)],
            )


class LedgerNotes:
    """The ledger's notes as read at the start of an export."""

    def __init__(self, ledger: ExportLedger, known: dict[str, Stamp]) -> None:
        self.ledger = ledger
        self.known = known

    def gone(
        self, present: Collection[str], deck_ids: Collection[str] | None
    ) -> dict[str, tuple[PlannedNote, PlannedDeck]]:
        """guid -> note and deck of notes exported before, absent now, not yet sent as removed.

        Only notes of `deck_ids` count (all decks when None).
        """
        wanted = {
            guid: deck_id
            for guid, (deck_id, _, _, live) in self.known.items()
            if live and guid not in present and (deck_ids is None or deck_id in deck_ids)
        }
        if not wanted:
            return {}
        with closing(self.ledger.connect()) as db:
            decks = read_blobs(
                db,
                "records",
                NOTES_VERSION,
                decode_records,
                set(wanted.values()),
                self.ledger.damaged,
            )
        found: dict[str, tuple[PlannedNote, PlannedDeck]] = {}
        for guid, deck_id in wanted.items():
            deck, notes = decks.get(deck_id, (None, {}))
            note = notes.get(guid)
            if deck is not None and note is not None:  # else its record is lost: not sent
                found[guid] = (note, deck)
        return found

    @contextmanager
    def stamping(
        self, plan: ExportPlan, guids: Sequence[str], digests: Mapping[str, str], now: int
    ) -> Iterator[dict[str, int]]:
        """Modification times of the notes of `plan` (by `guids`), recorded if the block succeeds.

        `digests` maps each GUID to its note's content digest. The notes are recorded as
        written; those marked removed as sent removed (a note written again is current once
        more). Only decks where something changed are written again.
        """
        stamps: dict[str, int] = {}
        touched: set[str] = set()
        for guid, note in zip(guids, plan.notes, strict=True):
            before = self.known.get(guid)
            if before is None:
                stamps[guid] = now
                touched.add(note.deck_id)
                continue
            deck_id, digest, mod, live = before
            if digest != digests[guid]:
                stamps[guid] = max(now, mod + 1)
                touched.update((note.deck_id, deck_id))
            else:
                stamps[guid] = mod
                if deck_id != note.deck_id or live == note.removed:
                    touched.update((note.deck_id, deck_id))
        yield stamps
        if touched:
            with closing(self.ledger.connect()) as db, db:
                db.execute("BEGIN IMMEDIATE")  # read again and write under one lock
                ensure_table(db)
                _record(db, touched, plan, guids, digests, stamps, self.ledger.damaged)


def _record(
    db: sqlite3.Connection,
    touched: set[str],
    plan: ExportPlan,
    guids: Sequence[str],
    digests: Mapping[str, str],
    stamps: Mapping[str, int],
    damaged: list[Damage],
) -> None:
    """Write the stamps and records of the `touched` decks, merged into what is stored now."""
    stored = read_blobs(db, "stamps", NOTES_VERSION, decode_stamps, touched, damaged)
    # Per deck: the columns of its stamps (GUIDs, digests, times, live), its current notes.
    columns = {deck_id: _DeckColumns() for deck_id in touched}
    for guid, note in zip(guids, plan.notes, strict=True):
        deck = columns.get(note.deck_id)
        if deck is not None:
            deck.add(guid, digests[guid], stamps[guid], note)
    exported = set(guids)
    headers = {deck.id: deck for deck in plan.decks}
    for deck_id, deck in columns.items():
        # What is stored of notes not in this export (a note exported in another deck now
        # has left this one); the rest is as written now.
        kept = {g: stamp for g, stamp in stored.get(deck_id, {}).items() if g not in exported}
        header = headers.get(deck_id)
        pending = [guid for guid, (_, _, _, live) in kept.items() if live]
        if pending:  # gone, not yet sent as removed: keep their records
            old = read_blobs(db, "records", NOTES_VERSION, decode_records, {deck_id}, damaged)
            old_header, old_notes = old.get(deck_id, (None, {}))
            header = header or old_header
            for guid in pending:
                if guid in old_notes:
                    deck.current.append((guid, old_notes[guid]))
                else:  # its record is lost: it can never be sent as removed
                    kept[guid] = (*kept[guid][:3], False)
        for guid, (_, digest, mod, live) in kept.items():
            deck.add(guid, digest, mod, None, live)
        body = encode(encode_stamps(deck.guids, deck.digests, deck.mods, deck.live))
        write_blob(db, "stamps", deck_id, NOTES_VERSION, body)
        if deck.current and header is not None:
            body = encode(encode_records(header, deck.current))
            write_blob(db, "records", deck_id, NOTES_VERSION, body)
        else:
            db.execute("DELETE FROM blobs WHERE kind = 'records' AND deck_id = ?", (deck_id,))


class _DeckColumns:
    """One deck's stamps as columns, and its notes to record, as `_record` gathers them."""

    def __init__(self) -> None:
        self.guids: list[str] = []
        self.digests: list[str] = []
        self.mods: list[int] = []
        self.live: list[bool] = []
        self.current: list[tuple[str, PlannedNote]] = []

    def add(
        self, guid: str, digest: str, mod: int, note: PlannedNote | None, live: bool = True
    ) -> None:
        """A note as written now (`note`), or as stored (None, and whether it is `live`)."""
        self.guids.append(guid)
        self.digests.append(digest)
        self.mods.append(mod)
        if note is not None:
            live = not note.removed
            if live:
                self.current.append((guid, note))
        self.live.append(live)


def _decode_html(deck_id: str, value: object) -> dict[str, str]:
    if not isinstance(value, list) or len(value) != 2:
        raise BadBlob("expected keys and HTML")
    keys, html = strings(value[0]), strings(value[1])
    if len(keys) != len(html):
        raise BadBlob("keys and HTML of different lengths")
    return dict(zip(keys, html, strict=True))


_CONSEQUENCE = {
    "stamps": "note times were lost: Anki will count their notes as updated once",
    "records": "notes as written were lost: cards removed from them cannot be sent as removed",
    "html": "cached HTML was lost: their fields were rendered again",
}


def damage_lines(damaged: Collection[Damage]) -> list[str]:
    """One line per kind of damaged blob: which decks, and what the export lost by it."""
    decks_by_kind: dict[str, dict[str, None]] = {}
    for kind, deck_id in damaged:
        name = shorten(terminal_safe(deck_id)) if deck_id else "(all decks)"
        decks_by_kind.setdefault(kind, {})[name] = None
    return [
        f"Export ledger damaged ({', '.join(sorted(decks))}), now rebuilt: "
        f"{_CONSEQUENCE.get(kind, 'its contents were lost')}."
        for kind, decks in decks_by_kind.items()
    ]

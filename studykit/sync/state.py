"""The sync's own bookkeeping beside the mirror (`state.sqlite3`): whose mirror it is, how far
its log has been read, which notes studykit put into it (and their fields as written), the
conflicts still open, and which cards were hidden when they last went out.

All of it can be rebuilt: a lost file means one sync that reads the whole mirror again. The
answers themselves live in the study database, where a row's Anki revlog id dedupes them.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # Our notes in the mirror: which card each is (rank 0 carries the schedule; a computed
    # card's other baked variants follow), its note id there, and its fields as imported.
    """CREATE TABLE IF NOT EXISTS notes (
        guid TEXT PRIMARY KEY,
        deck_id TEXT NOT NULL,
        card_id TEXT NOT NULL,
        rank INTEGER NOT NULL,
        nid INTEGER,
        fields TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS notes_card ON notes (card_id, deck_id, rank)",
    "CREATE INDEX IF NOT EXISTS notes_nid ON notes (nid)",
    """CREATE TABLE IF NOT EXISTS conflicts (
        guid TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('edited', 'deleted')),
        deck_id TEXT NOT NULL,
        card_id TEXT NOT NULL,
        since_us INTEGER NOT NULL,
        digest TEXT,
        detail TEXT NOT NULL DEFAULT ''
    )""",
    "CREATE TABLE IF NOT EXISTS hidden (cid INTEGER PRIMARY KEY, queue INTEGER NOT NULL)",
)


def field_hashes(fields: Sequence[str]) -> str:
    """One short hash per field, space-separated: what tells an edited field."""
    return " ".join(hashlib.sha1(field.encode()).hexdigest()[:12] for field in fields)


@dataclass(frozen=True)
class HeldNote:
    """One of our notes in the mirror."""

    guid: str
    deck_id: str
    card_id: str
    rank: int
    nid: int | None
    fields: str


@dataclass(frozen=True)
class Conflict:
    """A note changed in Anki that YAML, the master copy, has not taken back."""

    guid: str
    kind: str
    deck_id: str
    card_id: str
    since_us: int
    digest: str | None
    detail: str


_MANY_CARDS = 2000


class SyncState:
    """The bookkeeping file; each write is one committed transaction."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        try:
            self._db.execute("PRAGMA journal_mode = WAL")
            # All of it can be rebuilt (see above): a crash may lose the last commit, no more.
            self._db.execute("PRAGMA synchronous = NORMAL")
            with self._write() as db:
                for statement in _SCHEMA:
                    db.execute(statement)
        except BaseException:
            self._db.close()
            raise

    def close(self) -> None:
        """Close the file."""
        self._db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # -- meta ----------------------------------------------------------------------------

    def get(self, key: str) -> Any:
        """A stored value (JSON), None when unset."""
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def set(self, **values: Any) -> None:
        """Store values (JSON; None removes one), in one transaction."""
        with self._write() as db:
            for key, value in values.items():
                if value is None:
                    db.execute("DELETE FROM meta WHERE key = ?", (key,))
                else:
                    db.execute(
                        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                        (key, json.dumps(value)),
                    )

    def reset(self) -> None:
        """Forget everything (a new mirror)."""
        with self._write() as db:
            for table in ("meta", "notes", "conflicts", "hidden"):
                db.execute(f"DELETE FROM {table}")

    # -- our notes -----------------------------------------------------------------------

    def put_notes(self, notes: Iterable[HeldNote]) -> None:
        """Record (replace) our notes as imported."""
        with self._write() as db:
            db.executemany(
                "INSERT OR REPLACE INTO notes (guid, deck_id, card_id, rank, nid, fields) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(n.guid, n.deck_id, n.card_id, n.rank, n.nid, n.fields) for n in notes],
            )

    def drop_notes(self, guids: Iterable[str]) -> None:
        """Forget notes that are no longer in the mirror."""
        with self._write() as db:
            db.executemany("DELETE FROM notes WHERE guid = ?", [(g,) for g in guids])

    def notes(self, guids: Sequence[str] | None = None) -> dict[str, HeldNote]:
        """Our notes by GUID (all of them, or these)."""
        select = "SELECT guid, deck_id, card_id, rank, nid, fields FROM notes"
        if guids is None:
            return {row[0]: HeldNote(*row) for row in self._db.execute(select)}
        found: dict[str, HeldNote] = {}
        for start in range(0, len(guids), 500):
            chunk = tuple(guids[start : start + 500])
            marks = ", ".join("?" for _ in chunk)
            for row in self._db.execute(f"{select} WHERE guid IN ({marks})", chunk):
                found[row[0]] = HeldNote(*row)
        return found

    def notes_of_cards(
        self, cards: Iterable[tuple[str, str]]
    ) -> dict[tuple[str, str], list[HeldNote]]:
        """Our notes of these (deck id, card id), by rank."""
        wanted = set(cards)
        found: dict[tuple[str, str], list[HeldNote]] = {}
        card_ids = sorted({card_id for _, card_id in wanted})
        for row in self._notes_rows(card_ids):
            if (row[1], row[2]) in wanted:
                found.setdefault((row[1], row[2]), []).append(HeldNote(*row))
        for notes in found.values():
            notes.sort(key=lambda note: note.rank)
        return found

    def _notes_rows(self, card_ids: Sequence[str]) -> Iterator[tuple[Any, ...]]:
        select = "SELECT guid, deck_id, card_id, rank, nid, fields FROM notes"
        if len(card_ids) > _MANY_CARDS:  # most of them (a first sync): one read of the table
            yield from self._db.execute(select)
            return
        for start in range(0, len(card_ids), 500):
            chunk = tuple(card_ids[start : start + 500])
            yield from self._db.execute(
                f"{select} WHERE card_id IN ({', '.join('?' for _ in chunk)})", chunk
            )

    def notes_by_nid(self, nids: Sequence[int]) -> dict[int, HeldNote]:
        """Our notes by their note id in the mirror."""
        found: dict[int, HeldNote] = {}
        for start in range(0, len(nids), 500):
            chunk = tuple(nids[start : start + 500])
            marks = ", ".join("?" for _ in chunk)
            rows = self._db.execute(
                f"SELECT guid, deck_id, card_id, rank, nid, fields FROM notes "
                f"WHERE nid IN ({marks})",
                chunk,
            )
            for row in rows:
                found[row[4]] = HeldNote(*row)
        return found

    def note_count(self) -> int:
        """How many of our notes the mirror holds."""
        return int(self._db.execute("SELECT count(*) FROM notes").fetchone()[0])

    # -- conflicts -----------------------------------------------------------------------

    def conflicts(self) -> dict[str, Conflict]:
        """The open conflicts by GUID."""
        rows = self._db.execute(
            "SELECT guid, kind, deck_id, card_id, since_us, digest, detail FROM conflicts"
        )
        return {row[0]: Conflict(*row) for row in rows}

    def put_conflicts(self, conflicts: Iterable[Conflict]) -> None:
        """Record (replace) conflicts."""
        conflicts = list(conflicts)
        if not conflicts:
            return
        with self._write() as db:
            db.executemany(
                "INSERT OR REPLACE INTO conflicts (guid, kind, deck_id, card_id, since_us, "
                "digest, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (c.guid, c.kind, c.deck_id, c.card_id, c.since_us, c.digest, c.detail)
                    for c in conflicts
                ],
            )

    def drop_conflicts(self, guids: Iterable[str]) -> None:
        """Close conflicts (the YAML changed, or the notes agree again)."""
        guids = list(guids)
        if not guids:
            return
        with self._write() as db:
            db.executemany("DELETE FROM conflicts WHERE guid = ?", [(g,) for g in guids])

    # -- hidden cards ----------------------------------------------------------------------

    def hidden(self) -> dict[int, int]:
        """Anki card id -> queue of our cards that were suspended or buried when they went out."""
        return dict(self._db.execute("SELECT cid, queue FROM hidden").fetchall())

    def put_hidden(self, shown: Mapping[int, int | None]) -> None:
        """Record the queue each card went out with (None: shown)."""
        if not shown:
            return
        with self._write() as db:
            db.executemany(
                "DELETE FROM hidden WHERE cid = ?",
                [(cid,) for cid, queue in shown.items() if queue is None],
            )
            db.executemany(
                "INSERT OR REPLACE INTO hidden (cid, queue) VALUES (?, ?)",
                [(cid, queue) for cid, queue in shown.items() if queue is not None],
            )


@contextmanager
def open_state(path: Path) -> Iterator[SyncState]:
    """The bookkeeping file, closed at the end of the block."""
    with closing(SyncState(path)) as state:
        yield state

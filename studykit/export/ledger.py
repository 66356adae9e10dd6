"""When each exported note's content last changed, so that only changed notes look newer.

Anki's import updates a note when the package's note is newer than its own copy, and counts
every newer note as updated, changed or not. So a note keeps the modification time of the
export where its content (a digest) last changed; a changed note gets the export's time, at
least one second past its previous one (times are whole seconds).

The ledger also keeps each exported note as written (an opaque JSON record, by deck), so a
note whose card is gone can be exported once more, marked removed; and rendered field HTML
by content hash (`fieldcache`), so an unchanged field is not rendered again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import closing, contextmanager
from pathlib import Path

from studykit.export.fieldcache import FieldCache, html_check

LEDGER_FILENAME = "anki-export.sqlite3"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS notes "
    "(guid TEXT PRIMARY KEY, digest TEXT NOT NULL, mod INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS records (guid TEXT PRIMARY KEY, deck_id TEXT NOT NULL, "
    "record TEXT NOT NULL, removed INTEGER NOT NULL DEFAULT 0 CHECK (removed IN (0, 1)))",
)
_HTML_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS html (key TEXT PRIMARY KEY, version TEXT NOT NULL, "
    "html TEXT NOT NULL, check_sum TEXT NOT NULL)"
)


class ExportLedger:
    """A small SQLite file in the data dir: note GUID -> content digest and modification time."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    @classmethod
    def in_data_dir(cls, data_dir: Path) -> ExportLedger:
        """The ledger that lives beside the review database."""
        return cls(Path(data_dir) / LEDGER_FILENAME)

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=10)
        for statement in _SCHEMA:
            db.execute(statement)
        return db

    def field_cache(self) -> FieldCache:
        """The cached HTML of this renderer; a damaged table or entry is ignored (and redone)."""
        cache = FieldCache()
        try:
            with closing(self._connect()) as db:
                db.execute(_HTML_SCHEMA)
                rows = db.execute(
                    "SELECT key, html, check_sum FROM html WHERE version = ?", (cache.version,)
                ).fetchall()
        except sqlite3.DatabaseError:
            return cache  # unreadable: render everything; `keep_html` rebuilds the table
        for key, html, check in rows:
            if isinstance(html, str) and check == html_check(html):
                cache.known[key] = html
        return cache

    def keep_html(self, cache: FieldCache) -> None:
        """Store the HTML rendered in this export; entries of older renderers go."""
        rows = [(key, cache.version, html, html_check(html)) for key, html in cache.new.items()]
        with closing(self._connect()) as db, db:
            try:
                db.execute(_HTML_SCHEMA)
                db.execute("DELETE FROM html WHERE version != ?", (cache.version,))
            except sqlite3.DatabaseError:  # a damaged cache table (or a view): start it again
                found = db.execute("SELECT type FROM sqlite_master WHERE name = 'html'").fetchone()
                db.execute(f"DROP {'VIEW' if found and found[0] == 'view' else 'TABLE'} html")
                db.execute(_HTML_SCHEMA)
            db.executemany("INSERT OR REPLACE INTO html VALUES (?, ?, ?, ?)", rows)

    def gone(self, present: Collection[str], deck_ids: Collection[str] | None) -> dict[str, str]:
        """guid -> record of notes exported before, absent now and not yet exported as removed.

        Only notes of `deck_ids` count (all decks when None).
        """
        with closing(self._connect()) as db:
            rows = db.execute("SELECT guid, deck_id FROM records WHERE removed = 0")
            wanted = [
                guid
                for guid, deck_id in rows
                if guid not in present and (deck_ids is None or deck_id in deck_ids)
            ]
            return {  # only the few gone records are read whole
                guid: db.execute("SELECT record FROM records WHERE guid = ?", (guid,)).fetchone()[0]
                for guid in wanted
            }

    @contextmanager
    def stamping(
        self,
        digests: Mapping[str, str],
        now: int,
        *,
        records: Mapping[str, tuple[str, str]] | None = None,
        removed: Iterable[str] = (),
    ) -> Iterator[dict[str, int]]:
        """Modification times for `digests` (guid -> digest), recorded if the block succeeds.

        With it, `records` (guid -> (deck id, record)) are kept, and `removed` guids marked
        as exported removed (a record written again is current once more). A record is read
        from `records` only when its note changed or the ledger lacks it or has it removed, so
        `records` may build each one on demand.
        """
        with closing(self._connect()) as db:
            known = {
                guid: (digest, mod)
                for guid, digest, mod in db.execute("SELECT guid, digest, mod FROM notes")
            }
            stamps: dict[str, int] = {}
            changed: list[tuple[str, str, int]] = []
            for guid, digest in digests.items():
                before = known.get(guid)
                if before is not None and before[0] == digest:
                    stamps[guid] = before[1]
                else:
                    stamps[guid] = max(now, before[1] + 1) if before is not None else now
                    changed.append((guid, digest, stamps[guid]))
            fresh = {guid for guid, _, _ in changed}
            kept = {
                guid: removed for guid, removed in db.execute("SELECT guid, removed FROM records")
            }
            rows = [
                (guid, *(records or {})[guid])
                for guid in (records or {})
                if guid in fresh or kept.get(guid, 1)
            ]
            yield stamps
            with db:
                db.executemany(
                    "INSERT INTO notes (guid, digest, mod) VALUES (?, ?, ?) "
                    "ON CONFLICT (guid) DO UPDATE SET digest = excluded.digest, mod = excluded.mod",
                    changed,
                )
                db.executemany(
                    "INSERT INTO records (guid, deck_id, record, removed) VALUES (?, ?, ?, 0) "
                    "ON CONFLICT (guid) DO UPDATE SET deck_id = excluded.deck_id, "
                    "record = excluded.record, removed = 0",
                    rows,
                )
                db.executemany(
                    "UPDATE records SET removed = 1 WHERE guid = ?", [(g,) for g in removed]
                )

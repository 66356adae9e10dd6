"""When each exported note's content last changed, so that only changed notes look newer.

Anki's import updates a note when the package's note is newer than its own copy, and counts
every newer note as updated, changed or not. So a note keeps the modification time of the
export where its content (a digest) last changed; a changed note gets the export's time, at
least one second past its previous one (times are whole seconds).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager
from pathlib import Path

LEDGER_FILENAME = "anki-export.sqlite3"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS notes "
    "(guid TEXT PRIMARY KEY, digest TEXT NOT NULL, mod INTEGER NOT NULL)"
)


class ExportLedger:
    """A small SQLite file in the data dir: note GUID -> content digest and modification time."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    @classmethod
    def in_data_dir(cls, data_dir: Path) -> ExportLedger:
        """The ledger that lives beside the review database."""
        return cls(Path(data_dir) / LEDGER_FILENAME)

    @contextmanager
    def stamping(self, digests: Mapping[str, str], now: int) -> Iterator[dict[str, int]]:
        """Modification times for `digests` (guid -> digest), recorded if the block succeeds."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(self.path, timeout=10)) as db:
            db.execute(_SCHEMA)
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
            yield stamps
            with db:
                db.executemany(
                    "INSERT INTO notes (guid, digest, mod) VALUES (?, ?, ?) "
                    "ON CONFLICT (guid) DO UPDATE SET digest = excluded.digest, mod = excluded.mod",
                    changed,
                )

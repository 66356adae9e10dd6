"""The last package written, kept in the data dir, so an export where nothing changed copies it.

An export's package is decided by its inputs: every note as written (model, deck, GUID,
fields, tags, modification time), the decks and their presets, the media files' names and
bytes, the package time when a caller fixes it, the scheduling (states, answers and what
the moment of the export makes of them), and the code that writes packages. A digest of all
of them is kept with the package's own hash; when the next export has the same digest and
the kept package still hashes the same, it is copied instead of built again.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from studykit.export.history import ExportSource, Scheduling
from studykit.export.plan import ExportPlan
from studykit.export.schedule import hidden_queue
from studykit.srs.records import CardState

KEPT_FILENAME = "anki-export-last.apkg"
MAX_KEPT_BYTES = 64 * 1024 * 1024
"""A bigger package is not kept: the data dir holds at most this much of it."""

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS package (one INTEGER PRIMARY KEY CHECK (one = 1), "
    "digest TEXT NOT NULL, sha256 TEXT NOT NULL, decks INTEGER NOT NULL, "
    "notes INTEGER NOT NULL, cards INTEGER NOT NULL, revlog INTEGER NOT NULL)"
)
# The modules whose code decides a package's bytes from its notes.
_WRITER = (
    ("studykit.export", "anki.py"),
    ("studykit.export", "apkgfile.py"),
    ("studykit.export", "collection.py"),
    ("studykit.export", "presets.py"),
    ("studykit.export", "removed.py"),
    ("studykit.export", "rows.py"),
    ("studykit.export", "reuse.py"),
    ("studykit.export", "schedule.py"),
    ("studykit.export", "history.py"),
    ("studykit.export", "typein.js"),
    ("studykit.export", "variants.js"),
)


@lru_cache(maxsize=1)
def writer_version() -> bytes:
    """A hash of the code that writes packages (ours and genanki's version)."""
    digest = hashlib.sha256()
    for package, name in _WRITER:
        digest.update(resources.files(package).joinpath(name).read_bytes())
    digest.update(f"genanki {metadata.version('genanki')}".encode())
    return digest.digest()


@dataclass(frozen=True)
class KeptCounts:
    """What the kept package holds."""

    decks: int
    notes: int
    cards: int
    revlog: int


def package_digest(
    plan: ExportPlan,
    guids: Sequence[str],
    notes: Mapping[str, str],
    stamps: Mapping[str, int],
    now: int,
    timestamp: float | None,
    source: ExportSource | None,
    media_files: Sequence[Path],
) -> str:
    """The digest of everything the package is made of.

    `notes` maps each GUID to its note's content digest (`anki.note_digest`).
    """
    digest = hashlib.sha256(writer_version())
    digest.update(repr(timestamp).encode())
    for deck in plan.decks:
        digest.update(repr((deck.id, deck.name, deck.description)).encode())
    if source is not None:
        digest.update(repr(sorted(source.options.items())).encode())
        if source.scheduling is not None:
            _scheduling_digest(digest, source.scheduling)
    else:
        digest.update(b"no presets")
    for guid, note in zip(guids, plan.notes, strict=True):
        # `notes[guid]` is the note's content digest: model, deck name, fields and tags.
        digest.update(
            f"{guid}\x1f{note.deck_id}\x1f{notes[guid]}\x1f{stamps.get(guid, now)}\x1e".encode()
        )
    for path in media_files:
        digest.update(repr(Path(path).name).encode())
        digest.update(hashlib.sha256(Path(path).read_bytes()).digest())
    return digest.hexdigest()


def _scheduling_digest(digest: Any, scheduling: Scheduling) -> None:
    """States and answers, and what the moment of the export makes of them.

    A schedule reads the clock only through Anki's day numbers of the instants it holds, the
    start of the next study day, and whether a burial is over (`schedule.py`); so those go in,
    and a later export on the same study day, with no answer since, reuses the package.
    """
    days = scheduling.days

    def day(moment: datetime | None) -> int | None:
        return None if moment is None else days.day(moment)

    def when(state: CardState) -> tuple[object, ...]:
        return (state, day(state.due), day(state.last_review), hidden_queue(state, scheduling.now))

    timing = (days.crt, days.today, days.tomorrow_at, scheduling.rollover_hour)
    digest.update(repr((*timing, scheduling.minutes_west)).encode())
    digest.update(repr(sorted(scheduling.sibling_buried)).encode())
    for ref, state in sorted(scheduling.states.items()):
        digest.update(repr((ref, when(state))).encode())
    for ref, answers in sorted(scheduling.answers.items()):
        for answer in answers:
            digest.update(repr((ref, answer, when(answer.before), when(answer.after))).encode())


def _file_hash(path: Path) -> str:
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def _holds(target: Path, sha: str, kept: Path) -> bool:
    """Whether `target` is a regular file with the kept package's bytes already."""
    try:
        if not target.is_file() or target.stat().st_size != kept.stat().st_size:
            return False
        return _file_hash(target) == sha
    except OSError:
        return False


@dataclass(frozen=True)
class Reused:
    """The kept package, copied to the target or found there already (`unchanged`)."""

    counts: KeptCounts
    unchanged: bool


class KeptPackage:
    """The last package written (beside the ledger), and the digest it was written for."""

    def __init__(self, ledger_path: Path) -> None:
        self.db_path = ledger_path
        self.path = ledger_path.with_name(KEPT_FILENAME)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.db_path, timeout=10)
        db.execute(_SCHEMA)
        return db

    def reuse(self, digest: str, target: Path) -> Reused | None:
        """Copy the kept package to `target` if it was written for `digest` and is intact.

        A `target` that already is that package (the last export went there) is left as it
        is: nothing to copy, and `unchanged` says so.
        """
        try:
            with closing(self._connect()) as db:
                row = db.execute(
                    "SELECT sha256, decks, notes, cards, revlog FROM package WHERE digest = ?",
                    (digest,),
                ).fetchone()
        except sqlite3.DatabaseError:
            return None
        if row is None or not self.path.is_file():
            return None
        sha, decks, notes, cards, revlog = row
        counts = KeptCounts(decks=decks, notes=notes, cards=cards, revlog=revlog)
        if _holds(target, sha, self.path):
            return Reused(counts, unchanged=True)
        partial = target.with_name(f".{target.name}.partial")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(self.path, partial)
            if _file_hash(partial) != sha:  # damaged or replaced since: build it again
                return None
            partial.replace(target)
        except OSError:
            return None
        finally:
            partial.unlink(missing_ok=True)
        return Reused(counts, unchanged=False)

    def keep(self, digest: str, written: Path, counts: KeptCounts) -> None:
        """Keep a copy of the package just written for `digest` (unless it is too big)."""
        try:
            with closing(self._connect()) as db, db:
                db.execute("DELETE FROM package")
                if written.resolve() == self.path.resolve():
                    return  # written over the kept package itself: nothing to copy
                if written.stat().st_size > MAX_KEPT_BYTES:
                    self.path.unlink(missing_ok=True)
                    return
                shutil.copyfile(written, self.path)
                db.execute(
                    "INSERT INTO package VALUES (1, ?, ?, ?, ?, ?, ?)",
                    (
                        digest,
                        _file_hash(self.path),
                        counts.decks,
                        counts.notes,
                        counts.cards,
                        counts.revlog,
                    ),
                )
        except (OSError, sqlite3.DatabaseError):
            self.path.unlink(missing_ok=True)  # the next export builds its package again

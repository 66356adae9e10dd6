"""Automatic copies of the study database in `<data dir>/backups/`, as Anki keeps them."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

BACKUP_FOLDER = "backups"
SUFFIX = ".sqlite3"
DEFAULT_KEPT = 10
# The `%Y%m%dT%H%M%S%fZ` that backups are named with; a regex, as strptime's first call
# imports _strptime (a millisecond of every start).
_TAKEN = re.compile(r"(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{1,6})Z")


@dataclass(frozen=True)
class Backup:
    """One backup file: where it is, when it was taken, and why."""

    path: Path
    taken: datetime
    reason: str

    @property
    def name(self) -> str:
        return self.path.name


def backup_folder(database: Path) -> Path:
    """The folder holding the backups of `database`."""
    return database.parent / BACKUP_FOLDER


def _parse(path: Path) -> Backup | None:
    """`studykit-20260302T090000123456Z-daily.sqlite3` -> its Backup; None for other files."""
    stem = path.name.removesuffix(SUFFIX)
    parts = stem.split("-", 2)
    if len(parts) != 3 or parts[0] != "studykit" or not path.name.endswith(SUFFIX):
        return None
    match = _TAKEN.fullmatch(parts[1])
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction = match.groups()
    try:
        taken = datetime(
            int(year),
            int(month),
            int(day),
            int(hour),
            int(minute),
            int(second),
            int(fraction.ljust(6, "0")),
            tzinfo=UTC,
        )
    except ValueError:
        return None
    return Backup(path, taken, parts[2])


def list_backups(database: Path) -> list[Backup]:
    """The backups of `database`, newest first."""
    folder = backup_folder(database)
    if not folder.is_dir():
        return []
    found = [b for p in folder.iterdir() if p.is_file() and (b := _parse(p)) is not None]
    return sorted(found, key=lambda b: b.taken, reverse=True)


def newest_backup(database: Path) -> Backup | None:
    """The most recent backup of `database`, if there is one."""
    backups = list_backups(database)
    return backups[0] if backups else None


def take_backup(conn: sqlite3.Connection, database: Path, reason: str, *, keep: int) -> Backup:
    """Copy the open database (consistently, with SQLite's backup API); keep the newest `keep`."""
    folder = backup_folder(database)
    folder.mkdir(parents=True, exist_ok=True)
    taken = datetime.now(UTC)
    target = folder / f"studykit-{taken:%Y%m%dT%H%M%S%f}Z-{reason}{SUFFIX}"
    partial = target.with_name(f".{target.name}.partial")
    try:
        dest = sqlite3.connect(partial)
        try:
            conn.backup(dest)
            dest.execute("PRAGMA journal_mode = DELETE")  # one self-contained file, no -wal
        finally:
            dest.close()
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    _prune(conn, database, max(keep, 1))
    return Backup(target, taken, reason)


def _reviews(conn: sqlite3.Connection) -> int | None:
    """Rows in the review log of an open database (None: it has none, or is unreadable)."""
    try:
        return int(conn.execute("SELECT count(*) FROM review_log").fetchone()[0])
    except sqlite3.DatabaseError:
        return None


def backup_reviews(path: Path) -> int | None:
    """How many review-log rows a backup holds (None when it cannot be read)."""
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            return _reviews(conn)
    except sqlite3.Error:
        return None


def _prune(conn: sqlite3.Connection, database: Path, keep: int) -> None:
    """Delete all but the newest `keep` backups, never the newest with more reviews than now.

    A database emptied by accident and then backed up day after day would otherwise push
    the last copy of its history out of the folder.
    """
    backups = list_backups(database)
    doomed = backups[keep:]
    if not doomed:
        return
    current = _reviews(conn) or 0
    for backup in backups:
        reviews = backup_reviews(backup.path)
        if reviews is not None and reviews > current:
            if backup in doomed:
                doomed.remove(backup)
            break
    for old in doomed:
        old.path.unlink(missing_ok=True)


def due_daily(database: Path, today: datetime) -> bool:
    """True when no backup was taken on `today`'s local calendar day."""
    newest = newest_backup(database)
    return newest is None or newest.taken.astimezone(today.tzinfo).date() != today.date()

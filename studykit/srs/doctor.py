"""`studykit doctor`'s work on the study database: check, checkpoint, restore, salvage, export."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from studykit.srs.backups import Backup, backup_folder, list_backups, take_backup
from studykit.srs.damage import emptied, is_damage
from studykit.srs.database import BUSY_TIMEOUT_MS, StoreError
from studykit.srs.lock import exclusive
from studykit.srs.records import ANSWER_COLUMNS, from_us
from studykit.srs.salvage import Salvaged, Unreadable, read_table, salvage_into
from studykit.srs.writable import read_only_reason

MAX_INTEGRITY_LINES = 20


@dataclass(frozen=True)
class Health:
    """What the integrity check and the checkpoint found."""

    problems: tuple[str, ...]  # empty: integrity ok
    checkpoint: str  # what the checkpoint did, in words
    reviews: int | None
    checkpoint_failed: bool = False  # the WAL could not be written into the file (disk full?)
    read_only: str | None = None  # why nothing can be written here (checked read-only, fine)


def _connect(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise StoreError(f"{path}: no study database here yet (nothing to check)")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that writes nothing: with the WAL when SQLite can read it so, else without.

    A read-only folder cannot take the -shm file a WAL reader needs; with no WAL waiting the
    file alone is the whole database, so `immutable` reads it exactly.
    """
    uri = path.resolve().as_uri()
    wal = Path(f"{path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        return sqlite3.connect(f"{uri}?mode=ro", uri=True)
    return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True)


def examine(path: Path) -> Health:
    """Run the integrity check, finish a pending checkpoint and count the reviews."""
    gone = emptied(path)
    if gone is not None:
        return Health((gone,), "not run", None)
    blocked = read_only_reason(path)
    with closing(_connect(path) if blocked is None else _connect_read_only(path)) as conn:
        try:
            rows = conn.execute(f"PRAGMA integrity_check({MAX_INTEGRITY_LINES})").fetchall()
        except sqlite3.DatabaseError as error:
            if blocked is not None and not is_damage(error):
                why = f"it is read-only ({blocked}) and its WAL cannot be read without writing"
                return Health((f"cannot check the file: {why} ({error})",), "not run", None)
            return Health((f"the file cannot be read as a database ({error})",), "not run", None)
        problems = tuple(str(row[0]) for row in rows if row[0] != "ok")
        if blocked is None:
            checkpoint, failed = _checkpoint(conn, path)
        else:
            checkpoint, failed = "not run: nothing can be written here (read-only)", False
        try:
            reviews = int(conn.execute("SELECT count(*) FROM review_log").fetchone()[0])
        except sqlite3.DatabaseError:
            reviews = None
    if not problems and reviews is None:
        gone = emptied(path, no_tables=True)
        problems = (gone,) if gone is not None else ()
    return Health(problems, checkpoint, reviews, failed, blocked)


def _checkpoint(conn: sqlite3.Connection, path: Path) -> tuple[str, bool]:
    """Write every WAL page into the database file and empty the WAL: (what happened, failed)."""
    wal = Path(f"{path}-wal")
    pending = wal.stat().st_size if wal.exists() else 0
    try:
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    except sqlite3.DatabaseError as error:
        return (
            f"FAILED ({error}): the newest commits are still only in {wal.name}, which must "
            "stay beside the file; free some disk space and run doctor again",
            True,
        )
    if busy:
        return "another program is using the database; close it and run doctor again", False
    if pending:
        return f"done ({pending / 1024:.1f} KB of WAL written into the file)", False
    return "nothing pending", False


def _verified(backup: Path) -> None:
    """Refuse a backup that is not a whole, readable studykit database."""
    try:
        with closing(sqlite3.connect(f"{backup.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            result = conn.execute("PRAGMA integrity_check(1)").fetchone()
            conn.execute("SELECT count(*) FROM review_log").fetchone()
    except sqlite3.DatabaseError as error:
        raise StoreError(f"{backup}: not a usable backup ({error})") from error
    if result != ("ok",):
        raise StoreError(f"{backup}: not a usable backup (integrity check: {result[0]})")


class NoSuchBackup(StoreError):
    """`--restore NAME` names no backup: bad input."""


def choose(path: Path, name: str) -> Backup:
    """The backup called `name` (or `newest`)."""
    backups = list_backups(path)
    if name == "newest" and not backups:
        raise StoreError(f"no backups in {backup_folder(path)}: nothing to restore")
    for backup in backups[:1] if name == "newest" else backups:
        if name == "newest" or backup.name == name or backup.path == Path(name):
            return backup
    if not backups:
        raise NoSuchBackup(
            f"no backup called {name!r}: there are no backups in {backup_folder(path)}"
        )
    known = ", ".join(backup.name for backup in backups[:5])
    raise NoSuchBackup(f"no backup called {name!r}; the newest are: {known}")


def restore(path: Path, backup: Backup) -> Path:
    """Replace the database with `backup`; the replaced files are kept first. Their folder.

    Refused (DatabaseInUseError, nothing changed) while any process has the database open:
    its session would go on writing into the file we replace.
    """
    _verified(backup.path)
    with exclusive(path, "run the restore"):
        partial = path.with_name(f".{path.name}.restoring")
        with (
            closing(sqlite3.connect(f"{backup.path.resolve().as_uri()}?mode=ro", uri=True)) as src,
            closing(sqlite3.connect(partial)) as dest,
        ):
            src.backup(dest)
        kept = _keep_live(path, f"replaced-{backup.taken:%Y%m%dT%H%M%S%f}")
        _swap_in(path, partial)
    return kept


def salvage(path: Path) -> tuple[Salvaged, Path]:
    """Put a new database holding every readable row of `path` in its place.

    (what was kept, the folder the damaged files were copied into first). Refused while any
    process has the database open, like a restore.
    """
    if not path.is_file():
        raise StoreError(f"{path}: no study database here (nothing to salvage)")
    with exclusive(path, "run the salvage"):
        partial = path.with_name(f".{path.name}.salvaging")
        try:
            report = salvage_into(path, partial)
        except Unreadable as error:
            partial.unlink(missing_ok=True)
            raise StoreError(
                f"{path}: nothing can be salvaged, {error}; restore a backup with "
                "`studykit doctor --restore newest`"
            ) from error
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        kept = _keep_live(path, f"damaged-{datetime.now(UTC):%Y%m%dT%H%M%S%f}")
        _swap_in(path, partial)
    return report, kept


def _keep_live(path: Path, name: str) -> Path:
    """Copy the database and its -wal/-shm into `backups/<name>-<pid>/`; that folder."""
    kept = backup_folder(path) / f"{name}-{os.getpid()}"
    kept.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        live = Path(f"{path}{suffix}")
        if live.exists():
            shutil.copy2(live, kept / live.name)
    return kept


def _swap_in(path: Path, partial: Path) -> None:
    """Put the finished file `partial` in the database's place (the old WAL goes first)."""
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    partial.replace(path)


def backup_now(path: Path, *, keep: int) -> Backup:
    """Take a backup at once (reason `manual`)."""
    with closing(_connect(path)) as conn:
        return take_backup(conn, path, "manual", keep=keep)


def review_log_lines(path: Path, damaged: list[int] | None = None) -> Iterator[str]:
    """Every readable review-log row as one JSON line, oldest first.

    Rows on damaged pages are skipped; each skipped stretch appends to `damaged`.
    """
    with closing(_connect(path)) as conn:
        present = {row[1] for row in conn.execute("PRAGMA table_info(review_log)")}
        columns = [c for c in ANSWER_COLUMNS if c in present]  # a backup may predate a column
        for row in read_table(conn, "review_log", columns):
            if not row:
                if damaged is not None:
                    damaged.append(1)
                continue
            record = dict(zip(columns, row[1:], strict=True))
            for column in [c for c in columns if c.endswith("_json")]:
                text = record.pop(column)
                record[column.removesuffix("_json")] = json.loads(text) if text else None
            stamp = record.get("reviewed_at_us")
            if isinstance(stamp, int):
                record["reviewed_at"] = from_us(stamp).isoformat()
            yield json.dumps(record, ensure_ascii=False, sort_keys=True)


def export_log(path: Path, out: TextIO) -> tuple[int, int]:
    """Write the readable review log as JSON lines to `out`: (rows, damaged stretches skipped)."""
    count, damaged = 0, list[int]()
    for line in review_log_lines(path, damaged):
        out.write(line + "\n")
        count += 1
    return count, len(damaged)

"""`studykit doctor`'s work on the study database: check, checkpoint, restore, export the log."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from studykit.srs.backups import Backup, backup_folder, list_backups, take_backup
from studykit.srs.records import ANSWER_COLUMNS, from_us
from studykit.srs.store import BUSY_TIMEOUT_MS, StoreError

MAX_INTEGRITY_LINES = 20


@dataclass(frozen=True)
class Health:
    """What the integrity check and the checkpoint found."""

    problems: tuple[str, ...]  # empty: integrity ok
    checkpoint: str  # what the checkpoint did, in words
    reviews: int | None


def _connect(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise StoreError(f"{path}: no study database here yet (nothing to check)")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def examine(path: Path) -> Health:
    """Run the integrity check, finish a pending checkpoint and count the reviews."""
    with closing(_connect(path)) as conn:
        try:
            rows = conn.execute(f"PRAGMA integrity_check({MAX_INTEGRITY_LINES})").fetchall()
        except sqlite3.DatabaseError as error:
            return Health((f"the file cannot be read as a database ({error})",), "not run", None)
        problems = tuple(str(row[0]) for row in rows if row[0] != "ok")
        checkpoint = _checkpoint(conn, path)
        try:
            reviews = int(conn.execute("SELECT count(*) FROM review_log").fetchone()[0])
        except sqlite3.DatabaseError:
            reviews = None
    return Health(problems, checkpoint, reviews)


def _checkpoint(conn: sqlite3.Connection, path: Path) -> str:
    """Write every WAL page into the database file and empty the WAL; what happened, in words."""
    wal = Path(f"{path}-wal")
    pending = wal.stat().st_size if wal.exists() else 0
    try:
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    except sqlite3.DatabaseError as error:
        return f"failed ({error})"
    if busy:
        return "another program is using the database; close it and run doctor again"
    return (
        f"done ({pending / 1024:.1f} KB of WAL written into the file)"
        if pending
        else ("nothing pending")
    )


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


def choose(path: Path, name: str) -> Backup:
    """The backup called `name` (or `newest`)."""
    backups = list_backups(path)
    if not backups:
        raise StoreError(f"no backups in {backup_folder(path)}")
    if name == "newest":
        return backups[0]
    for backup in backups:
        if backup.name == name or backup.path == Path(name):
            return backup
    known = ", ".join(backup.name for backup in backups[:5])
    raise StoreError(f"no backup called {name!r}; the newest are: {known}")


def restore(path: Path, backup: Backup) -> Path:
    """Replace the database with `backup`; the replaced files are kept first. Their folder."""
    _verified(backup.path)
    kept = backup_folder(path) / f"replaced-{backup.taken:%Y%m%dT%H%M%S%f}-{os.getpid()}"
    kept.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        live = Path(f"{path}{suffix}")
        if live.exists():
            shutil.copy2(live, kept / live.name)
    partial = path.with_name(f".{path.name}.restoring")
    with (
        closing(sqlite3.connect(f"{backup.path.resolve().as_uri()}?mode=ro", uri=True)) as src,
        closing(sqlite3.connect(partial)) as dest,
    ):
        src.backup(dest)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    partial.replace(path)
    return kept


def backup_now(path: Path, *, keep: int) -> Backup:
    """Take a backup at once (reason `manual`)."""
    with closing(_connect(path)) as conn:
        return take_backup(conn, path, "manual", keep=keep)


def review_log_lines(path: Path) -> Iterator[str]:
    """Every review-log row as one JSON line, oldest first."""
    with closing(_connect(path)) as conn:
        present = {row[1] for row in conn.execute("PRAGMA table_info(review_log)")}
        columns = [c for c in ANSWER_COLUMNS if c in present]  # a backup may predate a column
        cursor = conn.execute(f"SELECT {', '.join(columns)} FROM review_log ORDER BY id")
        for row in cursor:
            record = dict(zip(columns, row, strict=True))
            for column in [c for c in columns if c.endswith("_json")]:
                text = record.pop(column)
                record[column.removesuffix("_json")] = json.loads(text) if text else None
            stamp = record.get("reviewed_at_us")
            if isinstance(stamp, int):
                record["reviewed_at"] = from_us(stamp).isoformat()
            yield json.dumps(record, ensure_ascii=False, sort_keys=True)


def export_log(path: Path, out: TextIO) -> int:
    """Write the review log as JSON lines to `out`; the number of rows."""
    count = 0
    for line in review_log_lines(path):
        out.write(line + "\n")
        count += 1
    return count

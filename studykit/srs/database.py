"""The study database's connection: opening (locks, backups, migrations), one committed
transaction per write, the checks that nothing is written into a replaced file, and closing.

The tables are read and written by `Store` (srs/store.py), which builds on this.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from studykit.core.errors import StudykitError
from studykit.core.files import special_kind
from studykit.srs.backups import DEFAULT_KEPT, due_daily, take_backup
from studykit.srs.damage import emptied, is_damage, with_hint
from studykit.srs.lock import SessionLock, file_identity
from studykit.srs.schema import MIGRATIONS, Migration, check_migrations
from studykit.srs.writable import read_only_reason

__all__ = ["BUSY_TIMEOUT_MS", "Database", "StoreError"]

BUSY_TIMEOUT_MS = 5000


class StoreError(StudykitError):
    """The study database cannot be opened or used; the message says which file and why."""


def _read_version(conn: sqlite3.Connection, path: Path) -> int:
    """The schema version this connection sees (0 for an empty database); foreign files refused.

    Read through an ordinary connection, so commits still in the WAL count: a database whose
    newest pages live only in the WAL (a checkpoint that failed half way) reads correctly.
    """
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if not tables:
            return 0
        if "meta" not in tables:
            raise StoreError(f"{path}: not a studykit database (no `meta` table)")
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.OperationalError:
        raise  # busy or locked: the caller retries
    except sqlite3.DatabaseError as error:
        raise StoreError(f"{path}: not a readable SQLite database ({error})") from error
    if row is None or not str(row[0]).isdigit():
        raise StoreError(f"{path}: not a studykit database (no schema version)")
    return int(row[0])


def _retry_busy(step: Callable[[], int]) -> int:
    """Run a first-open step, retrying while another process holds the file, up to the timeout.

    Switching to WAL returns SQLITE_BUSY at once, without calling the busy handler, when
    another connection is opening the same brand-new file; so we wait here instead.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    delay = 0.005
    while True:
        try:
            return step()
        except sqlite3.OperationalError as error:
            busy = "locked" in str(error) or "busy" in str(error)
            if not busy or time.monotonic() + delay > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def _newer(path: Path, version: int, latest: int) -> StoreError:
    return StoreError(
        f"{path} was written by a newer studykit (schema version {version}; this "
        f"version understands up to {latest}). Upgrade studykit; the file was not changed."
    )


def _failed(path: Path, doing: str, error: sqlite3.Error) -> StoreError:
    """A failed read or write; a damaged file names the restore and the salvage."""
    text = f"{path}: could not {doing} ({error})"
    return StoreError(with_hint(path, text) if is_damage(error) else text)


def _refuse_if_emptied(path: Path, *, no_tables: bool = False) -> None:
    """StoreError when a missing or empty database had a history (its backups say so)."""
    message = emptied(path, no_tables=no_tables)
    if message is not None:
        raise StoreError(message)


def _cannot(path: Path, doing: str, error: BaseException) -> StoreError:
    """The error for a database that cannot be opened; a read-only place is named plainly."""
    blocked = read_only_reason(path)
    if blocked is None:
        return StoreError(f"{path}: cannot {doing} ({error})")
    return StoreError(
        f"{path}: cannot {doing}: {blocked}. studykit keeps your review history there; "
        "make it writable, or choose another folder with --data-dir (or STUDYKIT_DATA_DIR)"
    )


class Database:
    """One connection to the study database. Use `open(path)`; close it (or use `with`)."""

    """The study database. Use `Store.open(path)`; close it (or use `with`)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        *,
        version: int,
        session: SessionLock | None = None,
    ) -> None:
        self._conn = conn
        self._session = session
        self._identity = file_identity(path)  # the file this connection has open
        self._replaced: str | None = None  # set once the file was found replaced
        self._lock = threading.RLock()
        self.path = path
        self.schema_version = version
        self.backup_path: Path | None = None
        self.backup_problem: str | None = None
        self._batching = False

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        migrations: Sequence[Migration] = MIGRATIONS,
        backups_kept: int = 0,
    ) -> Self:
        """Open (creating or migrating) the database at `path`; a newer schema is refused.

        The version is read before anything is written: a refused file keeps its bytes, and
        the -wal/-shm files SQLite makes while reading go away when the connection closes.
        An existing database is copied to `backups/` before a migration and, when
        `backups_kept` > 0, at the first open of each day; the newest `backups_kept` stay.
        A database that cannot be read names its newest backup in the error; one that is
        missing or empty while backups exist is refused. The store holds a session lock
        (srs/lock.py) until it is closed.
        """
        try:
            return cls._open(Path(path), migrations, backups_kept)
        except StoreError as error:
            raise StoreError(with_hint(Path(path), str(error))) from error.__cause__

    @classmethod
    def _open(cls, path: Path, migrations: Sequence[Migration], backups_kept: int) -> Self:
        latest = check_migrations(migrations)
        kind = special_kind(path)
        if kind is not None:
            raise StoreError(f"{path}: this is {kind}, not a database file; move it out of the way")
        _refuse_if_emptied(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Before the file is opened: a restore, which needs every session closed,
            # cannot replace it between our open and our lock.
            session = SessionLock.take(path)
        except OSError as error:
            raise _cannot(path, "open the study database", error) from error
        try:
            return cls._open_locked(path, migrations, backups_kept, session, latest)
        except BaseException:
            session.release()
            raise

    @classmethod
    def _open_locked(
        cls,
        path: Path,
        migrations: Sequence[Migration],
        backups_kept: int,
        session: SessionLock,
        latest: int,
    ) -> Self:
        try:
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as error:
            raise _cannot(path, "open the study database", error) from error
        store = cls(conn, path, version=0, session=session)
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            version = _retry_busy(lambda: _read_version(conn, path))
            if version > latest:
                raise _newer(path, version, latest)
            if version == 0:
                _refuse_if_emptied(path, no_tables=True)
            version = store.schema_version = _retry_busy(store._first_open)
            store._identity = store._identity or file_identity(path)  # made by the first write
            if version > latest:
                raise _newer(path, version, latest)
            keep = backups_kept or DEFAULT_KEPT
            if 0 < version < latest:
                store.backup_path = take_backup(conn, path, f"v{version}", keep=keep).path
            elif version > 0 and backups_kept > 0 and due_daily(path, datetime.now().astimezone()):
                store._daily_backup(keep)
            if version < latest:
                store._migrate(migrations, version)
        except sqlite3.Error as error:
            conn.close()
            raise _cannot(path, "prepare the study database", error) from error
        except OSError as error:  # the backup before an upgrade could not be written
            conn.close()
            raise _cannot(path, "back up the study database before upgrading it", error) from error
        except BaseException:
            conn.close()
            raise
        return store

    def _daily_backup(self, keep: int) -> None:
        """Take the day's backup; a failure (disk full) is noted, and studying goes on."""
        try:
            self.backup_path = take_backup(self._conn, self.path, "daily", keep=keep).path
        except (OSError, sqlite3.Error) as error:
            self.backup_problem = f"the daily backup failed ({error})"

    def _first_open(self) -> int:
        """Configure the connection and read the schema version it sees."""
        self._configure()
        return _read_version(self._conn, self.path)

    def _configure(self) -> None:
        conn = self._conn
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA journal_mode = WAL")
        # FULL, not NORMAL: in WAL mode NORMAL may lose the last commits on power loss or an
        # OS crash; FULL syncs the WAL on every commit, so a rating survives once answer()
        # returns. The cost is one fsync per answer, which is human-paced.
        conn.execute("PRAGMA synchronous = FULL")

    def _migrate(self, migrations: Sequence[Migration], current: int) -> None:
        for migration in migrations:
            if migration.version <= current:
                continue
            try:
                if migration.rebuilds:  # only outside a transaction does this take effect
                    self._conn.execute("PRAGMA foreign_keys = OFF")
                try:
                    self._run_migration(migration)
                finally:
                    if migration.rebuilds:
                        self._conn.execute("PRAGMA foreign_keys = ON")
            except StoreError as error:
                kept = f"; a copy from before is at {self.backup_path}" if self.backup_path else ""
                raise StoreError(
                    f"{self.path}: cannot upgrade to schema version {migration.version} "
                    f"({error.__cause__}); it stays at version {self.schema_version}{kept}"
                ) from error
            self.schema_version = migration.version

    def _run_migration(self, migration: Migration) -> None:
        """One migration's statements and its version bump, in one write transaction."""
        with self._transaction() as conn:
            # Another process may have migrated between our read and this write lock.
            if _read_version(conn, self.path) >= migration.version:
                return
            for statement in migration.statements:
                conn.execute(statement)
            if migration.rebuilds and conn.execute("PRAGMA foreign_key_check").fetchone():
                raise sqlite3.IntegrityError("a rebuilt table lost rows other tables refer to")
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                (str(migration.version),),
            )

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error), holding the lock."""
        with self._lock:
            conn = self._conn
            # Inside `batch()` each write is a savepoint, committed with the batch.
            begin, end, undo = (
                ("SAVEPOINT write", "RELEASE write", "ROLLBACK TO write")
                if self._batching
                else ("BEGIN IMMEDIATE", "COMMIT", "ROLLBACK")
            )
            try:
                self._check_same_file()
                conn.execute(begin)
                try:
                    yield conn
                    if not self._batching:
                        self._check_same_file()  # nothing is acknowledged into a replaced file
                    conn.execute(end)
                except BaseException:
                    if conn.in_transaction:
                        conn.execute(undo)
                        if self._batching:
                            conn.execute(end)
                    raise
            except sqlite3.Error as error:
                raise _failed(self.path, "save", error) from error

    def _check_same_file(self) -> None:
        """StoreError when the file at `path` is no longer the one this store has open."""
        if self._replaced is None and file_identity(self.path) != self._identity:
            self._replaced = (
                f"{self.path} was replaced or removed while this studykit had it open (by a "
                "restore?); nothing more is saved here, this change included. Quit and start "
                "studykit again"
            )
        if self._replaced is not None:
            raise StoreError(self._replaced)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Many writes in one committed transaction (a simulation's day), each one atomic."""
        with self._transaction():
            self._batching = True
            try:
                yield
            finally:
                self._batching = False

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as error:
                raise _failed(self.path, "read", error) from error

    def set_durable(self, durable: bool) -> None:
        """FULL sync on every commit (the default), or NORMAL for bulk simulated writes.

        In WAL mode NORMAL never corrupts the file; a crash may lose the last commits, which
        a simulation into an empty data dir can afford (it is simply rerun).
        """
        with self._lock:
            self._conn.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")

    # -- lifetime ------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            self._conn.close()
            if self._session is not None:
                self._session.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

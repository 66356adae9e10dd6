"""The SQLite study database: one connection, every write one committed transaction."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from fsrs import Rating, State

from studykit.core.errors import StudykitError
from studykit.core.files import special_kind
from studykit.srs.backups import DEFAULT_KEPT, due_daily, newest_backup, take_backup
from studykit.srs.records import (
    ANSWER_COLUMNS,
    STATE_COLUMNS,
    Answer,
    CardState,
    DayCount,
    Forget,
    from_us,
    to_us,
)
from studykit.srs.schema import LATEST_VERSION, MIGRATIONS, Migration, check_migrations
from studykit.srs.writable import read_only_reason

__all__ = [
    "LATEST_VERSION",
    "MIGRATIONS",
    "Answer",
    "CardState",
    "DayCount",
    "Forget",
    "Migration",
    "Store",
    "StoreError",
    "from_us",
    "to_us",
]

BUSY_TIMEOUT_MS = 5000
_UPSERT_STATE = (
    f"INSERT OR REPLACE INTO card_state ({', '.join(STATE_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in STATE_COLUMNS)})"
)
_SELECT_STATE = f"SELECT {', '.join(STATE_COLUMNS)} FROM card_state"
_SELECT_ANSWER = f"SELECT {', '.join(ANSWER_COLUMNS)} FROM review_log"
_SELECT_FORGET = "SELECT id, key, forgotten_at_us, before_json FROM forget_log"


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


def _with_backup_hint(path: Path, error: StoreError) -> StoreError:
    """`error`, naming the newest backup and the doctor when the file itself is the trouble."""
    text = str(error)
    about_access = ("newer studykit", "cannot be written", "is read-only")
    newest = None if any(words in text for words in about_access) else newest_backup(path)
    if newest is None:
        return error
    return StoreError(
        f"{text}; the newest backup is {newest.path} ({newest.taken:%Y-%m-%d %H:%M} UTC): "
        "`studykit doctor` checks the file, `studykit doctor --restore newest` restores it"
    )


def _cannot(path: Path, doing: str, error: BaseException) -> StoreError:
    """The error for a database that cannot be opened; a read-only place is named plainly."""
    blocked = read_only_reason(path)
    if blocked is None:
        return StoreError(f"{path}: cannot {doing} ({error})")
    return StoreError(
        f"{path}: cannot {doing}: {blocked}. studykit keeps your review history there; "
        "make it writable, or choose another folder with --data-dir (or STUDYKIT_DATA_DIR)"
    )


class Store:
    """The study database. Use `Store.open(path)`; close it (or use `with`)."""

    def __init__(self, conn: sqlite3.Connection, path: Path, *, version: int) -> None:
        self._conn = conn
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
    ) -> Store:
        """Open (creating or migrating) the database at `path`; a newer schema is refused.

        The version is read before anything is written: a refused file keeps its bytes, and
        the -wal/-shm files SQLite makes while reading go away when the connection closes.
        An existing database is copied to `backups/` before a migration and, when
        `backups_kept` > 0, at the first open of each day; the newest `backups_kept` stay.
        A database that cannot be read names its newest backup in the error.
        """
        try:
            return cls._open(Path(path), migrations, backups_kept)
        except StoreError as error:
            raise _with_backup_hint(Path(path), error) from error.__cause__

    @classmethod
    def _open(cls, path: Path, migrations: Sequence[Migration], backups_kept: int) -> Store:
        latest = check_migrations(migrations)
        kind = special_kind(path)
        if kind is not None:
            raise StoreError(f"{path}: this is {kind}, not a database file; move it out of the way")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as error:
            raise _cannot(path, "open the study database", error) from error
        store = cls(conn, path, version=0)
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            version = _retry_busy(lambda: _read_version(conn, path))
            if version > latest:
                raise _newer(path, version, latest)
            version = store.schema_version = _retry_busy(store._first_open)
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
                with self._transaction() as conn:
                    # Another process may have migrated between our read and this write lock.
                    if _read_version(conn, self.path) >= migration.version:
                        self.schema_version = migration.version
                        continue
                    for statement in migration.statements:
                        conn.execute(statement)
                    conn.execute(
                        "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                        (str(migration.version),),
                    )
            except StoreError as error:
                kept = f"; a copy from before is at {self.backup_path}" if self.backup_path else ""
                raise StoreError(
                    f"{self.path}: cannot upgrade to schema version {migration.version} "
                    f"({error.__cause__}); it stays at version {self.schema_version}{kept}"
                ) from error
            self.schema_version = migration.version

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
                conn.execute(begin)
                try:
                    yield conn
                    conn.execute(end)
                except BaseException:
                    if conn.in_transaction:
                        conn.execute(undo)
                        if self._batching:
                            conn.execute(end)
                    raise
            except sqlite3.Error as error:
                raise StoreError(f"{self.path}: could not save ({error})") from error

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
                raise StoreError(f"{self.path}: could not read ({error})") from error

    # -- card state ----------------------------------------------------------------------

    def load_states(self) -> list[CardState]:
        """Every stored card state (including cards no longer in the YAML)."""
        return [CardState.from_row(row) for row in self._query(_SELECT_STATE)]

    def queue_rows(self) -> list[tuple[Any, ...]]:
        """(deck_id, card_id, state, due_us, lapses, suspended, leech, buried_until_us) per row."""
        # Plain columns, no datetime objects: loading 100,000 of these must stay cheap.
        return self._query(
            "SELECT deck_id, card_id, state, due_us, lapses, suspended, leech, buried_until_us "
            "FROM card_state"
        )

    def states_in(self, deck_ids: Sequence[str]) -> list[CardState]:
        """The stored card states of these decks."""
        marks = ", ".join("?" for _ in deck_ids)
        rows = self._query(f"{_SELECT_STATE} WHERE deck_id IN ({marks})", tuple(deck_ids))
        return [CardState.from_row(row) for row in rows]

    def states_of(self, keys: Sequence[int]) -> dict[int, CardState]:
        """The stored states of these cards (at most a page of them), by key."""
        found: dict[int, CardState] = {}
        for start in range(0, len(keys), 500):
            chunk = tuple(keys[start : start + 500])
            marks = ", ".join("?" for _ in chunk)
            for row in self._query(f"{_SELECT_STATE} WHERE key IN ({marks})", chunk):
                state = CardState.from_row(row)
                found[state.key] = state
        return found

    def get_state(self, key: int) -> CardState | None:
        """The stored state of one card, if it has one."""
        rows = self._query(f"{_SELECT_STATE} WHERE key = ?", (key,))
        return CardState.from_row(rows[0]) if rows else None

    def put_state(self, state: CardState) -> None:
        """Insert or replace one card's state (bury, suspend), committed."""
        self.put_states((state,))

    def put_states(self, states: Iterable[CardState]) -> None:
        """Insert or replace many card states in one committed transaction."""
        with self._transaction() as conn:
            conn.executemany(_UPSERT_STATE, (state.to_row() for state in states))

    # -- review log ----------------------------------------------------------------------

    def record_answer(
        self,
        before: CardState,
        after: CardState,
        *,
        rating: Rating,
        reviewed_at: datetime,
        duration_ms: int,
        variant_seed: int | None = None,
    ) -> int:
        """Write the new state and its log row in ONE committed transaction; the log id."""
        if before.key != after.key:
            raise ValueError("before and after belong to different cards")
        if after.state is None:
            raise ValueError("an answered card cannot be new")
        with self._transaction() as conn:
            conn.execute(_UPSERT_STATE, after.to_row())
            cursor = conn.execute(
                "INSERT INTO review_log (key, deck_id, card_id, rating, reviewed_at_us, "
                "duration_ms, state_before, state_after, before_json, after_json, variant_seed) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    after.key,
                    after.deck_id,
                    after.card_id,
                    int(rating),
                    to_us(reviewed_at),
                    max(0, int(duration_ms)),
                    None if before.state is None else int(before.state),
                    int(after.state),
                    before.to_json(),
                    after.to_json(),
                    variant_seed,
                ),
            )
            assert cursor.lastrowid is not None
            return cursor.lastrowid

    def import_state(self, state: CardState, *, reviewed_at: datetime, source: str) -> bool:
        """Give a card a starting state from elsewhere, with a log row marked `source`.

        One committed transaction; False (nothing written) when the card already has a
        schedule here, so importing twice, or over real answers, changes nothing.
        """
        imported_as = state.state
        if imported_as is None:
            raise ValueError("an imported state cannot be new")
        with self._transaction() as conn:
            rows = conn.execute(f"{_SELECT_STATE} WHERE key = ?", (state.key,)).fetchall()
            before = CardState.from_row(rows[0]) if rows else None
            if before is not None and before.state is not None:
                return False
            if before is not None:  # keep flags such as suspended
                state = replace(state, suspended=before.suspended, leech=before.leech)
            conn.execute(_UPSERT_STATE, state.to_row())
            conn.execute(
                "INSERT INTO review_log (key, deck_id, card_id, rating, reviewed_at_us, "
                "duration_ms, state_before, state_after, before_json, after_json, source) "
                "VALUES (?, ?, ?, ?, ?, 0, NULL, ?, ?, ?, ?)",
                (
                    state.key,
                    state.deck_id,
                    state.card_id,
                    int(Rating.Good),
                    to_us(reviewed_at),
                    int(imported_as),
                    (before or replace(state.as_new(), suspended=False)).to_json(),
                    state.to_json(),
                    source,
                ),
            )
        return True

    def last_answer(self) -> Answer | None:
        """The most recent answer (imported rows are not answers, so undo never removes one)."""
        rows = self._query(f"{_SELECT_ANSWER} WHERE source IS NULL ORDER BY id DESC LIMIT 1")
        return Answer.from_row(rows[0]) if rows else None

    def answer(self, answer_id: int) -> Answer | None:
        """One review-log row, if it is still there."""
        rows = self._query(f"{_SELECT_ANSWER} WHERE id = ?", (answer_id,))
        return Answer.from_row(rows[0]) if rows else None

    def history(self, key: int) -> list[Answer]:
        """Every logged answer of one card, oldest first."""
        rows = self._query(f"{_SELECT_ANSWER} WHERE key = ? ORDER BY id", (key,))
        return [Answer.from_row(row) for row in rows]

    def answers_in(self, deck_ids: Sequence[str]) -> list[Answer]:
        """Every logged answer in these decks, oldest first."""
        marks = ", ".join("?" for _ in deck_ids)
        rows = self._query(
            f"{_SELECT_ANSWER} WHERE deck_id IN ({marks}) ORDER BY reviewed_at_us, id",
            tuple(deck_ids),
        )
        return [Answer.from_row(row) for row in rows]

    def undo_answer(self, answer_id: int, restored: CardState) -> None:
        """Delete a log row and write the restored state, in one committed transaction."""
        with self._transaction() as conn:
            deleted = conn.execute("DELETE FROM review_log WHERE id = ?", (answer_id,))
            if deleted.rowcount != 1:
                raise StoreError(f"{self.path}: review {answer_id} is no longer in the log")
            conn.execute(_UPSERT_STATE, restored.to_row())

    # -- forget log ----------------------------------------------------------------------

    def record_forget(self, before: CardState, after: CardState, *, at: datetime) -> int:
        """Write the reset state and keep the state before, in ONE committed transaction."""
        if before.key != after.key:
            raise ValueError("before and after belong to different cards")
        with self._transaction() as conn:
            conn.execute(_UPSERT_STATE, after.to_row())
            cursor = conn.execute(
                "INSERT INTO forget_log (key, deck_id, card_id, forgotten_at_us, before_json) "
                "VALUES (?, ?, ?, ?, ?)",
                (after.key, after.deck_id, after.card_id, to_us(at), before.to_json()),
            )
            assert cursor.lastrowid is not None
            return cursor.lastrowid

    def last_forget(self) -> Forget | None:
        """The most recent forget, if any."""
        rows = self._query(f"{_SELECT_FORGET} ORDER BY id DESC LIMIT 1")
        return Forget.from_row(rows[0]) if rows else None

    def forgets(self, key: int) -> list[Forget]:
        """Every forget of one card, oldest first."""
        rows = self._query(f"{_SELECT_FORGET} WHERE key = ? ORDER BY id", (key,))
        return [Forget.from_row(row) for row in rows]

    def undo_forget(self, forget_id: int, restored: CardState) -> None:
        """Delete a forget row and write the restored state, in one committed transaction."""
        with self._transaction() as conn:
            deleted = conn.execute("DELETE FROM forget_log WHERE id = ?", (forget_id,))
            if deleted.rowcount != 1:
                raise StoreError(f"{self.path}: forget {forget_id} is no longer in the log")
            conn.execute(_UPSERT_STATE, restored.to_row())

    def day_counts(self, since: datetime) -> dict[str, DayCount]:
        """Per deck: answers, first answers of new cards, and answers of review cards."""
        rows = self._query(
            "SELECT deck_id, count(*), sum(state_before IS NULL), sum(state_before IS ?) "
            "FROM review_log WHERE reviewed_at_us >= ? AND source IS NULL GROUP BY deck_id",
            (int(State.Review), to_us(since)),
        )
        return {deck: DayCount(answers, new, reviews) for deck, answers, new, reviews in rows}

    def answer_times(self, since: datetime) -> list[int]:
        """Times (epoch microseconds, ascending) of every answer at or after `since`."""
        rows = self._query(
            "SELECT reviewed_at_us FROM review_log WHERE reviewed_at_us >= ? "
            "AND source IS NULL ORDER BY reviewed_at_us",
            (to_us(since),),
        )
        return [row[0] for row in rows]

    def review_outcomes(self, since: datetime) -> tuple[int, int]:
        """(answers of review-state cards, of which not Again) at or after `since`."""
        rows = self._query(
            "SELECT count(*), coalesce(sum(rating != ?), 0) FROM review_log "
            "WHERE reviewed_at_us >= ? AND state_before = ? AND source IS NULL",
            (int(Rating.Again), to_us(since), int(State.Review)),
        )
        total, passed = rows[0]
        return int(total), int(passed)

    def set_durable(self, durable: bool) -> None:
        """FULL sync on every commit (the default), or NORMAL for bulk simulated writes.

        In WAL mode NORMAL never corrupts the file; a crash may lose the last commits, which
        a simulation into an empty data dir can afford (it is simply rerun).
        """
        with self._lock:
            self._conn.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")

    # -- memory model --------------------------------------------------------------------

    def review_rows(self, deck_ids: Sequence[str] | None = None) -> list[tuple[int, int, int, int]]:
        """(key, rating, reviewed_at_us, duration_ms) of every answer, oldest first.

        Imported rows are left out: they are a starting state, not an answer to learn from.
        """
        sql = "SELECT key, rating, reviewed_at_us, duration_ms FROM review_log WHERE source IS NULL"
        params: tuple[str, ...] = ()
        if deck_ids is not None:
            params = tuple(deck_ids)
            sql += f" AND deck_id IN ({', '.join('?' for _ in params)})"
        return [tuple(row) for row in self._query(sql + " ORDER BY reviewed_at_us, id", params)]

    def training_log(
        self, deck_ids: Sequence[str] | None = None
    ) -> tuple[list[tuple[int, int, int, int | None, int]], list[tuple[int, int]]]:
        """What the optimizer converts: answers and forgets, oldest first.

        Answers are (key, rating, reviewed_at_us, state_before, duration_ms) without
        imported rows;
        forgets (resets to new) are (key, forgotten_at_us).
        """
        params: tuple[str, ...] = ()
        where = ""
        if deck_ids is not None:
            params = tuple(deck_ids)
            where = f" AND deck_id IN ({', '.join('?' for _ in params)})"
        answers = self._query(
            "SELECT key, rating, reviewed_at_us, state_before, duration_ms FROM review_log "
            f"WHERE source IS NULL{where} ORDER BY reviewed_at_us, id",
            params,
        )
        forgets = self._query(
            f"SELECT key, forgotten_at_us FROM forget_log WHERE 1{where} ORDER BY id", params
        )
        return [tuple(row) for row in answers], [tuple(row) for row in forgets]

    def review_count(self) -> int:
        """How many answers the log holds (imported rows are not answers)."""
        return int(self._query("SELECT count(*) FROM review_log WHERE source IS NULL")[0][0])

    def memory_models(self) -> dict[str, dict[str, Any]]:
        """Stored parameters per scope ('' global, else a deck id), with how they were fitted."""
        rows = self._query(
            "SELECT scope, parameters_json, fitted_at_us, reviews, cards, log_loss, rmse "
            "FROM memory_model"
        )
        return {
            scope: {
                "parameters": json.loads(params),
                "fitted_at": from_us(fitted),
                "reviews": reviews,
                "cards": cards,
                "log_loss": log_loss,
                "rmse": rmse,
            }
            for scope, params, fitted, reviews, cards, log_loss, rmse in rows
        }

    def put_memory_model(
        self,
        scope: str,
        parameters: Sequence[float],
        *,
        fitted_at: datetime,
        reviews: int,
        cards: int,
        log_loss: float | None,
        rmse: float | None,
    ) -> None:
        """Store (replace) the parameters of one scope, committed."""
        with self._transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO memory_model (scope, parameters_json, fitted_at_us, "
                "reviews, cards, log_loss, rmse) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    scope,
                    json.dumps([float(w) for w in parameters]),
                    to_us(fitted_at),
                    reviews,
                    cards,
                    log_loss,
                    rmse,
                ),
            )

    # -- experiment cache ----------------------------------------------------------------

    def put_experiment_result(
        self,
        *,
        name: str,
        params: dict[str, Any],
        seed: int,
        device: str,
        torch_version: str,
        result: dict[str, Any],
        created_at: datetime,
    ) -> None:
        """Cache one experiment result (replacing an older one with the same inputs)."""
        with self._transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO experiment_cache (name, params_json, seed, device, "
                "torch_version, result_json, created_at_us) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    name,
                    json.dumps(params, sort_keys=True),
                    seed,
                    device,
                    torch_version,
                    json.dumps(result, sort_keys=True),
                    to_us(created_at),
                ),
            )

    def experiment_result(
        self, *, name: str, params: dict[str, Any], seed: int, device: str, torch_version: str
    ) -> dict[str, Any] | None:
        """A cached result for exactly these inputs, if any."""
        rows = self._query(
            "SELECT result_json FROM experiment_cache WHERE name = ? AND params_json = ? "
            "AND seed = ? AND device = ? AND torch_version = ?",
            (name, json.dumps(params, sort_keys=True), seed, device, torch_version),
        )
        if not rows:
            return None
        result: dict[str, Any] = json.loads(rows[0][0])
        return result

    # -- lifetime ------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

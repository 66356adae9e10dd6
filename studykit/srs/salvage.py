"""`studykit doctor --salvage`: copy every row still readable from a damaged database.

Python's sqlite3 has no `.recover` (that lives in the `sqlite3` shell, which is not always
installed), so each table is read through SQLite in rowid order; where a read fails on a
damaged page, the reader probes forward for the first rowid it can seek to again and goes
on from there. Only the rows on damaged pages are lost. Every row is checked against the
current schema (types, NOT NULL, CHECKs, JSON) before it goes into the new file.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studykit.srs.pagescan import scan
from studykit.srs.records import CardState
from studykit.srs.scheduler import schedule_key
from studykit.srs.schema import LATEST_VERSION, MIGRATIONS
from studykit.srs.writes import UPSERT_STATE

MAX_ROWID = 2**63 - 1
TABLES = ("meta", "card_state", "review_log", "forget_log", "memory_model", "experiment_cache")
_AFFINITY = {"INTEGER": (int,), "REAL": (float, int), "TEXT": (str,)}
_MAX_ORDINAL = 500  # as the card_state CHECK says


class Unreadable(Exception):
    """Not even the list of tables can be read: there is nothing to salvage."""


@dataclass
class Reading:
    """What reading one table found."""

    rows: list[tuple[Any, ...]] = field(default_factory=list)
    damaged: int = 0  # stretches of rowids skipped because their pages could not be read


def _after(
    table: str, wanted: str, after: int | None, limit: str = ""
) -> tuple[str, tuple[int, ...]]:
    """The query for the rows past `after` (None: from the first), in rowid order."""
    where, params = ("", ()) if after is None else ("WHERE rowid > ? ", (after,))
    return f"SELECT rowid, {wanted} FROM {table} {where}ORDER BY rowid{limit}", params


def _one(
    conn: sqlite3.Connection, table: str, wanted: str, after: int | None
) -> tuple[Any, ...] | bool:
    """The first row past `after`, read whole; False at the end, True when it cannot be read."""
    try:
        row = conn.execute(*_after(table, wanted, after, " LIMIT 1")).fetchone()
    except sqlite3.DatabaseError:
        return True
    return False if row is None else tuple(row)


def _resume_after(conn: sqlite3.Connection, table: str, wanted: str, bad: int) -> int | None:
    """A rowid past `bad` that reading can go on from, near the damage's end (None: none).

    Reads past a rowid on a damaged page fail; past the damage they work again. Probe ahead
    in doubling steps until one works, then halve the gap back towards the damage's edge.
    """
    step, good = 1, None
    while good is None:
        probe = min(bad + step, MAX_ROWID)
        found = _one(conn, table, wanted, probe)
        if found is False:
            return None
        if found is not True:
            good = probe
        elif probe == MAX_ROWID:
            return None
        else:
            bad, step = probe, step * 2
    while good - bad > 1:
        middle = (bad + good) // 2
        if _one(conn, table, wanted, middle) is True:
            bad = middle
        else:
            good = middle
    return good


def read_table(
    conn: sqlite3.Connection, table: str, columns: list[str]
) -> Iterator[tuple[Any, ...]]:
    """(rowid, *columns) of every readable row in rowid order; a damaged stretch is skipped.

    Each skipped stretch is reported by yielding an empty tuple, so callers can count them.
    """
    wanted = ", ".join(columns)
    after: int | None = None  # the last rowid read
    while True:
        try:
            for row in conn.execute(*_after(table, wanted, after)):
                if after is not None and row[0] <= after:  # out of order: a damaged page lies
                    raise sqlite3.DatabaseError("rowids out of order")
                yield tuple(row)
                after = row[0]
            return
        except sqlite3.DatabaseError:
            pass
        # The cursor reads a row ahead, so the rows just before the damage come one at a time.
        while isinstance(row := _one(conn, table, wanted, after), tuple):
            if after is not None and row[0] <= after:
                break
            yield row
            after = row[0]
        if row is False:
            return
        yield ()
        resumed = _resume_after(conn, table, wanted, -MAX_ROWID - 1 if after is None else after)
        if resumed is None:
            return
        after = resumed


@dataclass(frozen=True)
class Column:
    """One column of the target schema, as its rows are checked."""

    name: str
    types: tuple[type, ...]
    required: bool
    default: int | None = None  # a whole-number DEFAULT: what a row from before the column has


def _default(text: object) -> int | None:
    return int(text) if isinstance(text, str) and text.isdigit() else None


def _columns(conn: sqlite3.Connection, table: str) -> list[Column]:
    return [
        Column(
            name,
            _AFFINITY.get(kind.upper(), (int, float, str, bytes)),
            bool(notnull or pk),
            _default(default),
        )
        for _, name, kind, notnull, default, pk in conn.execute(f"PRAGMA table_info({table})")
    ]


def valid(columns: list[Column], values: tuple[Any, ...]) -> bool:
    """True when each value has its column's type (NULL only where allowed) and JSON parses."""
    for column, value in zip(columns, values, strict=True):
        if value is None:
            if column.required:
                return False
            continue
        if not isinstance(value, column.types):
            return False
        if column.name.endswith("_json"):
            if not isinstance(value, str):
                return False
            try:
                parsed = json.loads(value)
                if column.name in ("before_json", "after_json"):
                    CardState.from_json(value)
            except (ValueError, KeyError, TypeError):
                return False
            if parsed is None:
                return False
    named = dict(zip((c.name for c in columns), values, strict=True))
    if {"key", "deck_id", "card_id"} <= named.keys():  # a schedule's key is its ids' hash
        ordinal = named.get("ordinal", 1)
        if not isinstance(ordinal, int) or not 1 <= ordinal <= _MAX_ORDINAL:
            return False
        return bool(named["key"] == schedule_key(named["deck_id"], named["card_id"], ordinal))
    return True


@dataclass
class Salvaged:
    """What a salvage kept, per table, and what it could not."""

    kept: dict[str, int] = field(default_factory=dict)
    rejected: dict[str, int] = field(default_factory=dict)  # read, but not valid rows
    damaged: dict[str, int] = field(default_factory=dict)  # stretches skipped
    rebuilt: int = 0  # card states rebuilt from their last logged answer
    issued_reviews: int | None = None  # review ids the damaged file had handed out
    from_pages: int = 0  # rows found only by reading the pages themselves
    pages_unread: str | None = None  # why the pages themselves were not read

    @property
    def reviews(self) -> int:
        return self.kept.get("review_log", 0)


def _create(target: Path) -> sqlite3.Connection:
    target.unlink(missing_ok=True)
    conn = sqlite3.connect(target, isolation_level=None)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute("BEGIN")
    for migration in MIGRATIONS:
        for statement in migration.statements:
            conn.execute(statement)
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('schema_version', ?)", (str(LATEST_VERSION),)
    )
    return conn


def _source_tables(source: sqlite3.Connection) -> dict[str, list[str]] | None:
    """The columns of each of our tables in the damaged file; None when its schema is lost."""
    try:
        names = [row[0] for row in source.execute("SELECT name FROM sqlite_master")]
        return {
            name: [row[1] for row in source.execute(f"PRAGMA table_info({name})")]
            for name in names
            if name in TABLES
        }
    except sqlite3.DatabaseError:
        return None


def _from_pages(damaged: Path, dest: sqlite3.Connection, report: Salvaged) -> None:
    """Add the rows on leaf pages SQLite could not reach (under a damaged interior page)."""
    wal = Path(f"{damaged}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        report.pages_unread = "its newest pages are in the WAL"
        return
    shapes = []
    for table in TABLES[1:]:  # `meta` holds only the schema version, which is ours
        columns = _columns(dest, table)
        aliases = [i for i, c in enumerate(columns) if c.name in ("id", "key") and c.required]
        marks = ", ".join("?" for _ in columns)
        names = ", ".join(c.name for c in columns)
        insert = f"INSERT OR IGNORE INTO {table} ({names}) VALUES ({marks})"
        shapes.append((table, columns, aliases[0] if aliases else None, insert))
    try:
        for rowid, values in scan(damaged):
            for table, columns, alias, insert in shapes:
                if len(values) > len(columns):
                    continue
                row = [*values, *(c.default for c in columns[len(values) :])]  # older: shorter
                if alias is not None:
                    if row[alias] is not None:  # an INTEGER PRIMARY KEY is stored as NULL
                        continue
                    row[alias] = rowid
                if not valid(columns, tuple(row)):
                    continue
                if dest.execute(insert, row).rowcount:  # not one the rowid reading had
                    report.kept[table] = report.kept.get(table, 0) + 1
                    report.from_pages += 1
                break
    except (OSError, ValueError) as error:
        report.pages_unread = f"the file could not be mapped ({error})"


def _copy(
    source: sqlite3.Connection,
    dest: sqlite3.Connection,
    table: str,
    have: list[str],
    report: Salvaged,
) -> None:
    target = _columns(dest, table)
    kept = [c for c in target if c.name in have]
    names = [c.name for c in kept]
    insert = f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})"
    counts = {"kept": 0, "rejected": 0, "damaged": 0}
    for row in read_table(source, table, names):
        if not row:
            counts["damaged"] += 1
            continue
        values = row[1:]
        if table == "meta" and values[0] == "schema_version":
            continue
        if not valid(kept, values):
            counts["rejected"] += 1
            continue
        try:
            dest.execute(insert, values)
        except sqlite3.IntegrityError:  # a CHECK or UNIQUE the row breaks
            counts["rejected"] += 1
            continue
        counts["kept"] += 1
    report.kept[table] = counts["kept"]
    report.rejected[table] = counts["rejected"]
    report.damaged[table] = counts["damaged"]


def _rebuild_states(dest: sqlite3.Connection) -> int:
    """Give each card whose state row was lost its state after its last answer or forget."""
    newest: dict[int, tuple[int, CardState]] = {}  # key -> (when, state then)
    answers = dest.execute(
        "SELECT key, reviewed_at_us, after_json FROM review_log "
        "WHERE key NOT IN (SELECT key FROM card_state) ORDER BY id"
    )
    for key, when, after in answers:
        newest[key] = (when, CardState.from_json(after))
    forgets = dest.execute(
        "SELECT key, forgotten_at_us, before_json FROM forget_log "
        "WHERE key NOT IN (SELECT key FROM card_state) ORDER BY id"
    )
    for key, when, before in forgets:
        if key not in newest or when >= newest[key][0]:
            newest[key] = (when, CardState.from_json(before).as_new())
    for _, state in newest.values():
        dest.execute(UPSERT_STATE, state.to_row())
    return len(newest)


def _issued(source: sqlite3.Connection, dest: sqlite3.Connection) -> int | None:
    """Carry AUTOINCREMENT's high-water marks over (no id is handed out twice); the log's."""
    try:
        marks = dict(source.execute("SELECT name, seq FROM sqlite_sequence").fetchall())
    except sqlite3.DatabaseError:
        return None
    for name, seq in marks.items():
        if name in TABLES and isinstance(seq, int):
            raised = dest.execute(
                "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", (seq, name)
            )
            if raised.rowcount == 0:
                dest.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (name, seq))
    issued = marks.get("review_log")
    return issued if isinstance(issued, int) else None


def salvage_into(damaged: Path, target: Path) -> Salvaged:
    """Copy every readable, valid row of `damaged` into a new database at `target`.

    First through SQLite, table by table; where that met damage, the pages themselves are
    read too, for the rows under a damaged interior page. Unreadable when nothing is left.
    """
    report = Salvaged()
    uri = f"{damaged.resolve().as_uri()}?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as source, closing(_create(target)) as dest:
        source.execute("PRAGMA cell_size_check = ON")  # a damaged page is refused, not misread
        tables = _source_tables(source)
        for table in TABLES:
            if tables is not None and table in tables:
                _copy(source, dest, table, tables[table], report)
        if tables is None or any(report.damaged.values()):
            _from_pages(damaged, dest, report)
        if tables is None and not any(report.kept.values()):
            raise Unreadable("neither its list of tables nor any of its pages can be read")
        report.rebuilt = _rebuild_states(dest)
        report.issued_reviews = _issued(source, dest)
        dest.execute("COMMIT")
    return report

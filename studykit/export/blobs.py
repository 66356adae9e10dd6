"""The export ledger's storage: one JSON blob per (kind, deck), each with one checksum.

Writing a deck's state as one blob costs one encode and one row, where a row per note cost
ten thousand. A blob whose checksum, JSON or shape is wrong, or that is bigger than
`MAX_BLOB_BYTES`, is left unread: the ledger acts as if it were absent and writes it anew,
and says so (`Damage`), since losing some of it changes what an export can do.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Callable, Collection
from typing import NamedTuple, TypeVar

MAX_BLOB_BYTES = 256 * 1024 * 1024
"""A bigger blob is ignored, not read: no deck of a sane size comes near it."""

_COLUMNS = ("kind", "deck_id", "version", "check_sum", "body")
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS blobs (kind TEXT NOT NULL, deck_id TEXT NOT NULL, "
    "version TEXT NOT NULL, check_sum TEXT NOT NULL, body BLOB NOT NULL, "
    "PRIMARY KEY (kind, deck_id))"
)
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)

_IN_LIMIT = 500  # more decks than this are filtered here rather than in the query

T = TypeVar("T")


class BadBlob(ValueError):
    """A blob that decodes, but not to the shape its kind has."""


class Damage(NamedTuple):
    """A blob left unread as damaged: its kind and deck ("" for the whole table)."""

    kind: str
    deck_id: str


def blob_check(body: bytes) -> str:
    """The checksum kept beside a blob, so that a damaged one is noticed."""
    # CRC-32 finds damage (a torn write, flipped bits, an edit) as well as a cryptographic
    # hash would, for a blob in the user's own data dir, at a quarter of the cost.
    return f"crc32:{zlib.crc32(body):08x}"


def encode(value: object) -> bytes:
    """Compact JSON (tuples as lists), as UTF-8."""
    return _ENCODER.encode(value).encode()


def read_blobs(
    db: sqlite3.Connection,
    kind: str,
    version: str,
    decode: Callable[[str, object], T],
    decks: Collection[str] | None = None,
    damaged: list[Damage] | None = None,
) -> dict[str, T]:
    """deck id -> `decode(deck id, JSON)` of each blob of `kind` and `version` (of `decks`).

    Damaged, too big, or unreadable blobs (or table) are left out, and added to `damaged`.
    """
    # A blob over the limit comes back as NULL: it is not even read into memory.
    query = "SELECT deck_id, check_sum, CASE WHEN length(body) <= ? THEN body END FROM blobs "
    query += "WHERE kind = ? AND version = ?"
    wanted = sorted(decks) if decks is not None and len(decks) <= _IN_LIMIT else []
    if wanted:
        query += f" AND deck_id IN ({', '.join('?' * len(wanted))})"
    lost = damaged if damaged is not None else []
    try:
        rows = db.execute(query, (MAX_BLOB_BYTES, kind, version, *wanted)).fetchall()
    except sqlite3.DatabaseError:
        if _has_table(db):  # else a ledger never written to: nothing lost
            lost.append(Damage(kind, ""))
        return {}
    found: dict[str, T] = {}
    for deck_id, check, body in rows:
        if decks is not None and deck_id not in decks:
            continue
        if not isinstance(body, bytes) or check != blob_check(body):
            lost.append(Damage(kind, str(deck_id)))
            continue
        try:
            found[deck_id] = decode(deck_id, json.loads(body))
        except (ValueError, TypeError, KeyError, IndexError, RecursionError):  # BadBlob too
            lost.append(Damage(kind, str(deck_id)))
    return found


def _has_table(db: sqlite3.Connection) -> bool:
    """Whether the ledger has a blobs table (or view) at all; a damaged file counts as one."""
    try:
        row = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'blobs'").fetchone()
    except sqlite3.DatabaseError:
        return True
    return row is not None


def ensure_table(db: sqlite3.Connection) -> None:
    """Make the blobs table, or make it again where it has another shape (or is a view)."""
    try:
        found = [row[1] for row in db.execute("PRAGMA table_info(blobs)")]
        kind = db.execute("SELECT type FROM sqlite_master WHERE name = 'blobs'").fetchone()
    except sqlite3.DatabaseError:
        found, kind = [], ("table",)
    if found and tuple(found) == _COLUMNS and kind == ("table",):
        return
    if kind is not None:
        db.execute(f"DROP {'VIEW' if kind[0] == 'view' else 'TABLE'} IF EXISTS blobs")
    db.execute(_SCHEMA)


def write_blob(db: sqlite3.Connection, kind: str, deck_id: str, version: str, body: bytes) -> None:
    """Store one blob (encoded by `encode`), replacing the deck's blob of that kind.

    One over `MAX_BLOB_BYTES` would never be read: the deck's blob is deleted instead.
    """
    if len(body) > MAX_BLOB_BYTES:
        db.execute("DELETE FROM blobs WHERE kind = ? AND deck_id = ?", (kind, deck_id))
        return
    db.execute(
        "INSERT OR REPLACE INTO blobs VALUES (?, ?, ?, ?, ?)",
        (kind, deck_id, version, blob_check(body), body),
    )


def stale_blobs(
    db: sqlite3.Connection, kind: str, keep: Collection[str], version: str
) -> list[str]:
    """Decks whose blob of `kind` is of another version or not in `keep`.

    An unreadable table counts as one stale blob, so that the caller writes it again.
    """
    try:
        rows = db.execute("SELECT deck_id, version FROM blobs WHERE kind = ?", (kind,)).fetchall()
    except sqlite3.DatabaseError:
        return [""]
    return [deck_id for deck_id, found in rows if found != version or deck_id not in keep]


def strings(value: object) -> list[str]:
    """`value` if it is a list of strings, else `BadBlob`."""
    if not isinstance(value, list) or not all(type(item) is str for item in value):
        raise BadBlob("expected a list of strings")
    return value


def integers(value: object) -> list[int]:
    """`value` if it is a list of integers, else `BadBlob`."""
    if not isinstance(value, list) or not all(type(item) is int for item in value):
        raise BadBlob("expected a list of integers")
    return value

"""The SQL that writes one card's state with its log row, on a connection in a transaction."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from fsrs import Rating

from studykit.srs.records import STATE_COLUMNS, CardState, to_us

UPSERT_STATE = (
    f"INSERT OR REPLACE INTO card_state ({', '.join(STATE_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in STATE_COLUMNS)})"
)
SELECT_STATE = f"SELECT {', '.join(STATE_COLUMNS)} FROM card_state"
LOGGED_COLUMNS = (
    "key",
    "deck_id",
    "card_id",
    "ordinal",
    "rating",
    "reviewed_at_us",
    "duration_ms",
    "state_before",
    "state_after",
    "before_json",
    "after_json",
)
"""What every review-log row holds (`log_row`); an answer adds where it was given."""


def _insert(table: str, columns: tuple[str, ...]) -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"


def insert_log(*more: str) -> str:
    """The INSERT of a review-log row: `LOGGED_COLUMNS`, then `more`."""
    return _insert("review_log", (*LOGGED_COLUMNS, *more))


def state_number(state: CardState) -> int | None:
    """The fsrs state as the log stores it (None while new)."""
    return None if state.state is None else int(state.state)


def log_row(
    before: CardState, after: CardState, rating: Rating, reviewed_at: datetime, duration_ms: int
) -> tuple[Any, ...]:
    """An answer's values in `LOGGED_COLUMNS` order."""
    return (
        after.key,
        after.deck_id,
        after.card_id,
        after.ordinal,
        int(rating),
        to_us(reviewed_at),
        max(0, int(duration_ms)),
        state_number(before),
        state_number(after),
        before.to_json(),
        after.to_json(),
    )


FORGET_COLUMNS = ("key", "deck_id", "card_id", "ordinal", "forgotten_at_us", "before_json")
"""What every forget-log row holds (`forget_row`)."""


def insert_forget(*more: str) -> str:
    """The INSERT of a forget-log row: `FORGET_COLUMNS`, then `more`."""
    return _insert("forget_log", (*FORGET_COLUMNS, *more))


def forget_row(before: CardState, at: datetime) -> tuple[Any, ...]:
    """A forget's values in `FORGET_COLUMNS` order: the card's state before it was reset."""
    return (before.key, before.deck_id, before.card_id, before.ordinal, to_us(at), before.to_json())


def state_in(conn: sqlite3.Connection, fresh: CardState) -> CardState:
    """The stored state of `fresh`'s card, read on `conn` (`fresh` when it has none)."""
    rows = conn.execute(f"{SELECT_STATE} WHERE key = ?", (fresh.key,)).fetchall()
    return CardState.from_row(rows[0]) if rows else fresh


_INSERT_ANSWER = insert_log("variant_seed")
_INSERT_FORGET = insert_forget()


def log_answer(
    conn: sqlite3.Connection,
    before: CardState,
    after: CardState,
    rating: Rating,
    reviewed_at: datetime,
    duration_ms: int,
    variant_seed: int | None,
) -> int:
    """Write `after` and its review-log row on `conn` (inside a transaction); the log id."""
    if before.key != after.key:
        raise ValueError("before and after belong to different cards")
    if after.state is None:
        raise ValueError("an answered card cannot be new")
    conn.execute(UPSERT_STATE, after.to_row())
    cursor = conn.execute(
        _INSERT_ANSWER, (*log_row(before, after, rating, reviewed_at, duration_ms), variant_seed)
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def log_forget(conn: sqlite3.Connection, before: CardState, after: CardState, at: datetime) -> int:
    """Write the reset `after` and a forget-log row keeping `before`, on `conn`; the log id."""
    if before.key != after.key:
        raise ValueError("before and after belong to different cards")
    conn.execute(UPSERT_STATE, after.to_row())
    cursor = conn.execute(_INSERT_FORGET, forget_row(before, at))
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def keep_seen(conn: sqlite3.Connection, table: str, row_id: int) -> None:
    """Before a review or forget row is deleted: keep its Anki revlog id, if it went out."""
    column = "reviewed_at_us" if table == "review_log" else "forgotten_at_us"
    conn.execute(
        "INSERT OR IGNORE INTO anki_revlog_seen (revlog_id, key, kind, at_us) "
        f"SELECT anki_revlog_id, key, 'undone', {column} FROM {table} "
        "WHERE id = ? AND anki_revlog_id IS NOT NULL",
        (row_id,),
    )

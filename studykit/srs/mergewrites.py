"""The reads and writes of a sync's merge, inside its one transaction (`AnkiLinks.anki_merge`).

A sync may touch thousands of cards: what the merge needs of them is read table by table for
all of them at once, and its writes are kept and made table by table when the merge ends,
in the order they were asked for (so new log rows get the ids they would get one by one).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from fsrs import Rating

from studykit.srs.records import (
    ANSWER_COLUMNS,
    STATE_COLUMNS,
    Answer,
    CardState,
    Forget,
    opt_to_us,
    to_us,
)
from studykit.srs.writes import (
    SELECT_STATE,
    forget_row,
    insert_forget,
    insert_log,
    log_row,
    state_number,
)

__all__ = ["CardFacts", "CardLog", "MergeWrites"]

_CHUNK = 500
_UNSENT = "anki_revlog_id IS NULL AND source IS NULL"
_UNLINKED_PER_CARD = 10
_SET_DUE = "set-due"
_SCHEDULE = ("key", "deck_id", "card_id", "ordinal")
# As `UPSERT_STATE` (the row is replaced, and is unsent again), but a stored row is updated in
# place: its key is the hash of (deck, card, ordinal), so those columns never change, and
# their unique index is left as it is (a quarter fewer pages to write and sync).
_PUT_STATE = (
    f"INSERT INTO card_state ({', '.join(STATE_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in STATE_COLUMNS)}) ON CONFLICT (key) DO UPDATE SET "
    + ", ".join(f"{name} = excluded.{name}" for name in STATE_COLUMNS if name not in _SCHEDULE)
    + ", anki_sent = 0"
)


class CardFacts(NamedTuple):
    """What the merge reads of one card before it takes rows in."""

    state: CardState | None
    """The stored state (None: the card has none yet)."""
    unlinked: list[tuple[int, int, int]]
    """(id, reviewed_at_us, rating) of its answers given here with no Anki id, oldest first."""
    set_due: list[tuple[int, int | None]]
    """(at_us, due_us) of its seen set-due-date rows, oldest first."""
    last_us: int | None
    """When its newest review or forget row is (epoch µs), if it has one."""


class CardLog(NamedTuple):
    """One card's logged answers and forgets, each oldest first."""

    history: list[Answer]
    forgets: list[Forget]


def _chunks(values: Sequence[int]) -> Iterator[tuple[int, ...]]:
    for start in range(0, len(values), _CHUNK):
        yield tuple(values[start : start + _CHUNK])


def _marks(values: Sequence[object]) -> str:
    return ", ".join("?" for _ in values)


def _by_card_and_time(row: Sequence[Any]) -> tuple[Any, ...]:
    """(key, reviewed_at_us, id) of a (key, id, reviewed_at_us, ...) row."""
    return (row[0], row[2], row[1])


class MergeWrites:
    """Reads and writes inside one merge transaction; `flush` makes the writes."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._states: dict[int, tuple[Any, ...]] = {}
        self._links: list[tuple[int, int]] = []
        self._seen: list[tuple[int, int, str, int, int | None]] = []
        self._answers: list[tuple[Any, ...]] = []
        self._forgets: list[tuple[Any, ...]] = []
        self._snapshots: list[tuple[Any, ...]] = []
        self._forget_befores: list[tuple[str, int]] = []

    def _rows(self, sql: str, keys: Sequence[int], *args: Any) -> Iterator[Any]:
        """`sql`'s rows for these keys (its `{keys}` is their `?` marks), chunk by chunk."""
        for chunk in _chunks(list(dict.fromkeys(keys))):
            yield from self._conn.execute(sql.format(keys=_marks(chunk)), (*chunk, *args))

    def facts(self, keys: Sequence[int]) -> dict[int, CardFacts]:
        """What the merge needs of these cards, read as the transaction sees them now."""
        found = {key: CardFacts(None, [], [], None) for key in keys}
        for row in self._rows(f"{SELECT_STATE} WHERE key IN ({{keys}})", keys):
            found[row[0]] = found[row[0]]._replace(state=CardState.from_row(row))
        for key, row_id, at_us, rating in self._unlinked(keys):
            found[key].unlinked.append((int(row_id), int(at_us), int(rating)))
        for key, at_us, due_us in self._rows(
            "SELECT key, at_us, due_us FROM anki_revlog_seen WHERE key IN ({keys}) AND kind = ? "
            "ORDER BY key, at_us, revlog_id",
            keys,
            _SET_DUE,
        ):
            found[key].set_due.append((int(at_us), due_us))
        last: dict[int, int] = {}
        for table, column in (("review_log", "reviewed_at_us"), ("forget_log", "forgotten_at_us")):
            for key, at_us in self._rows(
                f"SELECT key, max({column}) FROM {table} WHERE key IN ({{keys}}) GROUP BY key",
                keys,
            ):
                if at_us is not None:
                    last[key] = max(last.get(key, at_us), int(at_us))
        for key, at_us in last.items():
            found[key] = found[key]._replace(last_us=at_us)
        return found

    def _unlinked(self, keys: Sequence[int]) -> list[Any]:
        """(key, id, reviewed_at_us, rating) of these cards' answers given here with no Anki
        id, by card, oldest first."""
        # Usually few answers here have not gone out: all of them, through their own index,
        # cost less than every row of these cards (each holds its snapshots).
        limit = _UNLINKED_PER_CARD * len(keys)
        rows = self._conn.execute(
            f"SELECT key, id, reviewed_at_us, rating FROM review_log WHERE {_UNSENT} LIMIT ?",
            (limit + 1,),
        ).fetchall()
        if len(rows) <= limit:
            wanted = set(keys)
            return sorted((row for row in rows if row[0] in wanted), key=_by_card_and_time)
        return list(
            self._rows(
                f"SELECT key, id, reviewed_at_us, rating FROM review_log WHERE key IN ({{keys}}) "
                f"AND {_UNSENT} ORDER BY key, reviewed_at_us, id",
                keys,
            )
        )

    def logs(self, keys: Sequence[int]) -> dict[int, CardLog]:
        """Every logged answer and forget of these cards, oldest first."""
        found = {key: CardLog([], []) for key in keys}
        for row in self._rows(
            f"SELECT {', '.join(ANSWER_COLUMNS)} FROM review_log WHERE key IN ({{keys}}) "
            "ORDER BY key, reviewed_at_us, id",
            keys,
        ):
            found[row[1]].history.append(Answer.from_row(row))
        for row in self._rows(
            "SELECT id, key, forgotten_at_us, before_json FROM forget_log "
            "WHERE key IN ({keys}) ORDER BY key, forgotten_at_us, id",
            keys,
        ):
            found[row[1]].forgets.append(Forget.from_row(row))
        return found

    # -- writes, made by `flush` -------------------------------------------------------------

    def link(self, answer_id: int, anki_revlog_id: int) -> None:
        """An answer given here is this Anki revlog row (it went out in a package)."""
        self._links.append((anki_revlog_id, answer_id))

    def add_answer(
        self,
        before: CardState,
        after: CardState,
        *,
        rating: Rating,
        reviewed_at: datetime,
        duration_ms: int,
        source: str,
        anki_revlog_id: int | None,
    ) -> None:
        """A row answered elsewhere."""
        row = log_row(before, after, rating, reviewed_at, duration_ms)
        self._answers.append((*row, source, anki_revlog_id))

    def add_forget(self, before: CardState, *, at: datetime, anki_revlog_id: int) -> None:
        """A forget made in Anki."""
        self._forgets.append((*forget_row(before, at), anki_revlog_id))

    def set_snapshots(self, answer_id: int, before: CardState, after: CardState) -> None:
        """A logged row's state before and after, as the merged log has them now."""
        self._snapshots.append(
            (
                state_number(before),
                state_number(after),
                before.to_json(),
                after.to_json(),
                answer_id,
            )
        )

    def set_forget_before(self, forget_id: int, before: CardState) -> None:
        """A forget's state before, as the merged log has it now."""
        self._forget_befores.append((before.to_json(), forget_id))

    def add_seen(
        self, revlog_id: int, key: int, kind: str, *, at: datetime, due: datetime | None = None
    ) -> None:
        """An Anki revlog row taken in as no answer (a set due date, a cram answer, ...)."""
        self._seen.append((revlog_id, key, kind, to_us(at), opt_to_us(due)))

    def put_state(self, state: CardState) -> None:
        """Write a card's state (it goes out to Anki at the next push); the last one counts."""
        self._states[state.key] = state.to_row()

    def flush(self) -> None:
        """Make the writes kept so far: the states first, since log rows point at them."""
        conn = self._conn
        steps: tuple[tuple[str, list[Any]], ...] = (
            (_PUT_STATE, list(self._states.values())),
            ("UPDATE review_log SET anki_revlog_id = ? WHERE id = ?", self._links),
            (
                "INSERT OR IGNORE INTO anki_revlog_seen (revlog_id, key, kind, at_us, due_us) "
                "VALUES (?, ?, ?, ?, ?)",
                self._seen,
            ),
            (insert_log("source", "anki_revlog_id"), self._answers),
            (insert_forget("anki_revlog_id"), self._forgets),
            (
                "UPDATE review_log SET state_before = ?, state_after = ?, before_json = ?, "
                "after_json = ? WHERE id = ?",
                self._snapshots,
            ),
            ("UPDATE forget_log SET before_json = ? WHERE id = ?", self._forget_befores),
        )
        for sql, rows in steps:
            if rows:
                conn.executemany(sql, rows)
            rows.clear()
        self._states.clear()

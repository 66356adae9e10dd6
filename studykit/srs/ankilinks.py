"""The study database's side of `studykit sync`: which rows went out to Anki (their revlog ids,
the dedupe key of every sync), which card states changed since they went out, and the one
transaction in which a sync's answers from Anki are merged into a card's log."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple

from studykit.srs.database import Database
from studykit.srs.mergewrites import MergeWrites
from studykit.srs.records import ANSWER_COLUMNS, STATE_COLUMNS, Answer, CardState, Forget
from studykit.srs.writes import SELECT_STATE

__all__ = ["AnkiLinks", "LogRow", "MergeWrites"]

_CHUNK = 500
_MANY = 1000
_REBUILD = 10_000
_UNSENT = "anki_revlog_id IS NULL AND source IS NULL"
_ANSWER_SELECT = f"SELECT {', '.join(ANSWER_COLUMNS)}, anki_revlog_id FROM review_log"
# What a revlog row needs, read by SQLite's JSON functions: parsing 100,000 snapshots in
# Python would take seconds.
_LOG_SELECT = (
    "SELECT id, key, rating, reviewed_at_us, duration_ms, anki_revlog_id, "
    "json_extract(before_json, '$.state'), json_extract(before_json, '$.due_us'), "
    "json_extract(before_json, '$.last_review_us'), json_extract(after_json, '$.state'), "
    "json_extract(after_json, '$.due_us'), json_extract(after_json, '$.last_review_us'), "
    "json_extract(after_json, '$.difficulty') FROM review_log"
)


class LogRow(NamedTuple):
    """A review-log row as a revlog row needs it: the snapshots' state, due, last review."""

    id: int
    key: int
    rating: int
    reviewed_at_us: int
    duration_ms: int
    anki_revlog_id: int | None
    before_state: int | None
    before_due_us: int | None
    before_last_us: int | None
    after_state: int | None
    after_due_us: int | None
    after_last_us: int | None
    after_difficulty: float | None


# One row at a time, compared column by column in SQL (`IS`: NULL is NULL): reading the rows
# back into Python to compare them costs more than the update.
_MARK_SENT = (
    "UPDATE card_state SET anki_sent = 1 WHERE "
    + " AND ".join(f"{name} IS ?" for name in STATE_COLUMNS[1:])
    + " AND key = ?"
)

_FORGET_SELECT = "SELECT id, key, forgotten_at_us, before_json, anki_revlog_id FROM forget_log"


def _chunks(values: Sequence[int]) -> Iterator[tuple[int, ...]]:
    for start in range(0, len(values), _CHUNK):
        yield tuple(values[start : start + _CHUNK])


def _marks(values: Sequence[object]) -> str:
    return ", ".join("?" for _ in values)


@contextmanager
def _indexes_rebuilt(conn: sqlite3.Connection, table: str, changing: int) -> Iterator[None]:
    """Rebuild the table's indexes on `anki_revlog_id` around an UPDATE of a large share of
    its rows: a first sync's 100,000 ids, inserted one by one into both indexes, take twice as
    long as building them again. Inside the caller's transaction, from their own SQL."""
    indexes: list[tuple[str, str]] = []
    if (
        changing >= _REBUILD
        and changing * 2 >= conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    ):
        indexes = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? "
            "AND sql LIKE '%anki_revlog_id%'",
            (table,),
        ).fetchall()
    for name, _ in indexes:
        conn.execute(f'DROP INDEX "{name}"')
    yield
    for _, sql in indexes:
        conn.execute(sql)


class AnkiLinks(Database):
    """The tables and columns that tie the study database to an Anki collection."""

    def known_anki_ids(self, ids: Sequence[int]) -> set[int]:
        """Which of these Anki revlog ids a review, forget or seen row holds already."""
        known: set[int] = set()
        for chunk in _chunks(list(ids)):
            marks = _marks(chunk)
            for table, column in (
                ("review_log", "anki_revlog_id"),
                ("forget_log", "anki_revlog_id"),
                ("anki_revlog_seen", "revlog_id"),
            ):
                rows = self._query(
                    f"SELECT {column} FROM {table} WHERE {column} IN ({marks})", chunk
                )
                known.update(row[0] for row in rows)
        return known

    def anki_ids_between(self, low: int, high: int) -> set[int]:
        """Every Anki revlog id from `low` to `high` that a review, forget or seen row holds."""
        found: set[int] = set()
        for table, column in (
            ("review_log", "anki_revlog_id"),
            ("forget_log", "anki_revlog_id"),
            ("anki_revlog_seen", "revlog_id"),
        ):
            rows = self._query(
                f"SELECT {column} FROM {table} WHERE {column} BETWEEN ? AND ?", (low, high)
            )
            found.update(row[0] for row in rows)
        return found

    @contextmanager
    def anki_merge(self) -> Iterator[MergeWrites]:
        """One write transaction for a sync's merge: all of it is committed, or none. Its
        writes are kept and made together at the end of the block (srs/mergewrites.py)."""
        with self._transaction() as conn:
            writes = MergeWrites(conn)
            yield writes
            writes.flush()

    # -- what goes out ---------------------------------------------------------------------

    def unsent_states(self) -> list[CardState]:
        """The card states written since they last went out to Anki."""
        return [
            CardState.from_row(row) for row in self._query(f"{SELECT_STATE} WHERE anki_sent = 0")
        ]

    def unsent_log(self) -> list[LogRow]:
        """Answers given here that have no Anki revlog id yet, oldest first (light rows)."""
        where = f"WHERE {_UNSENT}"
        if not self._mostly_unsent():
            rows = self._query(f"{_LOG_SELECT} {where} ORDER BY reviewed_at_us, id")
            return [LogRow(*row) for row in rows]
        found = [LogRow(*row) for row in self._query(f"{_LOG_SELECT} NOT INDEXED {where}")]
        found.sort(key=lambda row: (row.reviewed_at_us, row.id))
        return found

    def _mostly_unsent(self) -> bool:
        """Whether most of the log has not gone out (a first sync). Then one pass through the
        table beats reading 100,000 rows through the index of unsent ones: twice as fast."""
        count, top = self._query(
            f"SELECT (SELECT count(*) FROM review_log WHERE {_UNSENT}), "
            "(SELECT max(id) FROM review_log)"
        )[0]
        return bool(count >= _MANY and count * 2 >= (top or 0))

    def sent_log(self, keys: Sequence[int]) -> list[LogRow]:
        """The rows of these cards that hold an Anki revlog id (light rows)."""
        found: list[LogRow] = []
        for chunk in _chunks(list(keys)):
            rows = self._query(
                f"{_LOG_SELECT} WHERE key IN ({_marks(chunk)}) AND anki_revlog_id IS NOT NULL",
                chunk,
            )
            found += [LogRow(*row) for row in rows]
        return found

    def unsent_keys(self) -> set[int]:
        """Cards with an answer or a forget that has not gone out to Anki yet."""
        scan = "NOT INDEXED " if self._mostly_unsent() else ""
        rows = self._query(
            f"SELECT key FROM review_log {scan}WHERE {_UNSENT} "
            "UNION SELECT key FROM forget_log WHERE anki_revlog_id IS NULL"
        )
        return {row[0] for row in rows}

    def unsent_answers(self) -> list[Answer]:
        """Answers given here that have no Anki revlog id yet, oldest first."""
        rows = self._query(
            f"{_ANSWER_SELECT} WHERE anki_revlog_id IS NULL AND source IS NULL "
            "ORDER BY reviewed_at_us, id"
        )
        return [Answer.from_row(row[:-1]) for row in rows]

    def unsent_forgets(self) -> list[Forget]:
        """Forgets made here that have no Anki revlog id yet, oldest first."""
        rows = self._query(
            f"{_FORGET_SELECT} WHERE anki_revlog_id IS NULL ORDER BY forgotten_at_us, id"
        )
        return [Forget.from_row(row[:-1]) for row in rows]

    def sent_answers(self, keys: Sequence[int]) -> list[tuple[int, Answer]]:
        """(Anki revlog id, answer) of the rows of these cards that have one, oldest first."""
        found: list[tuple[int, Answer]] = []
        for chunk in _chunks(list(keys)):
            rows = self._query(
                f"{_ANSWER_SELECT} WHERE key IN ({_marks(chunk)}) AND anki_revlog_id IS NOT NULL "
                "ORDER BY reviewed_at_us, id",
                chunk,
            )
            found += [(row[-1], Answer.from_row(row[:-1])) for row in rows]
        return found

    def sent_forgets(self, keys: Sequence[int]) -> list[tuple[int, Forget]]:
        """(Anki revlog id, forget) of the forgets of these cards that have one."""
        found: list[tuple[int, Forget]] = []
        for chunk in _chunks(list(keys)):
            rows = self._query(
                f"{_FORGET_SELECT} WHERE key IN ({_marks(chunk)}) AND anki_revlog_id IS NOT NULL",
                chunk,
            )
            found += [(row[-1], Forget.from_row(row[:-1])) for row in rows]
        return found

    def keys_of_cards(self, cards: Sequence[tuple[str, str]]) -> list[int]:
        """The keys of every stored schedule (each ordinal) of these (deck id, card id)."""
        wanted = set(cards)
        card_ids = sorted({card_id for _, card_id in wanted})
        keys: list[int] = []
        for start in range(0, len(card_ids), _CHUNK):
            chunk = tuple(card_ids[start : start + _CHUNK])
            rows = self._query(
                f"SELECT key, deck_id, card_id FROM card_state WHERE card_id IN ({_marks(chunk)})",
                chunk,
            )
            keys += [key for key, deck_id, card_id in rows if (deck_id, card_id) in wanted]
        return keys

    def keys_with_anki_rows(self) -> list[int]:
        """Every card with a row that holds an Anki revlog id (after a full download)."""
        rows = self._query(
            "SELECT DISTINCT key FROM review_log WHERE anki_revlog_id IS NOT NULL "
            "UNION SELECT DISTINCT key FROM forget_log WHERE anki_revlog_id IS NOT NULL"
        )
        return [row[0] for row in rows]

    def set_anki_ids(
        self, answers: Iterable[tuple[int, int]], forgets: Iterable[tuple[int, int]] = ()
    ) -> None:
        """Give review rows and forget rows (id, Anki revlog id) theirs, in one transaction."""
        answers, forgets = list(answers), list(forgets)
        with self._transaction() as conn:
            if len(answers) + len(forgets) < _MANY:
                conn.executemany(
                    "UPDATE review_log SET anki_revlog_id = ? WHERE id = ?",
                    [(anki, row) for row, anki in answers],
                )
                conn.executemany(
                    "UPDATE forget_log SET anki_revlog_id = ? WHERE id = ?",
                    [(anki, row) for row, anki in forgets],
                )
                return
            for table, pairs in (("review_log", answers), ("forget_log", forgets)):
                # Through a temporary table: one UPDATE, not 100,000 (a first sync's).
                conn.execute(
                    "CREATE TEMP TABLE IF NOT EXISTS anki_ids "
                    "(id INTEGER PRIMARY KEY, anki INTEGER)"
                )
                conn.execute("DELETE FROM temp.anki_ids")
                conn.executemany("INSERT INTO temp.anki_ids (id, anki) VALUES (?, ?)", pairs)
                with _indexes_rebuilt(conn, table, len(pairs)):
                    conn.execute(
                        f"UPDATE {table} SET anki_revlog_id = ids.anki FROM temp.anki_ids AS ids "
                        f"WHERE {table}.id = ids.id"
                    )
            conn.execute("DELETE FROM temp.anki_ids")

    def mark_sent(self, states: Iterable[CardState]) -> int:
        """Mark these states as gone out, each only if its row is still as given; how many."""
        rows = list({state.key: (*state.to_row()[1:], state.key) for state in states}.values())
        with self._lock:
            # A mark lost in a crash only sends these states again, and the push finds the
            # mirror already agrees: this commit need not wait for the disk (an answer's does).
            conn = self._conn
            level = conn.execute("PRAGMA synchronous").fetchone()[0]
            conn.execute("PRAGMA synchronous = NORMAL")
            try:
                with self._transaction() as tx:
                    return int(tx.executemany(_MARK_SENT, rows).rowcount) if rows else 0
            finally:
                conn.execute(f"PRAGMA synchronous = {int(level)}")

    def mark_all_unsent(self) -> None:
        """Every state goes out again (after a full download, or to a new collection)."""
        with self._transaction() as conn:
            conn.execute("UPDATE card_state SET anki_sent = 0 WHERE anki_sent != 0")

    def unsent_count(self) -> tuple[int, int]:
        """(card states, answers) waiting to go out to Anki."""
        states = self._query("SELECT count(*) FROM card_state WHERE anki_sent = 0")[0][0]
        answers = self._query(
            "SELECT count(*) FROM review_log WHERE anki_revlog_id IS NULL AND source IS NULL"
        )[0][0]
        return int(states), int(answers)

"""The study database's tables: card states, the review and forget logs, memory models and
the experiment cache (and, in srs/ankilinks.py, what ties them to an Anki collection). Every
write is one committed transaction (srs/database.py)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from fsrs import Rating, State

from studykit.core.jsontypes import JsonObject
from studykit.srs.ankilinks import AnkiLinks
from studykit.srs.database import StoreError
from studykit.srs.records import (
    ANSWER_COLUMNS,
    COUNTS_AS_ANSWER,
    Answer,
    CardState,
    DayCount,
    Forget,
    from_us,
    to_us,
)
from studykit.srs.schema import LATEST_VERSION, MIGRATIONS, Migration
from studykit.srs.shapes import MemoryModel
from studykit.srs.writes import (
    SELECT_STATE,
    UPSERT_STATE,
    insert_log,
    keep_seen,
    log_answer,
    log_forget,
    log_row,
    state_in,
)

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

_SELECT_ANSWER = f"SELECT {', '.join(ANSWER_COLUMNS)} FROM review_log"
_SELECT_FORGET = "SELECT id, key, forgotten_at_us, before_json FROM forget_log"


class Store(AnkiLinks):
    """The study database. Use `Store.open(path)`; close it (or use `with`)."""

    # -- card state ----------------------------------------------------------------------

    def load_states(self) -> list[CardState]:
        """Every stored card state (including cards no longer in the YAML)."""
        return [CardState.from_row(row) for row in self._query(SELECT_STATE)]

    def queue_rows(self) -> list[tuple[Any, ...]]:
        """(deck_id, card_id, ordinal, state, due_us, lapses, suspended, leech, buried_until_us)
        per row."""
        # Plain columns, no datetime objects: loading 100,000 of these must stay cheap.
        return self._query(
            "SELECT deck_id, card_id, ordinal, state, due_us, lapses, suspended, leech, "
            "buried_until_us FROM card_state"
        )

    def states_in(self, deck_ids: Sequence[str]) -> list[CardState]:
        """The stored card states of these decks."""
        marks = ", ".join("?" for _ in deck_ids)
        rows = self._query(f"{SELECT_STATE} WHERE deck_id IN ({marks})", tuple(deck_ids))
        return [CardState.from_row(row) for row in rows]

    def states_of(self, keys: Sequence[int]) -> dict[int, CardState]:
        """The stored states of these cards (at most a page of them), by key."""
        found: dict[int, CardState] = {}
        for start in range(0, len(keys), 500):
            chunk = tuple(keys[start : start + 500])
            marks = ", ".join("?" for _ in chunk)
            for row in self._query(f"{SELECT_STATE} WHERE key IN ({marks})", chunk):
                state = CardState.from_row(row)
                found[state.key] = state
        return found

    def get_state(self, key: int) -> CardState | None:
        """The stored state of one card, if it has one."""
        rows = self._query(f"{SELECT_STATE} WHERE key = ?", (key,))
        return CardState.from_row(rows[0]) if rows else None

    def put_state(self, state: CardState) -> None:
        """Insert or replace one card's state (bury, suspend), committed."""
        self.put_states((state,))

    def put_states(self, states: Iterable[CardState]) -> None:
        """Insert or replace many card states in one committed transaction."""
        with self._transaction() as conn:
            conn.executemany(UPSERT_STATE, (state.to_row() for state in states))

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
        with self._transaction() as conn:
            return log_answer(conn, before, after, rating, reviewed_at, duration_ms, variant_seed)

    def answer_card(
        self,
        fresh: CardState,
        decide: Callable[[CardState], CardState],
        *,
        rating: Rating,
        reviewed_at: datetime,
        duration_ms: int,
        variant_seed: int | None = None,
    ) -> tuple[CardState, CardState, int]:
        """Answer one card: (before, after, log id), all in ONE write transaction.

        The stored state (`fresh` when there is none) is read inside the transaction and
        `decide` turns it into the new one, so another process's answer to the same card
        in between is built on, never overwritten.
        """
        with self._transaction() as conn:
            before = state_in(conn, fresh)
            after = decide(before)
            log_id = log_answer(conn, before, after, rating, reviewed_at, duration_ms, variant_seed)
        return before, after, log_id

    def change_state(
        self, fresh: CardState, change: Callable[[CardState], CardState]
    ) -> tuple[CardState, CardState]:
        """Read one card's state and write `change(state)`, in one transaction; (before, after)."""
        with self._transaction() as conn:
            before = state_in(conn, fresh)
            after = change(before)
            conn.execute(UPSERT_STATE, after.to_row())
        return before, after

    def import_state(self, state: CardState, *, reviewed_at: datetime, source: str) -> bool:
        """Give a card a starting state from elsewhere, with a log row marked `source`.

        One committed transaction; False (nothing written) when the card already has a
        schedule here, so importing twice, or over real answers, changes nothing.
        """
        imported_as = state.state
        if imported_as is None:
            raise ValueError("an imported state cannot be new")
        with self._transaction() as conn:
            rows = conn.execute(f"{SELECT_STATE} WHERE key = ?", (state.key,)).fetchall()
            before = CardState.from_row(rows[0]) if rows else None
            if before is not None and before.state is not None:
                return False
            if before is not None:  # keep flags such as suspended
                state = replace(state, suspended=before.suspended, leech=before.leech)
            conn.execute(UPSERT_STATE, state.to_row())
            new = before or replace(state.as_new(), suspended=False)  # never answered here
            row = log_row(new, state, Rating.Good, reviewed_at, 0)
            conn.execute(insert_log("source"), (*row, source))
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
        """Delete a log row and write the restored state, in one committed transaction.

        A row that went out to Anki stays there: its Anki id is kept as seen, so no sync
        takes it in again as an answer.
        """
        with self._transaction() as conn:
            keep_seen(conn, "review_log", answer_id)
            deleted = conn.execute("DELETE FROM review_log WHERE id = ?", (answer_id,))
            if deleted.rowcount != 1:
                raise StoreError(f"{self.path}: review {answer_id} is no longer in the log")
            conn.execute(UPSERT_STATE, restored.to_row())

    # -- forget log ----------------------------------------------------------------------

    def record_forget(self, before: CardState, after: CardState, *, at: datetime) -> int:
        """Write the reset state and keep the state before, in ONE committed transaction."""
        with self._transaction() as conn:
            return log_forget(conn, before, after, at)

    def forget_card(self, fresh: CardState, *, at: datetime) -> tuple[CardState, int] | None:
        """Reset a card to new, reading its state in the same transaction; (before, log id).

        None, and nothing written, for a card that is new.
        """
        with self._transaction() as conn:
            before = state_in(conn, fresh)
            if before.state is None:
                return None
            return before, log_forget(conn, before, before.as_new(), at)

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
            keep_seen(conn, "forget_log", forget_id)
            deleted = conn.execute("DELETE FROM forget_log WHERE id = ?", (forget_id,))
            if deleted.rowcount != 1:
                raise StoreError(f"{self.path}: forget {forget_id} is no longer in the log")
            conn.execute(UPSERT_STATE, restored.to_row())

    def answered_since(self, since: datetime) -> list[tuple[str, str, int]]:
        """(deck_id, card_id, ordinal) of each schedule answered at or after `since`, once."""
        return self._query(
            "SELECT DISTINCT deck_id, card_id, ordinal FROM review_log "
            "WHERE reviewed_at_us >= ? AND source IS NULL",
            (to_us(since),),
        )

    def forgotten_since(self, since: datetime) -> list[tuple[str, str, int]]:
        """(deck_id, card_id, ordinal) of each schedule answered Again at or after `since`."""
        return self._query(
            "SELECT DISTINCT deck_id, card_id, ordinal FROM review_log "
            f"WHERE reviewed_at_us >= ? AND rating = ? AND {COUNTS_AS_ANSWER}",
            (to_us(since), int(Rating.Again)),
        )

    def day_counts(self, since: datetime) -> dict[str, DayCount]:
        """Per deck: answers, first answers of new cards, and answers of review cards."""
        rows = self._query(
            "SELECT deck_id, count(*), sum(state_before IS NULL), sum(state_before IS ?) "
            f"FROM review_log WHERE reviewed_at_us >= ? AND {COUNTS_AS_ANSWER} GROUP BY deck_id",
            (int(State.Review), to_us(since)),
        )
        return {deck: DayCount(answers, new, reviews) for deck, answers, new, reviews in rows}

    def answer_times(self, since: datetime) -> list[int]:
        """Times (epoch microseconds, ascending) of every answer at or after `since`."""
        rows = self._query(
            "SELECT reviewed_at_us FROM review_log WHERE reviewed_at_us >= ? "
            f"AND {COUNTS_AS_ANSWER} ORDER BY reviewed_at_us",
            (to_us(since),),
        )
        return [row[0] for row in rows]

    def review_outcomes(self, since: datetime) -> tuple[int, int]:
        """(answers of review-state cards, of which not Again) at or after `since`."""
        rows = self._query(
            "SELECT count(*), coalesce(sum(rating != ?), 0) FROM review_log "
            f"WHERE reviewed_at_us >= ? AND state_before = ? AND {COUNTS_AS_ANSWER}",
            (int(Rating.Again), to_us(since), int(State.Review)),
        )
        total, passed = rows[0]
        return int(total), int(passed)

    # -- memory model --------------------------------------------------------------------

    def review_rows(self, deck_ids: Sequence[str] | None = None) -> list[tuple[int, int, int, int]]:
        """(key, rating, reviewed_at_us, duration_ms) of every answer, oldest first.

        Imported rows are left out: they are a starting state, not an answer to learn from.
        """
        sql = (
            "SELECT key, rating, reviewed_at_us, duration_ms FROM review_log "
            f"WHERE {COUNTS_AS_ANSWER}"
        )
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
        """How many answers the log holds, here or elsewhere (imported rows are not answers)."""
        rows = self._query(f"SELECT count(*) FROM review_log WHERE {COUNTS_AS_ANSWER}")
        return int(rows[0][0])

    def memory_models(self) -> dict[str, MemoryModel]:
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
        params: Mapping[str, object],
        seed: int,
        device: str,
        torch_version: str,
        result: JsonObject,
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

    def experiment_count(self) -> tuple[int, int]:
        """(cached results, newest result's time in µs): what changes when a result is added."""
        count, newest = self._query("SELECT count(*), max(created_at_us) FROM experiment_cache")[0]
        return int(count), int(newest or 0)

    def experiment_result(
        self, *, name: str, params: Mapping[str, object], seed: int, device: str, torch_version: str
    ) -> JsonObject | None:
        """A cached result for exactly these inputs, if any (as stored: the experiments' own
        `Result.from_json` checks it)."""
        rows = self._query(
            "SELECT result_json FROM experiment_cache WHERE name = ? AND params_json = ? "
            "AND seed = ? AND device = ? AND torch_version = ?",
            (name, json.dumps(params, sort_keys=True), seed, device, torch_version),
        )
        if not rows:
            return None
        result = json.loads(rows[0][0])
        return result if isinstance(result, dict) else None

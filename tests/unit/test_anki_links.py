"""The study database's Anki ids: a bulk write keeps the indexes it rebuilds."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from studykit.srs import ankilinks
from studykit.srs.scheduler import Rating, State, card_key
from studykit.srs.store import CardState, Store

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _indexes(path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
            "ORDER BY name"
        ).fetchall()
        return [(str(name), str(sql)) for name, sql in rows]
    finally:
        conn.close()


@pytest.mark.parametrize("rebuild", [3, 10_000])
def test_bulk_anki_ids_land_and_indexes_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rebuild: int
) -> None:
    monkeypatch.setattr(ankilinks, "_MANY", 2)
    monkeypatch.setattr(ankilinks, "_REBUILD", rebuild)
    path = tmp_path / "studykit.sqlite3"
    with Store.open(path) as store:
        ids = []
        for number in range(4):
            state = CardState(card_key("d", f"c{number}"), "d", f"c{number}")
            at = T0 - timedelta(minutes=number)
            after = CardState(
                state.key, "d", state.card_id, state=State.Review, due=at, last_review=at, reps=1
            )
            ids.append(
                store.record_answer(state, after, rating=Rating.Good, reviewed_at=at, duration_ms=1)
            )
        assert [row.id for row in store.unsent_log()] == ids[::-1]  # oldest first
        keys = [card_key("d", f"c{number}") for number in range(4)]
        assert store.unsent_keys() == set(keys)
        before = _indexes(path)
        store.set_anki_ids([(row, 1000 + row) for row in ids[:3]])
        assert _indexes(path) == before
        assert [row.id for row in store.unsent_log()] == [ids[3]]
        assert store.unsent_keys() == {keys[3]}
        assert store.known_anki_ids([1000 + row for row in ids]) == {1000 + r for r in ids[:3]}
        with pytest.raises(Exception, match="UNIQUE"):
            store.set_anki_ids([(ids[3], 1000 + ids[0]), (ids[2], 5), (ids[1], 6)])
        assert _indexes(path) == before
        assert store.known_anki_ids([5, 6]) == set()


def test_mark_sent_leaves_answers_durable(tmp_path: Path) -> None:
    with Store.open(tmp_path / "studykit.sqlite3") as store:
        state = CardState(card_key("d", "c"), "d", "c")
        at = T0
        after = CardState(state.key, "d", "c", state=State.Review, due=at, last_review=at, reps=1)
        store.record_answer(state, after, rating=Rating.Good, reviewed_at=at, duration_ms=1)
        assert store.mark_sent([after]) == 1
        assert store.unsent_count() == (0, 1)
        assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL again

"""A database whose newest pages exist only in the WAL opens with every review."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fsrs import Rating

from studykit.srs.records import CardState
from studykit.srs.scheduler import State, card_key
from studykit.srs.store import Store

REVIEWS = 300
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _answer(store: Store, number: int) -> None:
    """Record one review of card `c{number}` of deck `wal`."""
    when = T0 + timedelta(minutes=number)
    before = CardState(card_key("wal", f"c{number}"), "wal", f"c{number}")
    after = CardState(
        key=before.key,
        deck_id="wal",
        card_id=before.card_id,
        state=State.Review,
        step=None,
        stability=3.0,
        difficulty=5.0,
        due=when + timedelta(days=3),
        last_review=when,
        reps=1,
        lapses=0,
        introduced_at=when,
    )
    store.record_answer(before, after, rating=Rating.Good, reviewed_at=when, duration_ms=900)


def _page_size(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA page_size").fetchone()[0])
    finally:
        conn.close()


def wal_only_database(tmp_path: Path) -> Path:
    """A checkpoint that wrote page 1 and then failed (disk full): main file stale, WAL whole."""
    live = tmp_path / "live" / "studykit.sqlite3"
    store = Store.open(live)
    try:
        for number in range(REVIEWS):
            _answer(store, number)
        # Snapshot while the store is open: every commit is in the WAL, none checkpointed.
        broken = tmp_path / "broken" / live.name
        checkpointed = tmp_path / "checkpointed" / live.name
        for folder in (broken.parent, checkpointed.parent):
            folder.mkdir()
            shutil.copyfile(live, folder / live.name)
            shutil.copyfile(f"{live}-wal", f"{folder / live.name}-wal")
    finally:
        store.close()
    conn = sqlite3.connect(checkpointed)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    size = _page_size(checkpointed)
    page_one = checkpointed.read_bytes()[:size]
    with broken.open("r+b") as stream:
        stream.write(page_one)
    return broken


def test_the_planted_file_is_one_a_wal_blind_read_gets_wrong(tmp_path: Path) -> None:
    """The case is real: reading the main file alone (immutable=1) fails or misses reviews."""
    broken = wal_only_database(tmp_path)
    blind = sqlite3.connect(f"{broken.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        count = blind.execute("SELECT count(*) FROM review_log").fetchone()[0]
    except sqlite3.DatabaseError as error:
        assert "malformed" in str(error) or "no such table" in str(error)
    else:
        assert count < REVIEWS
    finally:
        blind.close()


def test_a_database_whose_newest_pages_are_in_the_wal_opens_whole(tmp_path: Path) -> None:
    broken = wal_only_database(tmp_path)
    with Store.open(broken) as store:
        assert store._query("PRAGMA integrity_check") == [("ok",)]
        assert store._query("SELECT count(*) FROM review_log") == [(REVIEWS,)]
        assert store.load_states() and len(store.load_states()) == REVIEWS
    # And again after that open checkpointed it on close.
    with Store.open(broken) as store:
        assert store._query("SELECT count(*) FROM review_log") == [(REVIEWS,)]


@pytest.mark.parametrize("attempt", range(3))
def test_plain_sqlite_agrees(tmp_path: Path, attempt: int) -> None:
    """The planted file is healthy for plain sqlite3 too (integrity ok, every review)."""
    broken = wal_only_database(tmp_path)
    conn = sqlite3.connect(broken)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT count(*) FROM review_log").fetchone() == (REVIEWS,)
    finally:
        conn.close()

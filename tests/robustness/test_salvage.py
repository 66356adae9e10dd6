"""`studykit doctor --salvage` on a real database with garbage written over part of it."""

from __future__ import annotations

import json
import random
import sqlite3
from contextlib import closing
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fsrs import Rating

from studykit.core.errors import StudykitError
from studykit.srs import doctor
from studykit.srs.records import CardState
from studykit.srs.scheduler import State, schedule_key
from studykit.srs.store import Store
from tests.robustness.test_doctor import _studykit

REVIEWS = 4000
CARDS = 250
GARBAGE = 64 * 1024
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def big_database(database: Path) -> None:
    """REVIEWS answers over CARDS schedules of deck `big` (each card's ordinals 1 to 3),
    written in one batch."""
    states: dict[int, CardState] = {}
    with Store.open(database) as store:
        store.set_durable(False)
        with store.batch():
            for number in range(REVIEWS):
                card = number % CARDS
                card_id, ordinal = f"c{card // 3}", card % 3 + 1
                before = states.get(card) or CardState(
                    schedule_key("big", card_id, ordinal), "big", card_id, ordinal=ordinal
                )
                when = T0 + timedelta(minutes=number)
                after = replace(
                    before,
                    state=State.Review,
                    stability=3.0 + number / 1000,
                    difficulty=5.0,
                    due=when + timedelta(days=3),
                    last_review=when,
                    reps=before.reps + 1,
                    introduced_at=before.introduced_at or when,
                )
                store.record_answer(
                    before, after, rating=Rating.Good, reviewed_at=when, duration_ms=900 + card
                )
                states[card] = after


def plant_garbage(database: Path, at: int) -> bytes:
    """Overwrite GARBAGE bytes at offset `at` with seeded noise; the damaged file's bytes."""
    noise = random.Random(at).randbytes(GARBAGE)
    with database.open("r+b") as stream:
        stream.seek(at)
        stream.write(noise)
    return database.read_bytes()


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    """A data dir whose database has 64 KB of garbage in the middle."""
    database = tmp_path / "data" / "studykit.sqlite3"
    big_database(database)
    plant_garbage(database, database.stat().st_size // 2)
    return database


def test_salvage_recovers_most_reviews_and_keeps_the_damaged_file(
    study_root: Path, damaged: Path
) -> None:
    data_dir = damaged.parent
    damaged_bytes = damaged.read_bytes()
    checked = _studykit(study_root, data_dir, "doctor")
    assert checked.returncode == 1 and "integrity: PROBLEMS" in checked.stdout
    assert "studykit doctor --salvage" in checked.stdout
    exported = _studykit(study_root, data_dir, "doctor", "--export-log", "-")
    assert exported.returncode == 1  # what could be read, and a line saying the rest is lost
    rows = [json.loads(line) for line in exported.stdout.splitlines()]
    assert len(rows) > REVIEWS * 0.9
    [line] = exported.stderr.splitlines()
    assert "could not be read" in line and "doctor --salvage" in line

    salvaged = _studykit(study_root, data_dir, "doctor", "--salvage")
    assert salvaged.returncode == 1, salvaged.stdout + salvaged.stderr  # rows were lost
    kept = int(salvaged.stdout.split("salvaged: ")[1].split()[0])
    assert REVIEWS * 0.9 < kept < REVIEWS
    assert f"review ids up to {REVIEWS} were handed out" in salvaged.stdout
    assert "integrity: ok" in salvaged.stdout and f"reviews: {kept}" in salvaged.stdout
    [aside] = (data_dir / "backups").glob("damaged-*/studykit.sqlite3")
    assert aside.read_bytes() == damaged_bytes  # kept as it was, never deleted

    with closing(sqlite3.connect(damaged)) as conn:
        states = conn.execute("SELECT count(*) FROM card_state").fetchone()[0]
        orphans = conn.execute(
            "SELECT count(*) FROM review_log WHERE key NOT IN (SELECT key FROM card_state)"
        ).fetchone()[0]
        ids = [row[0] for row in conn.execute("SELECT id FROM review_log ORDER BY id")]
        seq = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'review_log'").fetchone()
    assert states == CARDS and orphans == 0  # lost state rows were rebuilt from the log
    assert set(ids) <= set(range(1, REVIEWS + 1)) and seq == (REVIEWS,)  # no id handed out twice
    assert _studykit(study_root, data_dir, "decks").returncode == 0


def _page_size(database: Path) -> int:
    with closing(sqlite3.connect(database)) as conn:
        return int(conn.execute("PRAGMA page_size").fetchone()[0])


def _children(database: Path, table: str) -> list[int]:
    """The pages a table's root page points at (its root is an interior page here)."""
    with closing(sqlite3.connect(database)) as conn:
        [(root,)] = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,))
    size = _page_size(database)
    page = database.read_bytes()[(root - 1) * size : root * size]
    assert page[0] == 0x05, "the root of a table of this size is an interior page"
    cells = int.from_bytes(page[3:5], "big")
    pointers = [int.from_bytes(page[12 + 2 * i : 14 + 2 * i], "big") for i in range(cells)]
    return [int.from_bytes(page[at : at + 4], "big") for at in pointers]


@pytest.mark.parametrize("where", ["middle", "roots"])
def test_salvaged_rows_are_the_rows_that_were_written(tmp_path: Path, where: str) -> None:
    """Every row kept is exactly one the healthy file held: nothing invented, nothing altered.

    `roots`: the garbage covers every table's root page (page 2 on), so SQLite reaches no
    row at all; the rows come from reading the leaf pages themselves.
    """
    healthy = tmp_path / "healthy" / "studykit.sqlite3"
    big_database(healthy)
    database = tmp_path / "data" / "studykit.sqlite3"
    database.parent.mkdir()
    database.write_bytes(healthy.read_bytes())
    size = database.stat().st_size
    plant_garbage(database, size // 3 if where == "middle" else _page_size(database))
    report, _ = doctor.salvage(database)
    if where == "roots":
        assert report.from_pages > REVIEWS * 0.9
    for query in ("SELECT * FROM review_log ORDER BY id", "SELECT * FROM card_state"):
        with closing(sqlite3.connect(healthy)) as good, closing(sqlite3.connect(database)) as kept:
            written = {row[0]: row for row in good.execute(query)}
            recovered = kept.execute(query).fetchall()
        assert all(written[row[0]] == row for row in recovered)
    assert report.reviews > REVIEWS * 0.9 and report.kept["card_state"] + report.rebuilt == CARDS


def test_lost_card_states_are_rebuilt_from_their_last_answer(tmp_path: Path) -> None:
    healthy = tmp_path / "healthy" / "studykit.sqlite3"
    big_database(healthy)
    database = tmp_path / "data" / "studykit.sqlite3"
    database.parent.mkdir()
    database.write_bytes(healthy.read_bytes())
    leaf = _children(database, "card_state")[1]
    size = _page_size(database)
    with database.open("r+b") as stream:  # one page of card states, and nothing else
        stream.seek((leaf - 1) * size)
        stream.write(random.Random(leaf).randbytes(size))
    report, _ = doctor.salvage(database)
    assert report.rebuilt > 0 and report.reviews == REVIEWS
    query = "SELECT * FROM card_state ORDER BY key"
    with closing(sqlite3.connect(healthy)) as good, closing(sqlite3.connect(database)) as kept:
        assert kept.execute(query).fetchall() == good.execute(query).fetchall()


def test_salvage_is_refused_while_a_session_is_open(damaged: Path) -> None:
    before = damaged.read_bytes()
    with Store.open(damaged), pytest.raises(StudykitError, match="then run the salvage again"):
        doctor.salvage(damaged)
    assert damaged.read_bytes() == before


def test_damage_met_while_reading_names_restore_and_salvage(damaged: Path) -> None:
    with Store.open(damaged) as store, pytest.raises(StudykitError) as raised:
        store.review_rows()  # every review: across the damaged pages
    assert "malformed" in str(raised.value) and "`studykit doctor --salvage`" in str(raised.value)
    damaged.write_bytes(b"garbage" * 100)  # no header left; no backups either
    with pytest.raises(StudykitError, match="doctor --salvage"):
        Store.open(damaged)
    with pytest.raises(StudykitError, match="nothing can be salvaged"):
        doctor.salvage(damaged)
    assert damaged.read_bytes() == b"garbage" * 100

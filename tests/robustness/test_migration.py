"""Schema versions end to end: a newer database is refused by the CLI, and a migration race."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from studykit.srs import database as store_module
from studykit.srs.store import LATEST_VERSION, MIGRATIONS, Migration, Store
from tests.conftest import FakeClock
from tests.robustness.conftest import child_env


def _studykit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "studykit", *args],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=60,
        check=False,
    )


def test_cli_refuses_a_newer_schema_in_one_line(study_root: Path, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    database = data_dir / "studykit.sqlite3"
    Store.open(database).close()
    conn = sqlite3.connect(database)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (LATEST_VERSION + 5,))
    conn.commit()
    conn.close()
    # Files only: `studykit.sqlite3.locks/` holds the session locks, no data.
    before = {path.name: path.read_bytes() for path in data_dir.iterdir() if path.is_file()}
    result = _studykit("--data-dir", str(data_dir), "--root", str(study_root), "decks")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("studykit: error: ")
    assert "newer studykit" in lines[0] and f"schema version {LATEST_VERSION + 5}" in lines[0]
    assert result.stdout == ""
    after = {path.name: path.read_bytes() for path in data_dir.iterdir() if path.is_file()}
    assert after == before  # same files, same bytes: no backup, no WAL, nothing written


def test_cli_migrates_an_older_schema_after_a_backup(
    study_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database at an older version (simulated: today's latest is 'old') is backed up first."""
    data_dir = tmp_path / "data"
    database = data_dir / "studykit.sqlite3"
    newer = Migration(LATEST_VERSION + 1, "test", ("CREATE TABLE extra (x INTEGER)",))
    Store.open(database).close()
    with Store.open(database, migrations=(*MIGRATIONS, newer)) as store:
        backup = store.backup_path
    assert backup is not None and backup.parent == data_dir / "backups"
    copy = sqlite3.connect(backup)
    try:
        assert copy.execute("SELECT value FROM meta").fetchone() == (str(LATEST_VERSION),)
    finally:
        copy.close()
    # The CLI, which knows only LATEST_VERSION, now refuses the upgraded file.
    result = _studykit("--data-dir", str(data_dir), "--root", str(study_root), "decks")
    assert result.returncode != 0 and "newer studykit" in result.stderr


def test_a_migration_another_process_finished_first_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two first opens race: both read version 0; the second must not re-run the migration."""
    database = tmp_path / "studykit.sqlite3"
    Store.open(database).close()  # the "other process" migrated already
    real = store_module._read_version
    calls: list[int] = []

    def stale_then_real(conn: sqlite3.Connection, path: Path) -> int:
        calls.append(1)
        return 0 if len(calls) <= 2 else real(conn, path)  # our stale reads before the lock

    monkeypatch.setattr(store_module, "_read_version", stale_then_real)
    with Store.open(database) as store:
        assert store.schema_version == LATEST_VERSION
        assert store.backup_path is None


BEFORE_ORDINALS = Path(__file__).parents[1] / "data" / "migration" / "v4-before-ordinals.sqlite3"
"""A study database made by studykit before ordinals (schema 4; how: make_v4.py.txt)."""


def test_a_database_from_before_ordinals_keeps_everything_on_ordinal_one(
    tmp_path: Path, fixed_clock: FakeClock
) -> None:
    import shutil
    from datetime import UTC, datetime

    from studykit.content.model import Card, Deck
    from studykit.core.config import Settings
    from studykit.srs.scheduler import card_key, schedule_key
    from studykit.study.session import Rating, StudySession
    from tests.conftest import make_library

    data = tmp_path / "data"
    data.mkdir()
    database = data / "studykit.sqlite3"
    shutil.copyfile(BEFORE_ORDINALS, database)
    old = sqlite3.connect(database)
    try:
        states_before = old.execute("SELECT * FROM card_state ORDER BY key").fetchall()
        log_before = old.execute("SELECT * FROM review_log ORDER BY id").fetchall()
        forgets_before = old.execute("SELECT * FROM forget_log ORDER BY id").fetchall()
        assert old.execute("SELECT value FROM meta").fetchone() == ("4",)
    finally:
        old.close()

    with Store.open(database) as store:
        assert store.schema_version == LATEST_VERSION
        assert store.backup_path is not None  # the copy from before, taken first
        copy = sqlite3.connect(store.backup_path)
        try:
            assert copy.execute("SELECT * FROM card_state ORDER BY key").fetchall() == states_before
        finally:
            copy.close()
        states = store.load_states()
        assert sorted(s.key for s in states) == [row[0] for row in states_before]
        assert all(s.ordinal == 1 and s.key == card_key(s.deck_id, s.card_id) for s in states)
        # The same rows, each column as it was, with ordinal 1 after them (and then the
        # sync's columns of migration 6: not sent to Anki, no Anki revlog id).
        new = sqlite3.connect(database)
        try:
            assert new.execute("SELECT * FROM card_state ORDER BY key").fetchall() == [
                (*row, 1, 0) for row in states_before
            ]
            assert new.execute("SELECT * FROM review_log ORDER BY id").fetchall() == [
                (*row, 1, None) for row in log_before
            ]
            assert new.execute("SELECT * FROM forget_log ORDER BY id").fetchall() == [
                (*row, 1, None) for row in forgets_before
            ]
            assert new.execute("PRAGMA foreign_key_check").fetchall() == []
            assert new.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            unique = new.execute(
                "SELECT sql FROM sqlite_master WHERE name = 'card_state'"
            ).fetchone()[0]
            assert "UNIQUE (deck_id, card_id, ordinal)" in unique
        finally:
            new.close()

    # The same deck in today's studykit: ordinal 1 has the old schedule, the others are new.
    deck = Deck(
        id="old",
        name="Old",
        cards=(
            Card(id="two-way", kind="reversed", front="Front side", back="Back side"),
            Card(id="three-blanks", kind="cloze", front="{{c1::a}}, {{c2::b}} and {{c3::c}}"),
            Card(id="plain", front="Q?", back="A."),
            Card(id="forgotten", front="F?", back="F."),
            Card(id="held", front="H?", back="H."),
            Card(id="imported", kind="reversed", front="I", back="J"),
        ),
    )
    settings = Settings(root=tmp_path, data_dir=data, enable_fuzzing=False)
    fixed_clock.set(datetime(2026, 3, 6, 9, 0, tzinfo=UTC))
    session = StudySession(
        make_library([deck]), Store.open(database), settings, clock=fixed_clock, tz=UTC
    )
    try:
        assert session.study_card("old", "two-way", 1).state == "review"
        assert session.study_card("old", "two-way", 2).state == "new"
        assert session.study_card("old", "three-blanks", 1).state == "learning"
        assert {session.study_card("old", "three-blanks", n).state for n in (2, 3)} == {"new"}
        assert session.study_card("old", "held", 1).suspended
        assert session.study_card("old", "imported", 1).state == "review"
        assert session.study_card("old", "imported", 2).state == "new"
        history = session.card_history(session.study_card("old", "two-way", 1))
        assert len(history) == 3
        # The newest answer from before undoes as any answer does.
        done = session.undo_last()
        assert done is not None and done.name == "old/two-way#1" and done.action == "rate"
        second = session.study_card("old", "two-way", 2)
        session.answer(second, Rating.Good, duration_ms=1000)
        assert session.store.history(schedule_key("old", "two-way", 2))[0].ordinal == 2
    finally:
        session.close()

"""Schema versions end to end: a newer database is refused by the CLI, and a migration race."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from studykit.srs import database as store_module
from studykit.srs.store import LATEST_VERSION, MIGRATIONS, Migration, Store
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

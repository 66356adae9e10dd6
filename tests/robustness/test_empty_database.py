"""A database emptied (0 bytes) or deleted while its backups hold the history is damage."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from studykit.srs.backups import backup_reviews, list_backups, take_backup
from studykit.srs.doctor import examine
from studykit.srs.store import Store, StoreError
from tests.robustness.test_doctor import _studykit, _with_reviews


def _with_a_backup(data_dir: Path, reviews: int) -> Path:
    database = data_dir / "studykit.sqlite3"
    _with_reviews(database, reviews)
    Store.open(database, backups_kept=5).close()  # the day's backup
    assert len(list_backups(database)) == 1
    return database


@pytest.mark.parametrize("how", ["zero-bytes", "deleted"])
def test_an_emptied_database_is_refused_naming_the_backup(
    study_root: Path, tmp_path: Path, how: str
) -> None:
    data_dir = tmp_path / "data"
    database = _with_a_backup(data_dir, 8)
    [backup] = list_backups(database)
    if how == "zero-bytes":
        database.write_bytes(b"")
    else:
        database.unlink()
    refused = _studykit(study_root, data_dir, "decks")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    [line] = refused.stderr.splitlines()
    assert line.startswith(f"studykit: error: {database} is ")
    assert f"the newest backup is {backup.path}" in line and "8 review(s)" in line
    assert "`studykit doctor --restore newest`" in line
    if how == "zero-bytes":
        assert database.read_bytes() == b""  # not re-created as an empty database
    else:
        assert not database.exists()
    checked = _studykit(study_root, data_dir, "doctor")
    assert checked.returncode == 1
    assert "integrity: PROBLEMS" in checked.stdout and "reviews: 0" not in checked.stdout
    assert f"to restore the newest: studykit doctor --restore newest ({backup.name})" in (
        checked.stdout
    )
    restored = _studykit(study_root, data_dir, "doctor", "--restore", "newest")
    assert restored.returncode == 0, restored.stdout + restored.stderr
    assert "reviews: 8" in restored.stdout
    assert _studykit(study_root, data_dir, "decks").returncode == 0


def test_a_database_with_no_tables_and_backups_is_refused(tmp_path: Path) -> None:
    database = _with_a_backup(tmp_path / "data", 3)
    database.unlink()
    with closing(sqlite3.connect(database)) as conn:  # a valid SQLite file, but empty
        conn.execute("PRAGMA user_version = 1")
    with pytest.raises(StoreError, match=r"is empty \(\d+ bytes, no tables\)"):
        Store.open(database)
    [problem] = examine(database).problems  # and doctor calls it a problem, not "ok, 0 reviews"
    assert "no tables" in problem and "--restore newest" in problem


def test_a_first_run_still_just_works(study_root: Path, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    assert _studykit(study_root, data_dir, "decks").returncode == 0
    database = data_dir / "studykit.sqlite3"
    database.write_bytes(b"")  # a first run cut short (no backups yet) is still a first run
    with Store.open(database) as store:
        assert store.review_count() == 0


def test_the_newest_backup_with_more_reviews_than_now_is_never_pruned(tmp_path: Path) -> None:
    """The history in the backups outlives a database emptied and then backed up daily."""
    [good] = list_backups(_with_a_backup(tmp_path / "before", 9))
    database = tmp_path / "data" / "studykit.sqlite3"
    _with_reviews(database, 1)  # what a re-created empty database holds a little later
    (database.parent / "backups").mkdir()
    for day in (1, 2, 3):  # the older days' copies of the good history
        shutil.copy(
            good.path,
            database.parent / "backups" / f"studykit-2026010{day}T000000000000Z-daily.sqlite3",
        )
    with Store.open(database, backups_kept=1) as store:  # today's backup, keeping one
        assert store.backup_path is not None
        with closing(sqlite3.connect(database)) as conn:  # and one more later
            take_backup(conn, database, "manual", keep=1)
    kept = {b.name: backup_reviews(b.path) for b in list_backups(database)}
    assert kept.pop("studykit-20260103T000000000000Z-daily.sqlite3") == 9  # the newest good one
    assert list(kept.values()) == [1]  # otherwise pruned as the rule says: the newest only

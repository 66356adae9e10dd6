"""Backups and `studykit doctor`, on real files and real processes."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from studykit.srs.backups import list_backups
from studykit.srs.store import LATEST_VERSION, MIGRATIONS, Migration, Store, StoreError
from tests.robustness.conftest import child_env
from tests.robustness.test_read_only import read_only
from tests.robustness.test_wal_only import REVIEWS, _answer, wal_only_database


def _studykit(root: Path, data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "studykit", "--root", str(root), "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=120,
        check=False,
    )
    assert "Traceback" not in result.stdout + result.stderr
    return result


def _with_reviews(database: Path, count: int) -> None:
    with Store.open(database) as store:
        for number in range(count):
            _answer(store, number)


def test_first_open_of_a_day_backs_up_once_and_keeps_the_newest(tmp_path: Path) -> None:
    database = tmp_path / "data" / "studykit.sqlite3"
    _with_reviews(database, 5)
    assert list_backups(database) == []  # backups_kept=0: no daily backups
    with Store.open(database, backups_kept=3) as store:
        assert store.backup_path is not None
    with Store.open(database, backups_kept=3) as store:
        assert store.backup_path is None  # one a day
    [daily] = list_backups(database)
    assert daily.reason == "daily"
    assert sorted(p.name for p in daily.path.parent.iterdir()) == [daily.name]  # no -wal
    with closing(sqlite3.connect(daily.path)) as copy:
        assert copy.execute("SELECT count(*) FROM review_log").fetchone() == (5,)
    for day in range(1, 6):  # older days' backups
        shutil.copy(
            daily.path,
            daily.path.with_name(f"studykit-202601{day:02d}T000000000000Z-daily.sqlite3"),
        )
    daily.path.unlink()
    with Store.open(database, backups_kept=3) as store:
        assert store.backup_path is not None
    kept = list_backups(database)
    assert len(kept) == 3 and kept[0].path == store.backup_path
    assert [b.taken.day for b in kept[1:]] == [5, 4]


def test_a_migration_backs_up_into_the_backup_folder(tmp_path: Path) -> None:
    database = tmp_path / "data" / "studykit.sqlite3"
    _with_reviews(database, 2)
    newer = Migration(LATEST_VERSION + 1, "test", ("CREATE TABLE extra (x INTEGER)",))
    with Store.open(database, migrations=(*MIGRATIONS, newer)) as store:
        assert store.backup_path is not None
    [backup] = list_backups(database)
    assert backup.reason == f"v{LATEST_VERSION}"


def test_an_unreadable_database_names_the_backup_and_doctor_restores_it(
    study_root: Path, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    database = data_dir / "studykit.sqlite3"
    _with_reviews(database, 7)
    Store.open(database, backups_kept=5).close()
    [backup] = list_backups(database)
    with database.open("r+b") as stream:
        stream.write(b"this is no longer a database")
    refused = _studykit(study_root, data_dir, "decks")
    assert refused.returncode == 1
    [line] = refused.stderr.splitlines()
    assert f"the newest backup is {backup.path}" in line and "studykit doctor --restore" in line
    assert "`studykit doctor --salvage`" in line  # both ways back
    checked = _studykit(study_root, data_dir, "doctor")
    assert checked.returncode == 1
    assert "integrity: PROBLEMS" in checked.stdout and backup.name in checked.stdout
    assert "studykit doctor --salvage" in checked.stdout
    restored = _studykit(study_root, data_dir, "doctor", "--restore", "newest")
    assert restored.returncode == 0, restored.stdout + restored.stderr
    assert "integrity: ok" in restored.stdout and "reviews: 7" in restored.stdout
    [replaced] = [p for p in (data_dir / "backups").iterdir() if p.name.startswith("replaced-")]
    assert (replaced / "studykit.sqlite3").read_bytes().startswith(b"this is no longer")
    assert _studykit(study_root, data_dir, "decks").returncode == 0


def test_doctor_finishes_the_checkpoint_of_a_wal_only_database(
    study_root: Path, tmp_path: Path
) -> None:
    broken = wal_only_database(tmp_path)
    result = _studykit(study_root, broken.parent, "doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "integrity: ok" in result.stdout
    assert "checkpoint: done" in result.stdout
    assert f"reviews: {REVIEWS}" in result.stdout
    wal = Path(f"{broken}-wal")
    assert not wal.exists() or wal.stat().st_size == 0  # everything is in the file now
    with closing(
        sqlite3.connect(f"{broken.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    ) as alone:
        assert alone.execute("SELECT count(*) FROM review_log").fetchone() == (REVIEWS,)


def test_doctor_exports_the_review_log_as_json_lines(study_root: Path, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    _with_reviews(data_dir / "studykit.sqlite3", 4)
    out = tmp_path / "log.jsonl"
    result = _studykit(study_root, data_dir, "doctor", "--export-log", str(out))
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [row["card_id"] for row in rows] == ["c0", "c1", "c2", "c3"]
    assert rows[0]["after"]["card_id"] == "c0" and rows[0]["reviewed_at"].startswith("2026-03-02")


def test_restore_of_a_name_that_is_no_backup_is_bad_input(study_root: Path, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    database = data_dir / "studykit.sqlite3"
    _with_reviews(database, 2)
    missing = _studykit(study_root, data_dir, "doctor", "--restore", "nope")
    assert missing.returncode == 2 and "no backups" in missing.stderr  # a wrong name: exit 2
    nothing = _studykit(study_root, data_dir, "doctor", "--restore", "newest")
    assert nothing.returncode == 1 and "nothing to restore" in nothing.stderr  # a problem: 1
    Store.open(database, backups_kept=5).close()
    [backup] = list_backups(database)
    wrong = _studykit(study_root, data_dir, "doctor", "--restore", "nope")
    assert wrong.returncode == 2, wrong.stderr
    [line] = wrong.stderr.splitlines()
    assert line.startswith("studykit: error: no backup called 'nope'") and backup.name in line


def test_a_failed_daily_backup_does_not_stop_studying(tmp_path: Path) -> None:
    database = tmp_path / "data" / "studykit.sqlite3"
    _with_reviews(database, 3)
    (database.parent / "backups").write_text("a file where the folder should be")
    with Store.open(database, backups_kept=3) as store:
        assert store.backup_path is None
        assert store.backup_problem is not None and "daily backup failed" in store.backup_problem
        assert store._query("SELECT count(*) FROM review_log") == [(3,)]


def test_no_upgrade_without_its_backup(tmp_path: Path) -> None:
    database = tmp_path / "data" / "studykit.sqlite3"
    _with_reviews(database, 2)
    (database.parent / "backups").write_text("a file where the folder should be")
    newer = Migration(LATEST_VERSION + 1, "test", ("CREATE TABLE extra (x INTEGER)",))
    with pytest.raises(StoreError, match="back up the study database before upgrading"):
        Store.open(database, migrations=(*MIGRATIONS, newer))
    with Store.open(database) as store:
        assert store.schema_version == LATEST_VERSION


def test_doctor_on_a_read_only_mount_says_so_and_finds_a_healthy_file_fine(
    study_root: Path, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    database = data_dir / "studykit.sqlite3"
    _with_reviews(database, 6)
    Store.open(database, backups_kept=5).close()
    before = {p.name: p.read_bytes() for p in data_dir.iterdir() if p.is_file()}
    with read_only(data_dir):
        result = _studykit(study_root, data_dir, "doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"read-only: the folder {data_dir} cannot be written" in result.stdout
    assert "integrity: ok" in result.stdout and "reviews: 6" in result.stdout
    assert "checkpoint: not run" in result.stdout and "--restore" not in result.stdout
    assert {p.name: p.read_bytes() for p in data_dir.iterdir() if p.is_file()} == before


def test_doctor_fails_when_its_checkpoint_fails_on_a_full_disk(
    study_root: Path, tmp_path: Path
) -> None:
    """A file-size limit (RLIMIT_FSIZE) in the child stands in for a full disk."""
    broken = wal_only_database(tmp_path)  # the checkpoint must grow the file
    limit = broken.stat().st_size
    script = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"  # EFBIG instead of being killed
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))\n"
        "from studykit.cli import main\n"
        "main(sys.argv[1:])\n"
    )
    where = ["--root", str(study_root), "--data-dir", str(broken.parent)]
    result = subprocess.run(
        [sys.executable, "-c", script, *where, "doctor"],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=120,
        check=False,
    )
    assert "Traceback" not in result.stdout + result.stderr
    assert result.returncode == 1, result.stdout + result.stderr
    assert "checkpoint: FAILED" in result.stdout and "free some disk space" in result.stdout
    assert Path(f"{broken}-wal").stat().st_size > 0  # the commits still wait in the WAL
    healthy = _studykit(study_root, broken.parent, "doctor")  # with room again, it finishes
    assert healthy.returncode == 0 and f"reviews: {REVIEWS}" in healthy.stdout

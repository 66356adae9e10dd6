"""`doctor --restore` while a session is open is refused; a session whose file is replaced stops."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from studykit.core.config import Settings
from studykit.core.errors import StudykitError
from studykit.srs.backups import list_backups
from studykit.srs.lock import lock_folder
from studykit.srs.store import Store
from studykit.study.session import Rating, StudySession
from tests.robustness.conftest import start_reviewer
from tests.robustness.test_doctor import _studykit, _with_reviews


def _review_ids(database: Path) -> set[int]:
    with closing(sqlite3.connect(database)) as conn:
        return {row[0] for row in conn.execute("SELECT id FROM review_log")}


def test_restore_is_refused_while_another_process_has_the_database_open(
    study_root: Path, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    database = data_dir / "studykit.sqlite3"
    _with_reviews(database, 3)
    Store.open(database, backups_kept=5).close()
    assert len(list_backups(database)) == 1
    reviewer = start_reviewer(study_root, data_dir, "alpha", 0, 7)  # answers until stopped
    try:
        assert reviewer.stdout is not None
        first = reviewer.stdout.readline()
        assert first.startswith("shown 1 "), first
        refused = _studykit(study_root, data_dir, "doctor", "--restore", "newest")
        assert reviewer.poll() is None  # it was open the whole time
    finally:
        reviewer.terminate()
        out, _ = reviewer.communicate(timeout=60)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    [line] = refused.stderr.splitlines()
    assert line.startswith("studykit: error: ") and "is open in another studykit" in line
    assert f"(pid {reviewer.pid})" in line and "nothing was changed" in line
    assert "restored" not in refused.stdout
    acknowledged = {int(line.split()[2]) for line in [first, *out.splitlines()] if "shown" in line}
    assert acknowledged <= _review_ids(database)  # every answer it reported is in the live file
    assert not any(p.name.startswith("replaced-") for p in (data_dir / "backups").iterdir())
    # Once the session has ended (here killed: the OS drops its lock), restore goes ahead.
    restored = _studykit(study_root, data_dir, "doctor", "--restore", "newest")
    assert restored.returncode == 0, restored.stdout + restored.stderr
    assert _review_ids(database) == set(range(1, 4))


def test_a_session_open_in_this_process_also_blocks_a_restore(tmp_path: Path) -> None:
    from studykit.srs import doctor

    database = tmp_path / "data" / "studykit.sqlite3"
    _with_reviews(database, 2)
    Store.open(database, backups_kept=5).close()
    with Store.open(database), pytest.raises(StudykitError, match="is open in another studykit"):
        doctor.restore(database, list_backups(database)[0])
    assert sorted(p.name for p in lock_folder(database).iterdir())[0] == "gate"


def test_a_session_whose_file_was_replaced_stops_saving_and_says_so(
    study_root: Path, tmp_path: Path
) -> None:
    """A file moved over the database (an old studykit's restore, a sync tool) is noticed."""
    settings = Settings(root=study_root, data_dir=tmp_path / "data", enable_fuzzing=False)
    database = settings.database_path
    with StudySession.open(settings) as session:
        card = session.next_card("alpha")
        assert card is not None
        session.answer(card, Rating.Good, duration_ms=500)
        copy = tmp_path / "copy.sqlite3"
        with closing(sqlite3.connect(database)) as live, closing(sqlite3.connect(copy)) as out:
            live.backup(out)
        os.replace(copy, database)  # what a restore that ignored the lock did
        for suffix in ("-wal", "-shm"):
            Path(f"{database}{suffix}").unlink(missing_ok=True)
        before = _review_ids(database)
        for _ in range(5):  # the 5 answers, each lost without a word
            card = session.next_card("alpha")
            assert card is not None
            with pytest.raises(StudykitError, match="was replaced or removed while"):
                session.answer(card, Rating.Good, duration_ms=500)
        with pytest.raises(StudykitError, match="Quit and start studykit again"):
            session.bury(card)
    assert _review_ids(database) == before  # nothing acknowledged that is not in the file
    with Store.open(tmp_path / "other" / "studykit.sqlite3") as store:
        store.path.unlink()  # deleted while open
        with pytest.raises(StudykitError, match="replaced or removed"):
            store.put_states([])

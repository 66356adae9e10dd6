"""SIGKILL in the middle of reviewing: every acknowledged rating survives, the file stays sound."""

from __future__ import annotations

import random
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from tests.robustness.conftest import start_reviewer

KILLS = 24


def _log_ids(database: Path) -> set[int]:
    conn = sqlite3.connect(database)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return {row[0] for row in conn.execute("SELECT id FROM review_log")}
    finally:
        conn.close()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_killed_reviewer_keeps_every_acknowledged_answer(study_root: Path, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    database = data_dir / "studykit.sqlite3"
    rng = random.Random(20260302)
    acknowledged: set[int] = set()
    for kill in range(KILLS):
        child = start_reviewer(study_root, data_dir, rng.choice(["alpha", "beta"]), 0, kill)
        assert child.stdout is not None
        # Let it answer a random number of cards, then kill it a random moment later:
        # sometimes before its first answer, sometimes in the middle of a commit.
        wanted = rng.randrange(0, 12)
        for _ in range(wanted):
            line = child.stdout.readline()
            assert line.startswith("shown "), (line, child.stderr.read() if child.stderr else "")
            acknowledged.add(int(line.split()[2]))
        time.sleep(rng.uniform(0, 0.02))
        child.send_signal(signal.SIGKILL)
        rest, _ = child.communicate(timeout=30)
        assert child.returncode == -signal.SIGKILL
        # Lines written before the kill are acknowledgements too.
        acknowledged.update(
            int(line.split()[2]) for line in rest.splitlines() if line[:6] == "shown "
        )
        if database.exists():
            missing = acknowledged - _log_ids(database)
            assert not missing, f"after kill {kill}: answers {sorted(missing)} were lost"
    assert len(acknowledged) >= KILLS  # the kills did land between answers
    # A fresh process opens the data dir and sees the same log.
    database_ids = _log_ids(database)
    assert acknowledged <= database_ids
    check = start_reviewer(study_root, data_dir, "alpha", 1, 0)
    out, err = check.communicate(timeout=60)
    assert check.returncode == 0, err
    assert out.splitlines()[-1] == "done 1"

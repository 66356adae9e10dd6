"""Several processes opening one brand-new data dir at the same instant: none fails."""

from __future__ import annotations

import multiprocessing
import sqlite3
from multiprocessing.synchronize import Barrier
from pathlib import Path

from studykit.srs.store import LATEST_VERSION, Store

OPENERS = 6
ROUNDS = 20


def _open_rounds(base: str, barrier: Barrier, errors: multiprocessing.Queue[str]) -> None:
    for round_ in range(ROUNDS):
        barrier.wait(timeout=60)
        try:
            Store.open(Path(base) / f"round-{round_}" / "studykit.sqlite3").close()
        except Exception as error:
            errors.put(f"round {round_}: {type(error).__name__}: {error}")


def test_synchronised_openers_of_a_fresh_dir_all_succeed(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(OPENERS)
    errors: multiprocessing.Queue[str] = context.Queue()
    workers = [
        context.Process(target=_open_rounds, args=(str(tmp_path), barrier, errors))
        for _ in range(OPENERS)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    failures = []
    while not errors.empty():
        failures.append(errors.get())
    assert failures == []
    for round_ in range(ROUNDS):
        conn = sqlite3.connect(tmp_path / f"round-{round_}" / "studykit.sqlite3")
        try:
            assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
            version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'")
            assert version.fetchone() == (str(LATEST_VERSION),)
        finally:
            conn.close()

"""Two processes answering in one data dir at once: no answer lost, no lock error shown."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.robustness.conftest import deck_yaml, start_reviewer

ANSWERS = 40


@pytest.mark.parametrize(
    ("decks", "fresh"),
    [
        (("alpha", "beta"), True),  # both create and migrate the new database at once
        (("alpha", "alpha"), False),  # the same deck: they may hand out the same card
    ],
    ids=["different-decks-fresh-dir", "same-deck-existing-db"],
)
def test_two_reviewers_lose_nothing(
    study_root: Path, tmp_path: Path, decks: tuple[str, str], fresh: bool
) -> None:
    data_dir = tmp_path / "data"
    if not fresh:
        warm = start_reviewer(study_root, data_dir, "beta", 1, 99)
        assert warm.wait(timeout=60) == 0
    children = [
        start_reviewer(study_root, data_dir, deck, ANSWERS, seed) for seed, deck in enumerate(decks)
    ]
    outputs = [child.communicate(timeout=120) for child in children]
    for child, (out, err) in zip(children, outputs, strict=True):
        assert child.returncode == 0, err
        assert "locked" not in err and "Traceback" not in err, err
        assert out.splitlines()[-1] == f"done {ANSWERS}"
    conn = sqlite3.connect(data_dir / "studykit.sqlite3")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = dict(conn.execute("SELECT deck_id, count(*) FROM review_log GROUP BY deck_id"))
    finally:
        conn.close()
    expected = {deck: decks.count(deck) * ANSWERS for deck in decks}
    if not fresh:
        expected["beta"] = expected.get("beta", 0) + 1
    assert rows == expected


HAMMERED = 150  # answers per process, over two cards


def test_two_processes_on_the_same_cards_keep_every_schedule_update(tmp_path: Path) -> None:
    """Each answer reads the card's state inside its write transaction: reps == answers."""
    root = tmp_path / "root"
    (root / "decks").mkdir(parents=True)
    (root / "content").mkdir()
    (root / "decks" / "tiny.yaml").write_text(deck_yaml("tiny", 2), encoding="utf-8")
    data_dir = tmp_path / "data"
    warm = start_reviewer(root, data_dir, "tiny", 1, 99)  # the database exists before the race
    assert warm.wait(timeout=60) == 0
    children = [start_reviewer(root, data_dir, "tiny", HAMMERED, seed) for seed in (1, 2)]
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        assert out.splitlines()[-1] == f"done {HAMMERED}"
    conn = sqlite3.connect(data_dir / "studykit.sqlite3")
    try:
        answers = dict(conn.execute("SELECT key, count(*) FROM review_log GROUP BY key"))
        reps = dict(conn.execute("SELECT key, reps FROM card_state"))
    finally:
        conn.close()
    assert sum(answers.values()) == 2 * HAMMERED + 1
    assert reps == answers  # no answer's update of the card was overwritten by the other's

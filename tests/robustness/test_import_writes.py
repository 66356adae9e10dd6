"""`studykit import obsidian --force` when a write fails half-way: the old deck stays whole."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.robustness.conftest import child_env, deck_yaml

resource = pytest.importorskip("resource")

FILE_LIMIT = 64 * 1024  # the kernel stops any write past this size (EFBIG: Python ignores SIGXFSZ)


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))


def test_a_backup_that_cannot_be_written_replaces_nothing(tmp_path: Path) -> None:
    root = tmp_path / "study"
    (root / "decks").mkdir(parents=True)
    author = root / "decks" / "author.yaml"
    author.write_text(deck_yaml("author", 3000), encoding="utf-8")  # ~150 KB: over the limit
    before = author.read_bytes()
    assert len(before) > FILE_LIMIT
    note = tmp_path / "author.md"
    note.write_text("#flashcards\nQ :: A\n", encoding="utf-8")
    args = ["import", "obsidian", str(note), "-o", "decks/author.yaml", "--force"]
    result = subprocess.run(
        [sys.executable, "-m", "studykit", "--data-dir", str(tmp_path / "data"), *args],
        capture_output=True,
        text=True,
        cwd=root,
        env=child_env(),
        preexec_fn=_limit_file_size,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "studykit: error: decks/author.yaml was not written: File too large" in result.stderr
    assert author.read_bytes() == before
    assert sorted(p.name for p in author.parent.iterdir()) == ["author.yaml"]  # no half .bak

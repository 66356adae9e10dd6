"""A data folder that cannot be written gives one clear line, not "unable to open database file"."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from studykit.srs.store import Store
from tests.robustness.conftest import child_env


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """Make `folder` unwritable for this user (root: the immutable attribute), then restore."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(folder)], check=False).returncode:
        pytest.skip("running as root without chattr +i: cannot make a folder read-only")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(folder)], check=True)


def _decks(root: Path, data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "studykit",
            "--data-dir",
            str(data_dir),
            "--root",
            str(root),
            "decks",
        ],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=60,
        check=False,
    )


def _assert_clear(result: subprocess.CompletedProcess[str], folder: Path) -> None:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("studykit: error: ")
    assert f"the folder {folder} cannot be written" in lines[0]
    assert "--data-dir" in lines[0]
    assert "unable to open database file" not in lines[0]


def test_existing_database_in_a_read_only_folder(study_root: Path, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    Store.open(data_dir / "studykit.sqlite3").close()
    before = sorted(path.name for path in data_dir.iterdir())
    with read_only(data_dir):
        result = _decks(study_root, data_dir)
    _assert_clear(result, data_dir)
    assert sorted(path.name for path in data_dir.iterdir()) == before


def test_new_data_folder_under_a_read_only_one(study_root: Path, tmp_path: Path) -> None:
    parent = tmp_path / "locked"
    parent.mkdir()
    with read_only(parent):
        result = _decks(study_root, parent / "data")
    _assert_clear(result, parent)

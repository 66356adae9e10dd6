"""Things named like content that are not regular files: reported at file level, never read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.robustness.conftest import child_env

HANG_GUARD_S = 30  # the run must end well before this; an open() on the FIFO would block for good

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")


def _studykit(root: Path, data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    start = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "studykit", "--root", str(root), "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        cwd=root,
        env=child_env(),
        timeout=HANG_GUARD_S,
        check=False,
    )
    print(f"{' '.join(args)}: exit {result.returncode} in {time.monotonic() - start:.2f} s")
    assert "Traceback" not in result.stdout + result.stderr
    return result


@pytest.fixture(params=["fifo", "folder"])
def odd_root(request: pytest.FixtureRequest, study_root: Path) -> tuple[Path, str]:
    """The study root plus `decks/x.yaml` that is a FIFO or a folder; (root, expected words)."""
    odd = study_root / "decks" / "x.yaml"
    if request.param == "fifo":
        os.mkfifo(odd)
        return study_root, "this is a named pipe (FIFO), not a regular file"
    odd.mkdir()
    return study_root, "this is a folder, not a regular file"


def test_decks_reports_it_and_lists_the_rest(odd_root: tuple[Path, str], tmp_path: Path) -> None:
    root, words = odd_root
    result = _studykit(root, tmp_path / "data", "decks", "--json")
    assert result.returncode == 1
    document = json.loads(result.stdout)
    assert [deck["id"] for deck in document["decks"]] == ["alpha", "beta"]
    [problem] = document["problems"]
    assert (problem["path"], problem["line"], problem["column"]) == ("decks/x.yaml", 1, 1)
    assert problem["message"].startswith(words)
    assert f"studykit: decks/x.yaml:1:1: {words}" in result.stderr


@pytest.mark.parametrize("path", [None, "decks/x.yaml", "decks"])
def test_check_reports_it(odd_root: tuple[Path, str], tmp_path: Path, path: str | None) -> None:
    root, words = odd_root
    result = _studykit(root, tmp_path / "data", "check", *([path] if path else []))
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.startswith(f"decks/x.yaml:1:1: {words}"), result.stdout
    assert result.stdout.splitlines()[-1].endswith(" 1 problem")


def test_import_of_a_fifo_is_refused(study_root: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "cards.md"
    os.mkfifo(fifo)
    result = _studykit(study_root, tmp_path / "data", "import", "obsidian", str(fifo))
    assert result.returncode == 2
    assert (
        result.stderr == f"studykit: error: {fifo}: this is a named pipe (FIFO), not a "
        "regular file; it was not read\n"
    )


def test_a_fifo_as_config_file_is_refused(study_root: Path, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    os.mkfifo(data_dir / "config.toml")
    result = _studykit(study_root, data_dir, "decks")
    assert result.returncode == 2
    assert result.stderr.startswith(f"studykit: error: {data_dir / 'config.toml'}: cannot read")
    assert "named pipe" in result.stderr


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_database_path_that_is_not_a_file(study_root: Path, tmp_path: Path, kind: str) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    database = data_dir / "studykit.sqlite3"
    if kind == "fifo":
        os.mkfifo(database)
    else:
        database.mkdir()
    result = _studykit(study_root, data_dir, "decks")
    assert result.returncode == 1
    words = "a named pipe (FIFO)" if kind == "fifo" else "a folder"
    assert result.stderr == (
        f"studykit: error: {database}: this is {words}, not a database file; "
        "move it out of the way\n"
    )

"""One exit-code rule for files that fail to load, per command: print them, do the rest, exit 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

GOOD = 'id: good\nname: "Demo::Good"\ncards:\n  - id: a\n    front: Q?\n    back: A.\n'
BROKEN = "id: bad\nname: Bad\ncards:\n  - id: a\n    front: Q?\n    bakc: A.\n"
WHERE = "decks/bad.yaml:6:5: unknown field `bakc`"


def _run(root: Path, data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("STUDYKIT_")}
    result = subprocess.run(
        [sys.executable, "-m", "studykit", "--root", str(root), "--data-dir", str(data), *args],
        capture_output=True,
        text=True,
        cwd=root,
        env=environment,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in result.stdout + result.stderr
    return result


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "decks").mkdir(parents=True)
    (root / "content").mkdir()
    (root / "decks" / "good.yaml").write_text(GOOD, encoding="utf-8")
    return root


@pytest.mark.parametrize("broken", [False, True], ids=["clean", "broken"])
@pytest.mark.parametrize(
    "args",
    [("decks",), ("decks", "--json"), ("check",), ("check", "--json"), ("export", "anki")],
    ids=" ".join,
)
def test_a_file_that_fails_to_load_exits_1(
    root: Path, tmp_path: Path, args: tuple[str, ...], broken: bool
) -> None:
    if broken:
        (root / "decks" / "bad.yaml").write_text(BROKEN, encoding="utf-8")
    if args[0] == "export":
        args = (*args, "-o", str(tmp_path / "out.apkg"))
    result = _run(root, tmp_path / "data", *args)
    assert result.returncode == (1 if broken else 0), result.stdout + result.stderr
    if "--json" in args:
        document = json.loads(result.stdout)  # still one document
        assert ("decks/bad.yaml" in json.dumps(document)) is broken
    else:
        assert (WHERE in result.stdout + result.stderr) is broken
    if args[0] == "export":
        assert (tmp_path / "out.apkg").exists()  # the good deck is still exported
    if args[0] == "decks" and "--json" not in args:
        assert "good" in result.stdout

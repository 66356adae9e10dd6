"""`studykit suspend` / `unsuspend` on a real database, through click."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from studykit.cli import cli
from studykit.core.config import Settings
from studykit.study.session import StudySession

DECK = """\
id: good
name: "Demo::Good"
cards:
  - id: a
    front: Question?
    back: Answer.
  - id: b
    front: Another?
    back: Yes.
"""


def invoke(tmp_path: Path, *args: str) -> Result:
    root = tmp_path / "root"
    (root / "decks").mkdir(parents=True, exist_ok=True)
    (root / "decks" / "good.yaml").write_text(DECK)
    base = ["--root", str(root), "--data-dir", str(tmp_path / "data")]
    return CliRunner().invoke(cli, [*base, *args])


def suspended(tmp_path: Path) -> dict[str, bool]:
    settings = Settings(root=tmp_path / "root", data_dir=tmp_path / "data")
    with StudySession.open(settings) as session:
        return {c: session.study_card("good", c).suspended for c in ("a", "b")}


def test_suspend_then_unsuspend(tmp_path: Path) -> None:
    done = invoke(tmp_path, "suspend", "good/a", "good/b")
    assert done.exit_code == 0, done.output
    assert "good/a: suspended" in done.output
    assert suspended(tmp_path) == {"a": True, "b": True}
    back = invoke(tmp_path, "unsuspend", "good/b")
    assert back.exit_code == 0 and "good/b: back in the queue" in back.output
    assert suspended(tmp_path) == {"a": True, "b": False}
    again = invoke(tmp_path, "unsuspend", "good/b")
    assert "already in the queue" in again.output


def test_an_unknown_key_changes_nothing_and_exits_2(tmp_path: Path) -> None:
    result = invoke(tmp_path, "suspend", "good/a", "good/zz")
    assert result.exit_code == 2
    assert "no card 'good/zz'" in result.output and "good" in result.output
    assert suspended(tmp_path) == {"a": False, "b": False}
    assert invoke(tmp_path, "suspend", "good").exit_code == 2

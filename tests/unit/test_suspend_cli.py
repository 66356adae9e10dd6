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


SIBLINGS = """\
id: sib
name: "Demo::Siblings"
cards:
  - id: two-way
    kind: reversed
    front: Term
    back: Meaning
  - id: blanks
    kind: cloze
    front: "{{c1::one}}, {{c2::two}} and {{c3::three}}"
"""


def _siblings(tmp_path: Path, *args: str) -> Result:
    (tmp_path / "root" / "decks").mkdir(parents=True, exist_ok=True)
    (tmp_path / "root" / "decks" / "sib.yaml").write_text(SIBLINGS)
    return invoke(tmp_path, *args)


def _held(tmp_path: Path) -> dict[str, bool]:
    settings = Settings(root=tmp_path / "root", data_dir=tmp_path / "data")
    with StudySession.open(settings) as session:
        return {
            card.name: card.suspended
            for card_id in ("two-way", "blanks")
            for card in session.schedules("sib", card_id)
        }


def test_a_card_key_suspends_every_ordinal_and_a_hash_one(tmp_path: Path) -> None:
    done = _siblings(tmp_path, "suspend", "sib/two-way", "sib/blanks#2")
    assert done.exit_code == 0, done.output
    assert done.output.splitlines() == [
        "sib/two-way#1: suspended",
        "sib/two-way#2: suspended",
        "sib/blanks#2: suspended",
    ]
    assert _held(tmp_path) == {
        "sib/two-way#1": True,
        "sib/two-way#2": True,
        "sib/blanks#1": False,
        "sib/blanks#2": True,
        "sib/blanks#3": False,
    }
    back = _siblings(tmp_path, "unsuspend", "sib/two-way#2")
    assert back.output.splitlines() == ["sib/two-way#2: back in the queue"]
    assert _held(tmp_path)["sib/two-way#1"] is True


def test_an_ordinal_the_card_has_not_exits_2(tmp_path: Path) -> None:
    for key, why in (("sib/two-way#3", "has #1, #2"), ("sib/blanks#x", "`#x` is not an ordinal")):
        result = _siblings(tmp_path, "suspend", "sib/two-way", key)
        assert result.exit_code == 2, result.output
        assert f"no card '{key}'" in result.output and why in result.output
    assert not any(_held(tmp_path).values())  # nothing changed, not even the valid key

"""`studykit cards` as a user runs it: filters, the table, --json, bounds and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studykit.core.config import Settings
from studykit.study.session import Rating, StudySession

from .test_cli import assert_clean, run

DECK = """\
id: good
name: "Demo::Good"
tags: [demo]
cards:
  - id: a
    front: Question?
    back: Answer.
  - id: b
    front: "Another \\e[31mred\\e[0m?"
    back: Yes.
  - id: c
    front: Third one?
    back: Sure.
    tags: [extra]
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A deck of three: `a` answered, `b` suspended, `c` new (on a real database)."""
    root = tmp_path / "root"
    (root / "decks").mkdir(parents=True)
    (root / "decks" / "good.yaml").write_text(DECK)
    settings = Settings(root=root, data_dir=tmp_path / "data", enable_fuzzing=False)
    with StudySession.open(settings) as session:
        session.answer(session.study_card("good", "a"), Rating.Good, duration_ms=500)
        session.suspend(session.study_card("good", "b"))
    return root


def cards(root: Path, tmp_path: Path, *args: str) -> tuple[int, str, str]:
    result = run("--root", str(root), "cards", *args, data_dir=tmp_path / "data")
    assert_clean(result)
    return result.returncode, result.stdout, result.stderr


def test_json_lists_every_card_with_its_scheduling_and_place(root: Path, tmp_path: Path) -> None:
    code, out, _ = cards(root, tmp_path, "--json")
    assert code == 0
    rows = {row["key"]: row for row in json.loads(out)}
    assert list(rows) == ["good/a", "good/b", "good/c"]
    a = rows["good/a"]
    assert (a["deck"], a["state"], a["reps"], a["lapses"]) == ("good", "learning", 1, 0)
    assert a["due"] is not None and a["interval"] > 0
    assert a["stability"] > 0 and 1 <= a["difficulty"] <= 10
    assert (a["file"], a["line"]) == ("decks/good.yaml", 5)
    assert rows["good/b"]["suspended"] and rows["good/b"]["line"] == 8
    assert rows["good/c"]["state"] == "new" and rows["good/c"]["due"] is None


def test_filters_combine_and_the_table_is_terminal_safe(root: Path, tmp_path: Path) -> None:
    code, out, _ = cards(root, tmp_path, "--suspended")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["KEY", "STATE", "DUE"] and len(lines) == 2
    assert lines[1].startswith("good/b") and "new, suspended" in lines[1]
    assert "\x1b" not in out and "\\x1b[31mred" in out  # the escape is shown, not obeyed
    code, out, _ = cards(root, tmp_path, "--new", "--search", "tag:extra", "--json")
    assert [row["key"] for row in json.loads(out)] == ["good/c"]
    code, out, err = cards(root, tmp_path, "--limit", "1", "--json")
    assert [row["key"] for row in json.loads(out)] == ["good/a"]
    assert "2 more cards match" in err


def test_bad_input_exits_2_with_a_message(root: Path, tmp_path: Path) -> None:
    code, out, err = cards(root, tmp_path, "--search", "is:bogus")
    assert code == 2 and out == "" and "unknown state `is:bogus`" in err
    code, _, err = cards(root, tmp_path, "--deck", "nope")
    assert code == 2 and "unknown deck 'nope'" in err
    code, _, err = cards(root, tmp_path, "--search", "x" * 201)
    assert code == 2 and "at most 200 characters" in err


def test_each_ordinal_is_a_row_and_card_n_finds_one(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "decks").mkdir(parents=True)
    (root / "decks" / "sib.yaml").write_text(
        """\
id: sib
name: Siblings
cards:
  - id: two-way
    kind: reversed
    front: Term
    back: Meaning
  - id: blanks
    kind: cloze
    front: "{{c1::one}}, {{c2::two}} and {{c3::three}}"
"""
    )
    settings = Settings(root=root, data_dir=tmp_path / "data", enable_fuzzing=False)
    with StudySession.open(settings) as session:
        session.answer(session.study_card("sib", "two-way"), Rating.Good, duration_ms=500)
    code, out, _ = cards(root, tmp_path, "--json")
    assert code == 0
    rows = json.loads(out)
    assert [(r["key"], r["card"], r["ordinal"]) for r in rows] == [
        ("sib/two-way#1", "two-way", 1),
        ("sib/two-way#2", "two-way", 2),
        ("sib/blanks#1", "blanks", 1),
        ("sib/blanks#2", "blanks", 2),
        ("sib/blanks#3", "blanks", 3),
    ]
    assert rows[0]["state"] == "learning" and rows[1]["state"] == "new"
    assert rows[1]["buried"]  # its sibling was answered today
    code, out, _ = cards(root, tmp_path, "--search", "card:2")
    lines = out.splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["sib/two-way#2", "sib/blanks#2"]
    assert "Meaning" in lines[1]  # the back is the question of ordinal 2
    assert "one, [...] and three" in lines[2]  # its own deletion hidden, the others shown

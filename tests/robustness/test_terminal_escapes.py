"""Escape sequences in content never reach the terminal raw; long ids are shortened."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from studykit.core.terminal import LINE_LIMIT, NAME_LIMIT, one_line, terminal_safe
from studykit.text.prose import markdown_to_terminal
from studykit.tui.widgets.deck_tree import build_deck_groups
from tests.robustness.conftest import child_env

TITLE = "\\e]0;PWNED\\a"  # YAML escapes: ESC ] 0 ; ... BEL sets the window title
CLEAR = "\\e[2J"  # clears the screen
RAW = ("\x1b", "\x07", "\x9b")


def _studykit(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "studykit", "--root", str(root), *args],
        capture_output=True,
        text=True,
        cwd=root,
        env=child_env(),
        timeout=120,
        check=False,
    )
    assert "Traceback" not in result.stdout + result.stderr
    return result


def _assert_no_raw_controls(text: str) -> None:
    for char in RAW:
        assert char not in text, repr(text)


def _hostile_root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "decks").mkdir(parents=True)
    (root / "content").mkdir()
    (root / "decks" / "title.yaml").write_text(
        f'id: title\nname: "Evil::{TITLE}{CLEAR}name"\ncards:\n'
        "  - id: ok\n    front: Q?\n    back: A.\n",
        encoding="utf-8",
    )
    (root / "decks" / "card.yaml").write_text(
        f'id: card\nname: "Card"\ncards:\n  - id: "c{CLEAR}"\n    front: Q?\n    back: A.\n',
        encoding="utf-8",
    )
    long_id = "a" * 10_000
    (root / "decks" / "long.yaml").write_text(
        f'id: long\nname: "Long"\ncards:\n  - id: {long_id}\n    front: Q?\n    back: A.\n',
        encoding="utf-8",
    )
    return root


def test_decks_shows_names_and_errors_escaped(tmp_path: Path) -> None:
    root = _hostile_root(tmp_path)
    result = _studykit(root, "--data-dir", str(tmp_path / "data"), "decks")
    assert result.returncode == 1
    _assert_no_raw_controls(result.stdout + result.stderr)
    assert "Evil::\\x1b]0;PWNED\\x07\\x1b[2Jname" in result.stdout
    card_line = next(line for line in result.stderr.splitlines() if "decks/card.yaml" in line)
    assert "`c\\x1b[2J`" in card_line
    long_line = next(line for line in result.stderr.splitlines() if "decks/long.yaml" in line)
    assert len(long_line) < 300, len(long_line)
    assert "a" * NAME_LIMIT not in long_line
    # --json is for programs: JSON escapes control characters itself.
    as_json = _studykit(root, "--data-dir", str(tmp_path / "data"), "decks", "--json")
    _assert_no_raw_controls(as_json.stdout)
    names = [deck["name"] for deck in json.loads(as_json.stdout)["decks"]]
    assert "Evil::\x1b]0;PWNED\x07\x1b[2Jname" in names


def test_check_shows_errors_escaped(tmp_path: Path) -> None:
    root = _hostile_root(tmp_path)
    result = _studykit(root, "check")
    assert result.returncode == 1
    _assert_no_raw_controls(result.stdout + result.stderr)
    assert any("`c\\x1b[2J`" in line for line in result.stdout.splitlines())
    assert all(len(line) < 300 for line in result.stdout.splitlines())


def test_terminal_safe_escapes_controls_and_bidi_only() -> None:
    assert terminal_safe("a\x1b[2Jb\x07\x9b\u202ec") == "a\\x1b[2Jb\\x07\\x9b\\u202ec"
    assert terminal_safe("Hinglish: γ = 0.95 ✓") == "Hinglish: γ = 0.95 ✓"
    assert terminal_safe("one\ntwo\tthree") == "one\\ntwo\\tthree"
    assert terminal_safe("one\ntwo\tthree", multiline=True) == "one\ntwo\tthree"


def test_one_line_bounds_names_and_lines() -> None:
    line = one_line(f"card `{'x' * 10_000}` is bad; did you mean `{'x' * 10_000}`?")
    assert len(line) < 2 * NAME_LIMIT + 40
    assert line.count("…") == 2
    assert len(one_line("y" * 50_000)) == LINE_LIMIT


def test_the_app_gets_escaped_deck_names_and_card_text() -> None:
    class Counts:
        deck_id = "evil"
        name = "Evil::\x1b]0;PWNED\x07"
        new = learning = due = 0

    [group] = build_deck_groups([Counts()])
    [child] = group.children
    assert child.name == "\\x1b]0;PWNED\\x07"
    assert markdown_to_terminal("front\n\x1b[2J$x^2$") == "front\n\\x1b[2Jx²"

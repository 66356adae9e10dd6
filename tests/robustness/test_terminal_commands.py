"""Every command that prints content, run over a hostile deck and note: no control reaches a
terminal raw (OSC 52 clipboard, OSC 8 links, OSC 0 titles, DCS, CSI written as C1 `\\x9b`)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from studykit.cli import main
from studykit.core.terminal import terminal_safe

ESCAPES = Path(__file__).resolve().parents[1] / "data" / "escapes"
# C0 but newline and tab, DEL, C1; ESC (0x1b) is C0.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
CONTROL_BYTES = re.compile(b"[\x00-\x08\x0b-\x1f\x7f]")
HOSTILE = "\x1b]0;PWNED\x07 \x9b2J \x1b]52;c;eA==\x07 \x1bPq\x1b\\ \x90q\x9c \x7f"
OBSIDIAN = (
    f"# Evil {HOSTILE} deck\n#flashcards\n\n"
    f"Q {HOSTILE} one::A {HOSTILE} one\n\n"
    f"Q2 {HOSTILE}?\n?\nA2 {HOSTILE}\n\n"
    # A line that looks like a card but is not one is reported with its text.
    f"Half {HOSTILE} ::\n"
)


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A study root holding the hostile note and deck, a data dir and an Obsidian vault."""
    place = tmp_path_factory.mktemp("escapes")
    shutil.copytree(ESCAPES, place / "root")
    (place / "vault").mkdir()
    (place / "vault" / "evil.md").write_text(OBSIDIAN, encoding="utf-8")
    # Card syntax without the #flashcards tag: skipped, and the message names the file.
    (place / "vault" / f"untagged {HOSTILE}.md").write_text("Q::A\n", encoding="utf-8")
    return place


COMMANDS = [
    "decks",
    "decks --json",
    "show note evil",
    "show deck evil",
    "show deck evil --seed 1",
    "cards",
    "cards --json",
    "cards --deck evil --search Front",
    "check",
    "check --json",
    "check --verbose",
    "export anki -o {place}/out/evil.apkg",
    "import obsidian {place}/vault/evil.md",
    "import obsidian {place}/vault/evil.md -o {place}/imported/",
    "import obsidian {place}/vault/ -o {place}/imported-vault/",
    "suspend evil/basic",
    "unsuspend evil/basic",
    # Names a user typed come back in messages too.
    "show note HOSTILE",
    "show deck HOSTILE",
    "review --deck HOSTILE",
    "quiz --deck HOSTILE",
    "cards --deck HOSTILE",
    "suspend evil/HOSTILE",
]


def _run(place: Path, command: str) -> tuple[int, bytes, bytes]:
    """`studykit COMMAND` through the real entry point; output as a terminal would get it.

    `color=True`: click strips CSI sequences from output that is not a terminal, and would
    hide exactly what this test looks for.
    """
    args = ["--root", str(place / "root"), "--data-dir", str(place / "data")]
    args += [HOSTILE if word == "HOSTILE" else word.format(place=place) for word in command.split()]
    args = [f"evil/{HOSTILE}" if word == "evil/HOSTILE" else word for word in args]
    runner = CliRunner()
    with runner.isolation(color=True) as (out, err, _):
        try:
            main(args)
            code = 0
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("command", COMMANDS)
def test_no_control_reaches_the_terminal(place: Path, command: str) -> None:
    code, out, err = _run(place, command)
    for name, stream in (("stdout", out), ("stderr", err)):
        assert b"Traceback" not in stream, stream.decode(errors="replace")
        raw = CONTROL_BYTES.findall(stream)
        assert not raw, f"{name} of `studykit {command}`: {raw!r} in {stream[:2000]!r}"
        text = stream.decode("utf-8")
        assert not CONTROL.search(text), f"{name} of `studykit {command}`: {text[:2000]!r}"
    assert code in (0, 1, 2), (code, out, err)
    assert out or err, f"`studykit {command}` printed nothing"


def test_the_hostile_texts_are_shown_escaped_not_dropped(place: Path) -> None:
    """The escaping shows what the content holds: the name and title are there, readable."""
    _, note, _ = _run(place, "show note evil")
    assert "Evil \\x1b]0;PWNED\\x07 title \\x9b2J" in note.decode()
    assert "Sec \\x1b]0;T\\x07 \\x9b1m \\x7f \\x85" in note.decode()
    _, deck, _ = _run(place, "show deck evil")
    assert "Evil::\\x1b]0;PWNED\\x07\\x9b2J\\x1b]52;c;eA==\\x07\\x7f" in deck.decode()


def test_json_keeps_the_values_and_escapes_every_control(place: Path) -> None:
    """JSON is for programs: the value round-trips, and C1 and DEL are `\\u` escapes too."""
    import json

    _, out, _ = _run(place, "decks --json")
    [deck] = json.loads(out)["decks"]
    assert deck["name"] == "Evil::\x1b]0;PWNED\x07\x9b2J\x1b]52;c;eA==\x07\x7f"
    assert "\\u009b" in out.decode() and "\\u007f" in out.decode()


def test_terminal_safe_escapes_every_c0_del_and_c1_control() -> None:
    controls = [chr(code) for code in [*range(0x20), *range(0x7F, 0xA0)]]
    shown = terminal_safe("".join(controls))
    assert not CONTROL.search(shown) and "\n" not in shown and "\t" not in shown
    kept = terminal_safe("".join(controls), multiline=True)
    assert CONTROL.findall(kept) == [] and kept.count("\n") == 1 and kept.count("\t") == 1
    assert terminal_safe("\x9b\x85\x7f") == "\\x9b\\x85\\x7f"

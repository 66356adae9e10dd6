"""Names in expressions: NFKC both ways, and a warning when look-alike scripts mix."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from studykit.expressions import ExpressionError, parse
from studykit.expressions.scripts import mixed_scripts, names_in

CYRILLIC_X = "\u0445"  # х
WIDE_X = "\uff58"  # ｘ


@pytest.mark.parametrize("declared", ["x", WIDE_X])
@pytest.mark.parametrize("written", ["x", WIDE_X])
def test_full_width_names_are_their_nfkc_form(declared: str, written: str) -> None:
    expression = parse(f"{written} * 2", names=[declared])
    assert expression.names == {"x"}
    assert expression.evaluate({declared: 3}) == 6


def test_a_cyrillic_look_alike_is_named_as_such() -> None:
    with pytest.raises(ExpressionError, match="has Cyrillic letters") as caught:
        parse(f"{CYRILLIC_X} + 1", names=["x"])
    assert "declared: x" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (f"x + {CYRILLIC_X}", "names in different scripts: `x` (Latin), `х` (Cyrillic)"),
        ("g\u0430mma * 2", "mixes Latin and Cyrillic letters"),
        ("γ * x + ρ", None),  # Greek beside Latin is ordinary maths
        (f"{WIDE_X} * 2", None),
        ("ceiling(log(0.01)/log(gamma))", None),
    ],
)
def test_mixed_scripts(text: str, words: str | None) -> None:
    warning = mixed_scripts(names_in(text))
    if words is None:
        assert warning is None
    else:
        assert warning is not None and words in warning


DECK = f"""\
id: sc
name: "Scripts"
cards:
  - id: twin
    kind: numeric
    front: "x = {{x}}, {CYRILLIC_X} = {{{CYRILLIC_X}}}?"
    params: {{x: {{choices: [1, 2]}}, {CYRILLIC_X}: {{choices: [3]}}}}
    answer: "x + {CYRILLIC_X}"
    examples:
      - {{params: {{x: 1, {CYRILLIC_X}: 3}}, value: 4}}
"""


@pytest.mark.parametrize("mixed", [True, False])
def test_check_warns_without_failing(tmp_path: Path, mixed: bool) -> None:
    (tmp_path / "decks").mkdir()
    (tmp_path / "content").mkdir()
    deck = DECK if mixed else DECK.replace(CYRILLIC_X, "y")
    (tmp_path / "decks" / "sc.yaml").write_text(deck, encoding="utf-8")
    text = subprocess.run(
        [sys.executable, "-m", "studykit", "--root", str(tmp_path), "check"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert text.returncode == 0, text.stdout + text.stderr
    warned = [line for line in text.stdout.splitlines() if line.startswith("warning: ")]
    assert bool(warned) is mixed
    if mixed:
        assert warned[0].startswith("warning: decks/sc.yaml:4: card twin: names in different")
    as_json = subprocess.run(
        [sys.executable, "-m", "studykit", "--root", str(tmp_path), "check", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    document = json.loads(as_json.stdout)
    assert document["ok"] is True
    assert len(document["warnings"]) == (1 if mixed else 0)

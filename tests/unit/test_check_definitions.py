"""Definitions are declared, not guessed: a note's or deck's `definitions:` hold for every
text it has, and every other `symbol = value` is checked against them (issue 25, item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from studykit.checking import run_check
from studykit.checking.findings import Report
from tests.unit.test_check_orders import DECK, copied

NOTE_TEXT = r"""id: demo-note
title: Demo
definitions:
  - says: 'k^* = \left\lceil \frac{\log(0.01)}{\log(\gamma)} \right\rceil'
    source: the 1% threshold
sections:
  - id: context
    title: Context
    body: |
      $\gamma = 0.99$ par $k^* = 459$ steps.
"""

DECK_TEXT = r"""id: demo
name: Demo
note: demo-note
definitions:
  - says: 'd_{model} = 512'
cards:
  - id: ceiling
    source: context
    front: $\gamma = 0.95$ par effective context kitna hai?
    back: $k^* = 90$ steps.
  - id: width
    source: context
    front: Model width?
    back: $d_{model} = 512$.
"""


def write_root(root: Path, note: str = NOTE_TEXT, deck: str = DECK_TEXT) -> Path:
    (root / "content").mkdir(parents=True)
    (root / "decks").mkdir()
    (root / "content" / "note.yaml").write_text(note, encoding="utf-8")
    (root / "decks" / "demo.yaml").write_text(deck, encoding="utf-8")
    return root


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def skipped(report: Report) -> list[str]:
    return [f"{s.line}: {s.reason}" for s in report.skipped_equations]


def test_declared_symbols_are_checked_in_sections_and_on_both_sides_of_cards(
    tmp_path: Path,
) -> None:
    report = run_check([write_root(tmp_path)], tmp_path)
    assert [str(p) for p in report.problems] == []
    # 459 at γ = 0.99 (the body), 90 at γ = 0.95 given on the card's front, 512 from the deck.
    assert report.equations.verified >= 3, skipped(report)
    assert not any("defines `k^*`" in reason for reason in skipped(report))


@pytest.mark.parametrize(
    ("where", "written", "planted", "said"),
    [
        ("deck", "$k^* = 90$ steps.", "$k^* = 91$ steps.", "91"),  # its front gives γ
        ("note", "$k^* = 459$ steps.", "$k^* = 458$ steps.", "458"),
        ("deck", "$d_{model} = 512$.", "$d_{model} = 256$.", "256"),  # the deck's own
    ],
)
def test_a_value_against_its_declaration_is_wrong_at_its_line(
    tmp_path: Path, where: str, written: str, planted: str, said: str
) -> None:
    note, deck = NOTE_TEXT, DECK_TEXT
    if where == "deck":
        deck = deck.replace(written, planted)
        assert deck != DECK_TEXT
        path, line = "demo.yaml", line_of(deck, planted)
    else:
        note = note.replace(written, planted)
        assert note != NOTE_TEXT
        path, line = "note.yaml", line_of(note, planted)
    problems = run_check([write_root(tmp_path, note, deck)], tmp_path).problems
    assert [(Path(p.path).name, p.line) for p in problems] == [(path, line)], problems
    assert said in str(problems[0])


def test_without_the_declaration_a_wrong_value_defines_itself(tmp_path: Path) -> None:
    """What the declaration is for: the same wrong card passes when nothing is declared."""
    note = NOTE_TEXT.replace(
        NOTE_TEXT[NOTE_TEXT.index("definitions:") : NOTE_TEXT.index("sections:")], ""
    )
    deck = DECK_TEXT.replace("$k^* = 90$ steps.", "$k^* = 91$ steps.")
    report = run_check([write_root(tmp_path, note, deck)], tmp_path)
    assert report.problems == []
    assert any("defines `k^*`" in reason for reason in skipped(report))


def test_a_declared_symbol_without_the_values_it_needs_is_skipped_saying_which(
    tmp_path: Path,
) -> None:
    deck = DECK_TEXT.replace("$\\gamma = 0.95$ par effective context", "Effective context")
    report = run_check([write_root(tmp_path, deck=deck)], tmp_path)
    assert report.problems == []
    [reason] = [r for r in skipped(report) if "declared as" in r]
    assert reason.startswith(f"{line_of(deck, '$k^* = 90$')}: `k^*` is declared as `k^* =")
    assert reason.endswith("and `\\gamma` has no value in this text"), reason


@pytest.mark.parametrize(
    ("planted", "said"),
    [
        ("  - says: 'k^* = 7'\n", "`k^*` is already declared as `k^* = \\left\\lceil"),
        ("  - says: 'k^* \\approx 90'\n", "is not one `symbol = expression`"),
        ("  - says: 'x = x + 1'\n", "uses `x` on both sides"),
    ],
)
def test_a_declaration_that_is_not_one_is_a_problem_at_its_line(
    tmp_path: Path, planted: str, said: str
) -> None:
    note = NOTE_TEXT.replace("sections:\n", planted + "sections:\n")
    problems = run_check([write_root(tmp_path, note)], tmp_path).problems
    assert [(Path(p.path).name, p.line) for p in problems] == [
        ("note.yaml", line_of(note, planted.strip()))
    ], problems
    assert said in problems[0].message


def test_the_bundled_note_declares_k_star_and_a_wrong_card_value_fails(tmp_path: Path) -> None:
    root = copied(tmp_path)
    path = root / DECK
    text = path.read_text(encoding="utf-8")
    written = "($\\gamma = 0.95$ par {claim:k-gamma-095})"
    assert text.count(written) == 1
    planted = "($\\gamma = 0.95$ par {claim:k-gamma-095}, yaani $k^* = 91$)"
    path.write_text(text.replace(written, planted), encoding="utf-8")
    problems = run_check([path], root).problems
    assert [(Path(p.path).name, p.line) for p in problems] == [
        (path.name, line_of(text, written))
    ], [str(p) for p in problems]

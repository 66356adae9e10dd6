"""Every number in a text is accounted for: a cited fact, claim or measurement, maths in a
relation, or a declared label; any other is a `check` problem at its line (issue 25, item 1)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studykit.checking import run_check
from studykit.checking.barenumbers import bare_numbers
from studykit.content.citations import card_side, render_citations
from studykit.content.loading import load_library
from tests.unit.test_check_definitions import line_of, write_root


@pytest.mark.parametrize(
    ("text", "bare"),
    [
        ("32 sequences × 512 tokens", ["32", "512"]),
        ("Hinglish mein bhi: 300 words ka review, 1% tak", ["300", "1%"]),
        ("5,000 CUDA cores; positions 2–511", ["5,000", "2", "511"]),
        ("bound 2.68e-7 hai, 1.5E+3 bhi", ["2.68e-7", "1.5E+3"]),  # one number each
        ("ek 32-step segment", ["32"]),  # a quantity beside a unit word
        ("GPT-3, fp32, x86_64, Q3, the 1990s, ELI12", []),  # parts of names
        ("1. pehla\n2) doosra\n> 3. quote\n- 4. nested", []),  # list markers
        ("`hidden = 512` aur\n```\nx = 7\n```\nbas", []),  # code
        ("[paper](https://arxiv.org/abs/1706.03762) dekho", []),  # a link's target
        ("{fact:seq-len} tokens, {claim:k-star} steps, {measured:ms} ms, γ = {gamma}", []),
        ("{{c1::512}} steps", ["512"]),  # a plain cloze deletion
        ("{{c1::{fact:seq-len}}} steps", []),
        ("$T = 512$ tokens", []),  # maths in a relation: the equation checks compare it
        ("sirf $512$ tokens", ["512"]),  # maths, but nothing to compare
        ("Limitation 3 aur Limitations 2", []),  # labels (declared below)
        ("Limitation 2 aur 4", ["4"]),  # the second number names nothing declared
        ("position 5 par", ["5"]),  # not a declared label: a quantity
    ],
)
def test_bare_numbers_are_the_ones_nothing_checks(text: str, bare: list[str]) -> None:
    found = bare_numbers(text, labels=("Limitation",))
    assert [number.number for number in found] == bare
    for number in found:  # each found where it is written
        at = text.index(number.number, number.index)
        assert at - number.index <= 1  # `$512$` is found at its `$`


NOTE = r"""id: demo-note
title: Demo
labels: [Limitation]
facts:
  - id: seq-len
    value: 512
    says: tokens per sequence
    source: the seed's scaling example
    symbol: T
  - id: threshold
    value: 1
    unit: '%'
    source: the effective-context section
sections:
  - id: scaling
    title: "Limitation 1: scaling"
    body: |
      Har sequence {fact:seq-len} tokens ki hai, yaani $T = {fact:seq-len}$.
      Gradient {fact:threshold} tak girta hai.
"""

DECK = r"""id: demo
name: Demo
note: demo-note
cards:
  - id: steps
    source: scaling
    front: Kitne sequential steps?
    back: '{fact:seq-len} steps'
"""


def located(root: Path) -> list[str]:
    """`check`'s problems as `file:line: kind: message`, the file relative to `root`."""
    return [
        f"{Path(p.path).relative_to(root).as_posix()}:{p.line}: {p.kind}: {p.message}"
        for p in run_check([root], root).problems
    ]


def test_cited_facts_render_and_pass(tmp_path: Path) -> None:
    root = write_root(tmp_path, NOTE, DECK)
    report = run_check([root], root)
    assert [str(p) for p in report.problems] == []
    assert report.number_texts == 4  # the section's title and body, the card's two sides
    note = load_library(root).notes["demo-note"]
    assert render_citations(note.sections[0].body, note).splitlines() == [
        "Har sequence 512 tokens ki hai, yaani $T = 512$.",
        "Gradient 1% tak girta hai.",
    ]
    assert card_side("{fact:seq-len} steps", note) == "512 steps"


@pytest.mark.parametrize(
    ("where", "written", "planted"),
    [
        ("note", "Har sequence {fact:seq-len} tokens", "Har sequence 512 tokens"),
        ("note", "girta hai.", "girta hai, 100 steps mein."),
        ("note", "Limitation 1: scaling", "Limitation 1: 32 sequences"),  # a title
        ("deck", "'{fact:seq-len} steps'", "'512 steps'"),
        ("deck", "Kitne sequential steps?", "32 sequences ke kitne steps?"),
    ],
)
def test_a_planted_bare_number_fails_check_at_its_line(
    tmp_path: Path, where: str, written: str, planted: str
) -> None:
    note, deck = NOTE, DECK
    if where == "note":
        assert written in note
        note = note.replace(written, planted)
    else:
        assert written in deck
        deck = deck.replace(written, planted)
    root = write_root(tmp_path, note, deck)
    file = "content/note.yaml" if where == "note" else "decks/demo.yaml"
    line = line_of(note if where == "note" else deck, planted)
    problems = located(root)
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{file}:{line}: number: "), problems
    assert "which nothing checks: cite it as `{fact:ID}`" in problems[0]
    assert run_check([root], root).exit_code == 1


def test_a_maths_value_that_contradicts_a_fact_is_wrong(tmp_path: Path) -> None:
    planted = DECK.replace("'{fact:seq-len} steps'", "'$T = 500$ steps'")
    root = write_root(tmp_path, NOTE, planted)
    problems = located(root)
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"decks/demo.yaml:{line_of(planted, 'T = 500')}: equation")
    assert "512" in problems[0]


def test_an_unknown_fact_is_a_load_problem_at_its_line(tmp_path: Path) -> None:
    deck = DECK.replace("{fact:seq-len} steps", "{fact:seq-lenn} steps")
    problems = located(write_root(tmp_path, NOTE, deck))
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"decks/demo.yaml:{line_of(deck, 'seq-lenn')}: load: ")
    assert "did you mean `seq-len`" in problems[0]


def test_a_repeated_fact_is_a_load_problem_at_its_line(tmp_path: Path) -> None:
    again = "  - id: seq-len\n    value: 5\n    source: again\n"
    note = NOTE.replace("sections:\n", again + "sections:\n")
    problems = located(write_root(tmp_path, note, DECK))
    repeated = note.count("\n", 0, note.index(again)) + 1
    assert any(
        p.startswith(f"content/note.yaml:{repeated}: load: duplicate fact id `seq-len`")
        for p in problems
    ), problems


def test_a_deck_without_a_note_is_said_not_searched(tmp_path: Path) -> None:
    deck = "id: loose\nname: Loose\ncards:\n  - id: c\n    front: 32 sequences?\n    back: '512'\n"
    root = write_root(tmp_path, NOTE, DECK)
    (root / "decks" / "loose.yaml").write_text(deck, encoding="utf-8")
    report = run_check([root], root)
    assert [str(p) for p in report.problems] == []
    assert report.numbers_unchecked == ["Loose"]
    assert "not searched: 1 deck(s) with no `note:`" in report.numbers_line()


BUNDLED = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("file", "written", "planted"),
    [
        (  # a card back disagreeing with its front: 500 where the front cites 512
            "decks/ai-ml/rnn-limitations.yaml",
            "{fact:seq-len} steps — {fact:batch-size} sequences",
            "500 steps — {fact:batch-size} sequences",
        ),
        (  # a plain cloze deletion's number
            "decks/ai-ml/rnn-limitations.yaml",
            "aur ye {claim:tanh-derivative-max} sirf",
            "aur ye {{c4::1}} sirf",
        ),
        (  # Hinglish prose in a note's section
            "content/ai-ml/rnn-limitations.yaml",
            'Word "not" position {fact:not-position} par hai',
            'Word "not" position 6 par hai',
        ),
    ],
)
def test_a_bare_number_planted_in_the_bundled_content_fails_at_its_line(
    tmp_path: Path, file: str, written: str, planted: str
) -> None:
    for folder in ("content", "decks"):
        shutil.copytree(BUNDLED / folder, tmp_path / folder)
    path = tmp_path / file
    text = path.read_text(encoding="utf-8")
    assert text.count(written) == 1
    path.write_text(text.replace(written, planted), encoding="utf-8")
    problems = [
        f"{Path(p.path).relative_to(tmp_path).as_posix()}:{p.line}: {p.kind}"
        for p in run_check([path], tmp_path).problems
    ]
    assert problems == [f"{file}:{line_of(text, written)}: number"]

"""A card side's line that markdown turns into a numbered list where a number was meant."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studykit.checking import run_check
from studykit.checking.numbered import numbered_findings, one_item_lists
from studykit.content.model import Card
from tests.unit.test_check import ROOT

DECK = "decks/ai-ml/rnn-limitations.yaml"
WRITTEN = "{fact:seq-len} steps — {fact:batch-size} sequences saath chalti hain"
PLANTED = "{fact:seq-len}. {fact:batch-size} sequences saath chalti hain"  # `512. 32 …`


@pytest.mark.parametrize(
    ("markdown", "lines"),
    [
        ("512. 32 sequences saath chalti hain", [0]),
        ("Pehle line.\n\n2019) Transformer aaya.", [2]),
        ("Steps:\n\n1. forward\n2. backward", []),  # a real list of two
        ("1. forward\n   1. nested\n   2. nested\n2. backward", []),
        ("- bullet\n\n  7. inside a bullet", [2]),
        ("512 steps — ek ek karke.", []),
        ("512\\. escaped", []),
        ("```\n512. in code\n```", []),
        ("Total: 512. 32 saath", []),  # mid-line: a sentence, not a list
    ],
)
def test_one_item_lists_are_found_at_their_line(markdown: str, lines: list[int]) -> None:
    assert list(one_item_lists(markdown)) == lines


def test_front_and_back_are_both_read() -> None:
    card = Card.model_validate({"id": "c", "front": "3. Kaun?", "back": "A\n\n42. Jawab"})
    found = [(field, index) for field, _, index, _ in numbered_findings(card)]
    assert found == [("front", 0), ("back", 3)]


def test_a_number_read_as_a_list_in_a_bundled_back_fails_check_at_its_line(
    tmp_path: Path,
) -> None:
    shutil.copytree(ROOT / "content", tmp_path / "content")
    shutil.copytree(ROOT / "decks", tmp_path / "decks")
    deck = tmp_path / DECK
    text = deck.read_text(encoding="utf-8")
    assert text.count(WRITTEN) == 1
    deck.write_text(text.replace(WRITTEN, PLANTED), encoding="utf-8")
    line = next(n for n, row in enumerate(text.splitlines(), 1) if WRITTEN in row)
    report = run_check([deck], tmp_path)  # the deck alone: the rest is clean
    problems = [str(problem).removeprefix(f"{tmp_path}/") for problem in report.problems]
    assert problems == [
        f"{DECK}:{line}: card scaling-example-steps: the back's line starting `512. ` is a "
        "numbered list in markdown (item 512 of a list of one, shown as a list marker on "
        "screen and as `<ol>` in Anki), not the number 512: write `512 —` or `512 steps.`, "
        "or escape the mark as `512\\.`"
    ]

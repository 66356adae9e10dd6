"""A card side's single newline is a line break; blocks, code and maths are left as written."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from studykit.cli import cli
from studykit.content.citations import card_side
from studykit.content.model import Card
from studykit.export.html import markdown_html
from studykit.study.cardtext import back_markdown, cited_markdown, front_markdown, plain_text
from studykit.text.linebreaks import (
    hard_breaks,
    only_paragraphs,
    parsed_paragraph_lines,
)


def test_a_line_that_continues_a_paragraph_ends_in_a_hard_break() -> None:
    assert hard_breaks("one\ntwo\nthree") == "one  \ntwo  \nthree"
    assert hard_breaks("trailing space \nnext") == "trailing space  \nnext"
    assert hard_breaks("- item\n  its second line") == "- item  \n  its second line"
    assert hard_breaks("> quoted\n> on two lines") == "> quoted  \n> on two lines"
    assert hard_breaks("> quoted\nlazily") == "> quoted  \nlazily"
    # `2.` cannot start a list inside a paragraph (CommonMark): the line is text, kept a line.
    assert hard_breaks("year\n2. item") == "year  \n2. item"
    # Inline maths that spans a line stays TeX (no `\\` in it); the paragraph line after it breaks.
    assert hard_breaks("with $a +\nb$ maths\nnext") == "with $a +\nb$ maths  \nnext"


@pytest.mark.parametrize(
    "text",
    [
        "one line",
        "para\n\nblank line between",
        "para\n- list item",
        "para\n* star item",
        "para\n+ plus item",
        "para\n1. ordered item",
        "para\n1) ordered item",
        "- one\n- two",
        "para\n# heading",
        "# heading\npara",
        "para\n> quote",
        "para\n---",  # setext heading
        "para\n===",
        "para\n***",  # thematic break
        "| a | b |\n|---|---|\n| 1 | 2 |",
        "para\n| a |\n|---|\n| 1 |",
        "para\n```\ncode one\ncode two\n```",
        "~~~\ncode one\ncode two\n~~~",
        "para\n\n    indented one\n    indented two",
        "- item\n\n      indented code\n      in the item",
        "para\n$$\na +\nb\n$$\nafter",
        "para\n$$a + b$$\nafter",
        "text $$a$$\nafter",
        "backslash\\\nbreak",
        "two spaces  \nbreak",
        "tag<br>\nbreak",
        "tag<BR />\nbreak",
        "",
    ],
)
def test_blocks_code_maths_and_existing_breaks_are_left_alone(text: str) -> None:
    assert hard_breaks(text) == text


@given(st.text(alphabet="ab -*+1.)#>|`~$\\\n =", max_size=40))
def test_idempotent_and_only_adds_trailing_spaces(text: str) -> None:
    once = hard_breaks(text)
    assert hard_breaks(once) == once
    assert [line.rstrip(" \t") for line in once.split("\n")] == [
        line.rstrip(" \t") for line in text.split("\n")
    ]


def test_both_renderers_show_a_two_line_side_on_two_lines() -> None:
    side = "first line\nsecond line $x^2$\n\n- item one\n- item two"
    assert markdown_html(card_side(side, None)) == (
        "<p>first line<br />\nsecond line \\(x^2\\)</p>\n<ul>\n<li>item one</li>\n"
        "<li>item two</li>\n</ul>"
    )
    card = Card(id="c", front="Question on\ntwo lines?", back=side)
    assert plain_text(front_markdown(card)) == "Question on\ntwo lines?"
    assert plain_text(back_markdown(card)).splitlines()[:2] == ["first line", "second line x²"]


def test_cloze_fronts_keep_their_lines_hidden_and_revealed() -> None:
    card = Card(id="c", kind="cloze", front="The {{c1::first}} line\nand the second.")
    assert plain_text(front_markdown(card)) == "The [...] line\nand the second."
    assert plain_text(back_markdown(card)) == "The first line\nand the second."
    html = markdown_html(card_side(card.front, None), cloze=True)
    assert html == "The {{c1::first}} line<br />\nand the second."


def test_note_sections_keep_commonmark_soft_wrap() -> None:
    shown = plain_text(cited_markdown("a hard-wrapped\nparagraph", None))
    assert shown == "a hard-wrapped paragraph"


NOTE = """id: demo-note
title: Demo note
sections:
  - id: intro
    title: Intro
    body: |-
      A note section is a document:
      its hard-wrapped lines join.
"""
DECK = """id: demo
name: Demo
note: demo-note
cards:
  - id: two-lines
    front: Front
    back: |-
      The back's first line
      and its second line.
  - id: computed
    kind: numeric
    front: |-
      With k = {k}:
      what is 2k?
    params: {k: {choices: [3]}}
    answer: "2*k"
"""


def test_show_prints_each_line_of_a_side_on_its_own_and_notes_wrapped(tmp_path: Path) -> None:
    (tmp_path / "content").mkdir()
    (tmp_path / "decks").mkdir()
    (tmp_path / "content" / "note.yaml").write_text(NOTE, encoding="utf-8")
    (tmp_path / "decks" / "demo.yaml").write_text(DECK, encoding="utf-8")
    runner = CliRunner()
    deck = runner.invoke(cli, ["--root", str(tmp_path), "show", "deck", "demo"])
    assert deck.exit_code == 0, deck.output
    lines = deck.output.splitlines()
    assert "The back's first line" in lines and "and its second line." in lines
    assert "With k = 3:" in lines and "what is 2k?" in lines
    note = runner.invoke(cli, ["--root", str(tmp_path), "show", "note", "demo-note"])
    assert note.exit_code == 0, note.output
    assert "A note section is a document: its hard-wrapped lines join." in note.output


_STARTS = ["", " ", "    ", "- ", "* ", "+ ", "1. ", "2) ", "> ", "# ", "=", "---", "___", "|"]
_STARTS += ["```", "~~~", "$$", "[a]: /b", ":-", "<div>", "12", "$x$ ", "<b>", "1999"]
_LINE = st.tuples(st.sampled_from(_STARTS), st.sampled_from(["", "a", "b | c", " x", "."]))


@settings(max_examples=1000, deadline=None)
@given(st.lists(_LINE.map("".join), max_size=6))
def test_the_no_parser_path_finds_the_paragraphs_the_parser_finds(lines: list[str]) -> None:
    if only_paragraphs(lines):
        runs = {k for k in range(len(lines) - 1) if lines[k].strip() and lines[k + 1].strip()}
        assert runs == set(parsed_paragraph_lines("\n".join(lines)))

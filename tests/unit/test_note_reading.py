"""Reading the bundled notes: a timing's machine said once per section, one way of writing a
formula and a number wherever it shows, and no glyph most terminal fonts lack."""

from __future__ import annotations

import re

from click.testing import CliRunner

from studykit.cli import cli
from studykit.content.loading import Library
from studykit.core.config import bundled_root
from studykit.quiz import draw_variant
from studykit.study.cardtext import cited_markdown, plain_text, worked_text

# Glyphs missing from many terminal fonts (ᐟ is a Canadian syllabic, used as a raised `/`).
MISSING_GLYPHS = re.compile("[ᐟ]")


def _show(*args: str) -> str:
    result = CliRunner().invoke(cli, ["--root", str(bundled_root()), "show", *args])
    assert result.exit_code == 0, result.output
    return result.output


def _sections(output: str) -> list[str]:
    """`studykit show note`'s output cut at its `N. Title` section headings."""
    return re.split(r"\n(?=\d+\. \S)", output)


def test_each_section_says_where_its_timings_were_measured_once(
    bundled_library: Library,
) -> None:
    note = bundled_library.notes["rnn-limitations"]
    timings = [m for s in note.sections for m in s.measured if not m.deterministic]
    assert timings, "the bundled note has timings: the test would prove nothing"
    machine = timings[0].machine
    output = _show("note", "rnn-limitations")
    sections = [s for s in _sections(output) if machine in s]
    assert len(sections) >= 2  # the parallelism and long-range sections both cite timings
    for section in sections:
        flat = " ".join(section.split())
        assert flat.count(machine) == 1, flat
        assert f"† Measured on {machine}, cpu, torch {timings[0].torch}." in flat
    assert "RNN forward 17.5 ms†, transformer encoder layer 112 ms†" in " ".join(output.split())


def test_the_notes_screen_renders_a_section_as_show_prints_it(bundled_library: Library) -> None:
    note = bundled_library.notes["rnn-limitations"]
    section = note.section("parallelization")
    assert section is not None
    markdown = cited_markdown(section.body, note)  # what the Notes screen's section holds
    flat = " ".join(plain_text(markdown, width=100).split())
    assert flat in " ".join(_show("note", "rnn-limitations").split())
    assert flat.count("torch") == 1


def test_no_rendered_note_or_card_uses_a_glyph_fonts_lack(bundled_library: Library) -> None:
    shown = [_show("note", note_id) for note_id in bundled_library.notes]
    shown += [_show("deck", deck_id) for deck_id in bundled_library.decks]
    found = [m.group() for text in shown for m in MISSING_GLYPHS.finditer(text)]
    assert found == []


def test_the_worked_steps_write_a_formula_as_the_text_does(bundled_library: Library) -> None:
    deck = bundled_library.decks["rnn-limitations-computed"]
    card = next(c for c in deck.cards if "10000^{2i/d}" in c.front)
    worked = worked_text(draw_variant(card, 0))
    assert worked.startswith("sin(pos/10000^(2i/d)) = sin(1/10000^(")
    assert "10000^(2i/d)" in _show("note", "rnn-limitations")


def test_show_with_an_id_alone_names_the_command_that_shows_it() -> None:
    """`studykit show ID` (no `note` or `deck`): exit 2 with the command to type instead."""
    runner = CliRunner()

    def error(*args: str) -> str:
        args = ("--root", str(bundled_root()), "show", *args)
        result = runner.invoke(cli, args, prog_name="studykit")
        assert result.exit_code == 2, result.output
        [line] = result.output.splitlines()
        return line

    both = error("rnn-limitations")
    assert both.startswith("studykit: error: `rnn-limitations` is a note and a deck: ")
    assert "`studykit show note rnn-limitations` or `studykit show deck rnn-limitations`" in both
    deck = error("rnn-limitations-computed")
    assert "is a deck: `studykit show deck rnn-limitations-computed`" in deck
    assert "no such command 'nowhere'" in error("nowhere")

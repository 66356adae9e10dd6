"""Each example of the Obsidian Spaced Repetition plugin's docs gives the cards they describe.

The fixtures are in tests/data/obsidian/docs/, one per documented example (README there names
the doc page of each).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from studykit.importers.cardsyntax import PluginSettings
from studykit.importers.decks import ObsidianImport
from studykit.importers.notescan import parse_obsidian
from studykit.importers.srschedule import Schedule

DOCS = Path(__file__).resolve().parent.parent / "data" / "obsidian" / "docs"

Cards = dict[str, list[tuple[str, str, str | None]]]


def parse(name: str, settings: PluginSettings | None = None) -> ObsidianImport:
    path = DOCS / name
    return parse_obsidian(path.read_text(encoding="utf-8"), path.stem, settings=settings)


def cards(found: ObsidianImport) -> Cards:
    """Deck name -> (kind, front, back) of its cards."""
    return {d.name: [(c.kind, c.front, c.back) for c in d.cards] for d in found.decks}


def test_every_fixture_is_listed_with_its_doc_page() -> None:
    listed = (DOCS / "README.md").read_text(encoding="utf-8")
    for path in DOCS.glob("*.md"):
        if path.name != "README.md":
            assert f"| {path.name} |" in listed


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "single-line-basic.md",
            [("basic", "the question goes on this side", "answer goes here!")],
        ),
        ("single-line-bidirectional.md", [("reversed", "info 1", "info 2")]),
        (
            "multi-line-basic.md",
            [
                ("basic", "Front of multiline", "Backside of multiline card"),
                (
                    "basic",
                    'As per the definition\nof "multiline" the prompt\ncan be on multiple lines',
                    "same goes for\nthe answer",
                ),
            ],
        ),
        (
            "multi-line-reversed.md",
            [
                ("reversed", "Front of multiline", "Backside of multiline card"),
                (
                    "reversed",
                    'As per the definition\nof "multiline" the prompt\ncan be on multiple lines',
                    "same goes for\nthe answer",
                ),
            ],
        ),
        (
            "cloze-single.md",
            [
                (
                    "cloze",
                    "The first female prime minister of Australia was {{c1::Julia Gillard}}",
                    None,
                )
            ],
        ),
        (
            "cloze-multiple.md",
            [
                (
                    "cloze",
                    "The first female {{c1::prime minister}} of Australia was "
                    "{{c2::Julia Gillard}}",
                    None,
                )
            ],
        ),
        (
            "cloze-hints.md",
            [
                (
                    "cloze",
                    "Kaleida, funded to the tune of {{c1::$40 million::USD}}\n"
                    "by Apple Computer and IBM in {{c2::1991::year}}",
                    None,
                )
            ],
        ),
        (
            "cloze-groups.md",
            [
                (
                    "cloze",
                    "This is {{c1::in group 1}}, this {{c2::in group 2}}\n"
                    "and this also {{c1::in group 1}}",
                    None,
                )
            ],
        ),
        ("context-headings.md", [("basic", "Kenya", "Nairobi"), ("basic", "Canada", "Ottawa")]),
    ],
)
def test_card_forms(name: str, expected: list[tuple[str, str, str | None]]) -> None:
    found = parse(name)
    assert cards(found) == {Path(name).stem: expected}
    assert found.skipped == []


def test_anki_style_cloze_is_reported_unless_the_setting_is_on() -> None:
    found = parse("cloze-anki-style.md")
    assert found.decks == []
    assert [str(r) for r in found.skipped] == [
        "2: Anki-style {{c1::…}} cloze: the plugin makes no card of it (see --anki-cloze)"
    ]
    front = "{{c1::This text}} would {{c2::generate}} {{c1::2 cards}}"
    on = parse("cloze-anki-style.md", PluginSettings(anki_cloze=True))
    assert cards(on) == {"cloze-anki-style": [("cloze", front, None)]}
    assert on.decks[0].cards[0].id == "this-text-would-generate-2-cards"


def test_a_tag_line_holds_until_the_next() -> None:
    assert cards(parse("decks-multiple-tags-in-file.md")) == {
        "deckA": [
            ("basic", "Question1 (in deckA)", "Answer1"),
            ("basic", "Question2 (also in deckA)", "Answer2"),
            ("basic", "Question3 (also in deckA)", "Answer3"),
        ],
        "deckB": [
            ("basic", "Question4 (in deckB)", "Answer4"),
            ("basic", "Question5 (also in deckB)", "Answer5"),
        ],
        "deckC": [("basic", "Question6 (in deckC)", "Answer6")],
    }


def test_tags_on_one_line_put_the_card_in_each_deck() -> None:
    card = [("basic", "A group of cats is called a", "clowder")]
    assert cards(parse("decks-card-in-multiple-decks.md")) == {
        "language::words": card,
        "trivia": card,
        "learned-from-tv": card,
    }


def test_a_question_specific_tag_does_not_leak_to_the_next_card() -> None:
    found = cards(parse("decks-question-specific.md"))
    assert found["deckB"] == [("basic", "Question4 (in deckB)", "Answer4")]
    assert found["deckA"][-1] == ("basic", "Question6 (in deckA)", "Answer6")


def test_schedule_on_the_next_line() -> None:
    [deck] = parse("schedule-comment.md").decks
    assert [c.schedules for c in deck.cards] == [(Schedule(date(2024, 8, 16), 51, 230),)]


def test_schedule_on_the_same_line_and_one_per_sibling() -> None:
    found = parse("schedule-same-line.md")
    [deck] = found.decks
    assert [c.schedules for c in deck.cards] == [
        (Schedule(date(2021, 8, 20), 13, 290),),
        (Schedule(date(2024, 8, 16), 51, 230), Schedule(date(2024, 7, 1), 3, 269)),
    ]
    assert deck.cards[0].back == "3000 RCU, 1000 WCU"
    assert found.schedules == 3  # one per sibling


def test_a_card_wrapped_in_a_comment_is_ignored_and_reported() -> None:
    found = parse("ignoring-cards.md")
    assert cards(found) == {"ignoring-cards": [("basic", "Kept", "card")]}
    assert [str(r) for r in found.skipped] == [
        "2: card syntax inside an HTML comment: ignored, as the plugin does"
    ]


def test_bold_is_a_cloze_only_with_the_plugins_bold_setting() -> None:
    text = "#flashcards\nThe capital of Kenya is **Nairobi**\n"
    assert parse_obsidian(text, "n").decks == []
    found = parse_obsidian(text, "n", settings=PluginSettings(bold_cloze=True))
    assert cards(found) == {"n": [("cloze", "The capital of Kenya is {{c1::Nairobi}}", None)]}
    off = PluginSettings(highlight_cloze=False)
    assert parse_obsidian("#flashcards\nA ==b==\n", "n", settings=off).decks == []

"""`studykit import obsidian`: the plugin's syntax -> deck YAML that our loader accepts."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from studykit.cli import cli
from studykit.content.loading import load_library
from studykit.core.ids import MAX_SLUG, Slugs, slug
from studykit.importers.decks import ImportedDeck
from studykit.importers.deckyaml import deck_yaml
from studykit.importers.notescan import parse_obsidian
from studykit.importers.srschedule import Schedule

DATA = Path(__file__).resolve().parent.parent / "data" / "obsidian"
SEED = DATA / "rnn-limitations.md"
FORMS = DATA / "all-forms.md"

SEED_FRONTS = [
    "RNNs mein sequential processing bottleneck kya hai?",
    "RNNs time ke across computation parallelize kyun nahi kar sakte?",
    "RNNs ke liye T timesteps mein vanishing gradient formula derive karo",
    "Encoder-decoder RNNs mein compression bottleneck kya hai?",
    "Transformers RNNs se long sequences par kitna faster ho sakte hain?",
    "LSTMs vanishing gradient problem fully kyun solve NAHI karte?",
    "RNNs ke liye effective context window formula kya hai?",
    "Self-attention long-range dependency problem kaise solve karta hai?",
]


def parse(path: Path) -> tuple[dict[str, ImportedDeck], list[str]]:
    found = parse_obsidian(path.read_text(encoding="utf-8"), path.stem)
    return {deck.id: deck for deck in found.decks}, [str(line) for line in found.skipped]


def load_back(tmp_path: Path, deck: ImportedDeck) -> None:
    (tmp_path / "decks").mkdir(parents=True, exist_ok=True)
    (tmp_path / "decks" / f"{deck.id}.yaml").write_text(
        deck_yaml(replace(deck, sources=["x.md"])), "utf-8"
    )


def test_the_seed_cards_become_one_deck_of_eight(tmp_path: Path) -> None:
    decks, report = parse(SEED)
    assert list(decks) == ["ai-ml"]
    deck = decks["ai-ml"]
    assert deck.name == "ai-ml"
    assert [card.front for card in deck.cards] == SEED_FRONTS
    assert all(card.kind == "basic" for card in deck.cards)
    multi = deck.cards[1]
    assert multi.back is not None and multi.back.startswith("Kyunki har hidden state $h_{t}$")
    assert "$h_{1}, h_{2}, \\dots, h_{t - 1}$" in multi.back
    assert all("SR:" not in (card.back or "") for card in deck.cards)
    assert [card.schedules for card in deck.cards[:2]] == [
        (Schedule(date(2026, 3, 5), 3, 250),),
        (Schedule(date(2026, 3, 4), 2, 230),),
    ]
    assert all("std::vector" not in card.front for card in deck.cards)
    assert report == []  # prose, code and front matter are not listed

    load_back(tmp_path, deck)
    library = load_library(tmp_path)
    assert not library.problems
    loaded = library.decks["ai-ml"]
    assert [card.front for card in loaded.cards] == SEED_FRONTS
    assert loaded.cards[1].back == multi.back


def test_each_syntax_form() -> None:
    decks, report = parse(FORMS)
    assert list(decks) == ["physics-waves", "maths"]
    waves = {card.id: card for card in decks["physics-waves"].cards}
    assert decks["physics-waves"].name == "physics::waves"
    assert waves["cards-above-the-first-tag-join-the-note-s-first-deck"].back == "like this one"
    assert (waves["speed-of-a-wave"].kind, waves["speed-of-a-wave"].back) == (
        "basic",
        "$v = f \\lambda$",
    )
    assert waves["period"].kind == "reversed"
    assert waves["period"].back == "The time of one cycle, $T = 1/f$"
    multi = waves["multi-line-front-second-front-line"]
    assert (multi.kind, multi.front, multi.back) == (
        "basic",
        "Multi-line front,\nsecond front line",
        "Back line one\nback line two",
    )
    assert waves["term-that-goes-both-ways"].kind == "reversed"
    cloze = next(card for card in waves.values() if card.kind == "cloze")
    assert cloze.front == (
        "The {{c1::wavelength}} is the distance between {{c2::crests}}, "
        "and `a==b` or $a == b$ stays as written."
    )
    assert cloze.back is None
    assert waves["speed-of-a-wave-2"].back == "a second card with the same front gets a suffix"
    assert [card.front for card in decks["maths"].cards] == ["Euler's identity"]
    assert not any("Not" in card.front or "Hidden" in card.front for card in waves.values())
    assert report == [
        "29-31: card syntax inside an HTML comment: ignored, as the plugin does",
        "35: `::` card with an empty side",
        "37-38: `?` card with an empty side",
    ]


def test_separators_inside_code_or_maths_are_not_cards() -> None:
    found = parse_obsidian(
        "#flashcards/x\n\nUse `std::vector` here.\n\n$a::b$ is maths\n\nFour :::: colons\n", "n"
    )
    assert found.decks == []
    assert found.skipped == []


def test_a_tag_applies_to_what_follows_it() -> None:
    text = "#flashcards/a\nOne :: 1\n#flashcards/b\nTwo :: 2\n\n#flashcards/a\nThree :: 3\n"
    found = parse_obsidian(text, "n")
    assert {d.id: [c.front for c in d.cards] for d in found.decks} == {
        "a": ["One", "Three"],
        "b": ["Two"],
    }


def test_without_a_tag_the_file_names_the_deck() -> None:
    found = parse_obsidian("Q :: A\n", "My Notes")
    assert [(d.id, d.name) for d in found.decks] == [("my-notes", "My Notes")]


def test_slugs_are_ascii_bounded_and_unique() -> None:
    assert slug("Self-attention: kya hai? (γ = 0.95)") == "self-attention-kya-hai-0-95"
    assert slug("γ") == "card"
    long = slug("word " * 40)
    assert len(long) <= MAX_SLUG and not long.endswith("-")
    taken = Slugs()
    assert [taken.take("q"), taken.take("q"), taken.take("q-2"), taken.take("q")] == [
        "q",
        "q-2",
        "q-2-2",
        "q-3",
    ]


@pytest.fixture(autouse=True)
def _own_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Schedules are imported into the data dir: never the user's; decks into tmp_path."""
    monkeypatch.setenv("STUDYKIT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)  # the import writes only inside the working folder


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_cli_reimport_is_byte_identical_and_an_edited_answer_keeps_its_id(
    tmp_path: Path,
) -> None:
    out = tmp_path / "decks" / "ai-ml.yaml"
    seed = _copy(SEED, tmp_path / "notes")  # the import writes block ids into its note
    code, stdout, _ = run("import", "obsidian", str(seed), "-o", str(out))
    assert code == 0, stdout
    assert "8 card(s) in 1 deck(s)" in stdout
    first = out.read_bytes()
    assert run("import", "obsidian", str(seed), "-o", str(out))[0] == 0
    assert out.read_bytes() == first

    edited = tmp_path / "rnn-limitations.md"
    text = SEED.read_text(encoding="utf-8")
    edited.write_text(text.replace("bas thoda slow", "bas dheere"), encoding="utf-8")
    assert run("import", "obsidian", str(edited), "-o", str(out))[0] == 0
    before = load_library(_root_with(tmp_path / "a", first)).decks["ai-ml"]
    after = load_library(tmp_path).decks["ai-ml"]
    assert [c.id for c in after.cards] == [c.id for c in before.cards]
    pairs = zip(before.cards, after.cards, strict=True)
    changed = [c.id for c, d in pairs if (c.front, c.back) != (d.front, d.back)]
    assert changed == ["lstms-vanishing-gradient-problem-fully-kyun-solve-nahi-karte"]


def _copy(note: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / note.name).write_bytes(note.read_bytes())
    return folder / note.name


def _root_with(root: Path, deck: bytes) -> Path:
    (root / "decks").mkdir(parents=True)
    (root / "decks" / "d.yaml").write_bytes(deck)
    return root


def test_cli_without_output_prints_yaml_and_reports_on_stderr() -> None:
    code, stdout, stderr = run("import", "obsidian", str(SEED))
    assert code == 0
    assert stdout.startswith('# Imported from "rnn-limitations.md" by `studykit import obsidian`')
    assert "id: ai-ml" in stdout and "card(s)" not in stdout
    assert "8 card(s) in 1 deck(s); 0 skipped line(s) that look like cards; 2 schedule(s) not " in (
        stderr
    )


def test_cli_several_decks_need_a_folder(tmp_path: Path) -> None:
    code, _, stderr = run("import", "obsidian", str(FORMS), "-o", str(tmp_path / "one.yaml"))
    assert code == 2 and "give -o a folder" in stderr
    assert not (tmp_path / "one.yaml").exists()
    forms = _copy(FORMS, tmp_path / "notes")
    code, _, _ = run("import", "obsidian", str(forms), "-o", f"{tmp_path}/decks/")
    assert code == 0
    library = load_library(tmp_path)
    assert not library.problems
    assert sorted(library.decks) == ["maths", "physics-waves"]


@pytest.mark.parametrize(
    ("content", "code", "message"),
    [(b"\xff\xfe not utf-8", 2, "not valid UTF-8"), (b"just notes\n", 1, "0 card(s)")],
)
def test_cli_bad_or_empty_input(tmp_path: Path, content: bytes, code: int, message: str) -> None:
    path = tmp_path / "n.md"
    path.write_bytes(content)
    result = run("import", "obsidian", str(path))
    assert result[0] == code
    assert message in result[2]


def test_imported_seed_cards_export_to_anki(tmp_path: Path) -> None:
    from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

    from studykit.export import export_anki

    decks, _ = parse(SEED)
    load_back(tmp_path / "root", decks["ai-ml"])
    result = export_anki(load_library(tmp_path / "root"), tmp_path / "seed.apkg")
    (tmp_path / "anki").mkdir()
    col = Collection(str(tmp_path / "anki" / "c.anki2"))
    try:
        options = ImportAnkiPackageOptions()
        col.import_anki_package(
            ImportAnkiPackageRequest(package_path=str(result.path), options=options)
        )
        assert (col.note_count(), col.card_count()) == (8, 8)
        card = col.get_card(col.find_cards("deck:ai-ml window")[0])
        assert r"\(\gamma^{k} = 0.01\)" in card.answer()
        assert "$" not in card.answer()
    finally:
        col.close()


def _cards(text: str) -> dict[str, list[tuple[str, str, str | None]]]:
    found = parse_obsidian(text, "n")
    return {d.id: [(c.kind, c.front, c.back) for c in d.cards] for d in found.decks}


def test_a_double_colon_card_ends_at_its_line() -> None:
    text = "#flashcards/x\nQ :: A\nFront\n?\nBack\n"
    assert _cards(text) == {"x": [("basic", "Q", "A"), ("basic", "Front", "Back")]}


def test_a_tag_inside_a_card_chooses_no_deck() -> None:
    found = parse_obsidian("#flashcards/a\nQ :: A #flashcards/b\nR :: S\n", "n")
    assert [(d.id, [c.front for c in d.cards]) for d in found.decks] == [("a", ["Q", "R"])]
    assert [str(r) for r in found.skipped] == [
        "2: a tag inside a card (not at its start) chooses no deck, as in the plugin"
    ]


def test_highlighted_maths_is_a_cloze() -> None:
    assert _cards("#flashcards/x\n==$E = mc^2$==\n") == {
        "x": [("cloze", "{{c1::$E = mc^2$}}", None)]
    }


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("%% Q :: A %%\n", "1: card syntax inside a %% comment: ignored, as the plugin does"),
        (
            "%%\nQ :: A\n==x==\n%%\n",
            "1-4: card syntax inside a %% comment: ignored, as the plugin does",
        ),
        ("Q :: A\n=====\n", "1: a setext heading (text over ===/---) is not a card"),
        ("The ==x==\n---\n", "1: a setext heading (text over ===/---) is not a card"),
        ("## Q :: A\n", "1: a heading is not a card"),
        ("Text\n\n    Q :: A\n    ==x==\n", None),
        ("Text\n\n\tQ :: A\n", None),
    ],
)
def test_comments_indented_code_and_headings_are_not_cards(text: str, why: str | None) -> None:
    found = parse_obsidian("#flashcards/x\n\n" + text, "n")
    assert found.decks == []
    reported = [str(r) for r in found.skipped]
    if why is None:
        assert reported == []
    else:
        line, rest = why.split(": ", 1)
        shifted = "-".join(str(int(n) + 2) for n in line.split("-"))
        assert reported == [f"{shifted}: {rest}"]


def test_an_indented_line_under_text_or_in_a_list_is_not_code() -> None:
    text = "#flashcards/x\n- item\n\n    Q :: A\n"
    assert _cards(text) == {"x": [("basic", "Q", "A")]}


def test_the_report_lists_card_like_lines_not_prose() -> None:
    prose = "".join(f"Paragraph {i} of plain notes.\n\n" for i in range(50))
    found = parse_obsidian("#flashcards/x\n" + prose + "Empty ::\n", "n")
    assert [str(r) for r in found.skipped] == ["102: `::` card with an empty side"]


@pytest.mark.parametrize(
    ("matter", "decks"),
    [
        ("tags: [flashcards/physics, other]", ["physics"]),
        ("tags:\n  - notes\n  - flashcards/a/b\n  - '#flashcards/c'", ["a-b", "c"]),
        ("title: My flashcards\ntags: [notes]", ["n"]),
    ],
)
def test_front_matter_tags(matter: str, decks: list[str]) -> None:
    found = parse_obsidian(f"---\n{matter}\n---\nQ :: A\n", "n")
    assert [d.id for d in found.decks] == decks
    assert found.tagged == (decks != ["n"])


def test_comment_marks_in_inline_code_open_no_comment() -> None:
    text = "#flashcards/x\nModulo in C :: `a %% b` and `<!--`\nNext :: card\n"
    assert _cards(text) == {
        "x": [("basic", "Modulo in C", "`a %% b` and `<!--`"), ("basic", "Next", "card")]
    }


def test_a_cloze_group_number_anki_makes_no_card_of_is_reported_and_the_rest_kept() -> None:
    text = "#flashcards/x\nThe ==gate==[^999] forgets.\n\nThe ==cell==[^500] keeps.\n\nQ ::: A\n"
    found = parse_obsidian(text, "n")
    assert [str(r) for r in found.skipped] == [
        "2: cloze number c999 is out of range: number deletions from c1 to c500 "
        "(Anki makes one card per number)"
    ]
    assert _cards(text) == {
        "x": [("cloze", "The {{c500::cell}} keeps.", None), ("reversed", "Q", "A")]
    }

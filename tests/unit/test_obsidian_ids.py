"""Obsidian card ids that hold: one deck rule alone and in a vault, block ids across edits."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from studykit.cli import cli
from studykit.core.config import resolve_settings
from studykit.importers.blockids import NoteRead, write_note
from studykit.importers.deckfiles import WriteRefused
from studykit.srs.scheduler import card_key
from studykit.study.session import Rating, StudySession

RNN = """#flashcards/ml
Why do RNN gradients vanish :: repeated multiplication by the same matrix
Self-attention ::: every token attends to every other token

The gradient of a long chain
?
a product of many Jacobians
"""


@pytest.fixture(autouse=True)
def _work_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("STUDYKIT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("STUDYKIT_ROOT", raising=False)


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "ml").mkdir(parents=True)
    (root / "ml" / "rnn.md").write_text(RNN, encoding="utf-8")
    (root / "ml" / "cnn.md").write_text("#flashcards/ml\nA kernel :: a small filter\n", "utf-8")
    return root


def _deck_ids(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.iterdir())


def test_a_file_alone_and_in_its_vault_gets_the_same_deck(vault: Path, tmp_path: Path) -> None:
    alone = vault / "ml" / "rnn.md"
    code, out = run("import", "obsidian", str(alone), "-o", "alone/", "--no-block-ids")
    assert code == 0, out
    code, out = run("import", "obsidian", str(vault), "-o", "whole/", "--no-block-ids")
    assert code == 0, out
    assert _deck_ids(tmp_path / "alone") == ["ml"]
    assert _deck_ids(tmp_path / "whole") == ["ml"]  # the tag, not the file or its folder
    whole = (tmp_path / "whole" / "ml.yaml").read_text(encoding="utf-8")
    assert whole.startswith('# Imported from "ml/cnn.md", "ml/rnn.md" by')
    alone_ids = (tmp_path / "alone" / "ml.yaml").read_text(encoding="utf-8")
    for line in alone_ids.splitlines():
        if line.startswith("  - id: "):
            assert line in whole  # each card has the same id both ways
    assert alone.read_text(encoding="utf-8") == RNN  # --no-block-ids: the notes untouched


def test_an_edited_question_keeps_its_id_and_history(vault: Path, tmp_path: Path) -> None:
    code, out = run("--root", "study", "import", "obsidian", str(vault), "-o", "study/decks/")
    assert code == 0, out
    note = vault / "ml" / "rnn.md"
    text = note.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[1].endswith(" ^why-do-rnn-gradients-vanish")
    assert lines[6] == "a product of many Jacobians ^the-gradient-of-a-long-chain"
    assert (vault / "ml" / "rnn.md.bak").read_text(encoding="utf-8") == RNN
    # only the block ids were added: the text without them is the note as it was
    assert "\n".join(line.rsplit(" ^", 1)[0] for line in lines) + "\n" == RNN

    settings = resolve_settings(root=tmp_path / "study", data_dir=tmp_path / "data")
    now = datetime(2026, 4, 5, 12, tzinfo=UTC)
    with StudySession.open(settings, clock=lambda: now) as session:
        card = session.study_card("ml", "why-do-rnn-gradients-vanish")
        session.answer(card, Rating.Good, duration_ms=1000)

    edited = text.replace("Why do RNN gradients vanish ::", "Why do gradients vanish in an RNN ::")
    edited = edited.replace("The gradient of a long chain", "A long chain's gradient")
    note.write_text(edited, encoding="utf-8")
    code, out = run("--root", "study", "import", "obsidian", str(vault), "-o", "study/decks/")
    assert code == 0, out
    assert "Wrote study/decks/ml.yaml" in out and "block ids into" not in out
    deck = (tmp_path / "study" / "decks" / "ml.yaml").read_text(encoding="utf-8")
    assert "front: Why do gradients vanish in an RNN" in deck
    assert "- id: why-do-rnn-gradients-vanish\n" in deck
    assert "- id: the-gradient-of-a-long-chain\n" in deck
    assert "why-do-gradients-vanish" not in deck
    with StudySession.open(settings, clock=lambda: now) as session:
        card = session.study_card("ml", "why-do-rnn-gradients-vanish")
        assert card.card.front.startswith("Why do gradients vanish in an RNN")
        history = session.store.history(card_key("ml", "why-do-rnn-gradients-vanish"))
        assert [answer.rating for answer in history] == [Rating.Good]


def test_a_block_id_of_the_authors_own_is_the_cards_id(tmp_path: Path) -> None:
    note = tmp_path / "words.md"
    note.write_text("#flashcards/words\nLaal :: red ^Colour-1\nHara :: green ^colour-1\n", "utf-8")
    code, out = run("import", "obsidian", str(note), "-o", "decks/words.yaml")
    assert code == 0, out
    deck = (tmp_path / "decks" / "words.yaml").read_text(encoding="utf-8")
    assert "- id: colour-1\n" in deck and "- id: colour-1-2\n" in deck
    assert "back: red\n" in deck  # the block id is not part of the answer
    assert "3: block id ^colour-1 is another card's id in its deck" in out
    assert note.read_text(encoding="utf-8").endswith("green ^colour-1\n")  # never rewritten


def test_a_card_ending_in_an_sr_comment_takes_its_id_after_it(tmp_path: Path) -> None:
    note = tmp_path / "sr.md"
    note.write_text("#flashcards\r\nOne :: 1 <!--SR:!2026-04-10,12,250-->\r\n", "utf-8")
    code, out = run("import", "obsidian", str(note), "-o", "decks/sr.yaml")
    assert code == 0, out
    assert note.read_bytes() == b"#flashcards\r\nOne :: 1 <!--SR:!2026-04-10,12,250--> ^one\r\n"
    code, out = run("import", "obsidian", str(note), "-o", "decks/sr.yaml")
    assert code == 0 and out.startswith("Nothing changed:"), out


def test_a_line_ending_inside_a_comment_takes_no_id_and_says_so(tmp_path: Path) -> None:
    note = tmp_path / "open.md"
    text = "#flashcards\nOne :: 1 %% a comment that goes on\nand ends here %%\n"
    note.write_text(text, encoding="utf-8")
    code, out = run("import", "obsidian", str(note), "-o", "decks/open.yaml")
    assert code == 1, out
    assert f"{note}:2: no block id written: its last line ends inside a comment" in out
    assert note.read_text(encoding="utf-8") == text and (tmp_path / "decks" / "open.yaml").exists()


def test_a_note_changed_since_it_was_read_is_not_written(tmp_path: Path) -> None:
    note = tmp_path / "vault" / "a.md"
    note.parent.mkdir()
    note.write_text("#flashcards\nOne :: 1\n", encoding="utf-8")
    read = NoteRead(note, note.read_bytes(), note.parent)
    note.write_text("#flashcards\nOne :: 1\nTwo :: 2\n", encoding="utf-8")
    with pytest.raises(WriteRefused, match="changed since it was read"):
        write_note(read, "#flashcards\nOne :: 1 ^one\n")
    assert note.read_text(encoding="utf-8") == "#flashcards\nOne :: 1\nTwo :: 2\n"
    assert not (note.parent / "a.md.bak").exists()


def test_a_note_that_leads_outside_the_vault_is_not_written(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("#flashcards\nOne :: 1\n", encoding="utf-8")
    (tmp_path / "vault").mkdir()
    os.symlink(outside, tmp_path / "vault" / "a.md")
    read = NoteRead(tmp_path / "vault" / "a.md", outside.read_bytes(), tmp_path / "vault")
    with pytest.raises(WriteRefused, match="leads outside"):
        write_note(read, "#flashcards\nOne :: 1 ^one\n")
    assert outside.read_text(encoding="utf-8") == "#flashcards\nOne :: 1\n"

"""`studykit import obsidian -o`: it replaces only deck files it wrote, and refuses the rest."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from studykit.cli import cli
from studykit.content.loading import load_library

AUTHOR_DECK = "id: author\nname: Mine\ncards:\n" + "".join(
    f"  - id: c{i}\n    front: Question {i}?\n    back: Answer {i}.\n" for i in range(50)
)
NOTE = "#flashcards\nSpeed of light :: $c$\nOne :: 1\n"


@pytest.fixture(autouse=True)
def _work_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The working folder is tmp_path (writes must stay inside it); the data dir too."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("STUDYKIT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("STUDYKIT_ROOT", raising=False)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def note(tmp_path: Path) -> Path:
    path = tmp_path / "notes" / "physics.md"
    path.parent.mkdir()
    path.write_text(NOTE, encoding="utf-8")
    return path


@pytest.fixture
def author(tmp_path: Path) -> Path:
    """A hand-written deck of 50 cards."""
    path = tmp_path / "decks" / "author.yaml"
    path.parent.mkdir()
    path.write_text(AUTHOR_DECK, encoding="utf-8")
    return path


def test_a_hand_written_deck_is_not_replaced(note: Path, author: Path) -> None:
    code, stdout, stderr = run("import", "obsidian", str(note), "-o", "decks/author.yaml")
    assert code == 2, stdout
    assert "decks/author.yaml exists and was not written by `studykit import obsidian`" in stderr
    assert "give -o another path, or --force to replace it (keeping a .bak copy)" in stderr
    assert author.read_text(encoding="utf-8") == AUTHOR_DECK
    assert sorted(p.name for p in author.parent.iterdir()) == ["author.yaml"]


def test_a_vault_note_does_not_replace_a_deck_of_the_same_name(
    tmp_path: Path, author: Path
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "author.md").write_text(NOTE, encoding="utf-8")
    (vault / "other.md").write_text("#flashcards\nQ :: A\n", encoding="utf-8")
    code, stdout, stderr = run("import", "obsidian", str(vault), "-o", "decks/")
    assert code == 2, stdout
    assert "decks/author.yaml: not replaced: it exists and was not written by" in stdout
    assert "1 deck file(s) were not written by this import" in stderr
    assert author.read_text(encoding="utf-8") == AUTHOR_DECK
    assert not (author.parent / "other.yaml").exists()  # refused before anything is written


def test_force_keeps_a_backup_under_a_fresh_name(note: Path, author: Path) -> None:
    older = author.with_name("author.yaml.bak")
    older.write_text("an older backup the user keeps\n", encoding="utf-8")
    code, stdout, _ = run("import", "obsidian", str(note), "-o", "decks/author.yaml", "--force")
    assert code == 0, stdout
    assert older.read_text(encoding="utf-8") == "an older backup the user keeps\n"
    fresh = author.with_name("author.yaml.1.bak")
    assert fresh.read_text(encoding="utf-8") == AUTHOR_DECK
    assert f"Kept the old decks/author.yaml as {fresh.name}" in stdout
    library = load_library(author.parents[1])
    assert not library.problems
    assert [card.id for card in library.decks["physics"].cards] == ["speed-of-light", "one"]


@pytest.mark.parametrize("exists", [True, False])
def test_an_output_that_is_not_yaml_is_refused(note: Path, tmp_path: Path, exists: bool) -> None:
    target = tmp_path / "notes.txt"
    if exists:
        target.write_text("my notes\n", encoding="utf-8")
    for extra in ([], ["--force"]):
        code, _, stderr = run("import", "obsidian", str(note), "-o", "notes.txt", *extra)
        assert code == 2
        assert "notes.txt: a deck file ends in .yaml or .yml" in stderr
    assert target.read_text(encoding="utf-8") == "my notes\n" if exists else not target.exists()


def test_a_target_outside_the_working_folder_is_refused(note: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    os.chdir(work)
    outside = tmp_path / "x.yaml"
    for extra in ([], ["--force"]):
        code, _, stderr = run("import", "obsidian", str(note), "-o", "../x.yaml", *extra)
        assert code == 2
        assert "is outside the working folder" in stderr
        assert "run the import from the study folder, or give --root FOLDER" in stderr
    assert not outside.exists()
    # A link inside the working folder that leads out is outside too.
    os.symlink(tmp_path, work / "up")
    code, _, stderr = run("import", "obsidian", str(note), "-o", "up/x.yaml")
    assert code == 2 and "is outside the working folder" in stderr
    assert not outside.exists()


def test_the_root_given_with_root_may_hold_the_output(note: Path, tmp_path: Path) -> None:
    root = tmp_path / "study"
    (root / "decks").mkdir(parents=True)
    os.chdir(note.parent)
    target = root / "decks" / "physics.yaml"
    code, stdout, _ = run("--root", str(root), "import", "obsidian", str(note), "-o", str(target))
    assert code == 0, stdout
    assert "physics" in load_library(root).decks


def test_a_reimport_updates_its_own_file_and_keeps_the_card_ids(note: Path, tmp_path: Path) -> None:
    target = tmp_path / "decks" / "physics.yaml"
    assert run("import", "obsidian", str(note), "-o", "decks/physics.yaml")[0] == 0
    first = load_library(tmp_path).decks["physics"]
    header = target.read_text(encoding="utf-8").splitlines()[0]
    assert header.startswith('# Imported from "physics.md" by `studykit import obsidian`')

    note.write_text(NOTE.replace("$c$", "$c = 3 \\cdot 10^8$") + "New :: card\n", "utf-8")
    code, stdout, _ = run("import", "obsidian", str(note), "-o", "decks/physics.yaml")
    assert code == 0, stdout
    assert "1 deck file(s) written" in stdout
    after = load_library(tmp_path).decks["physics"]
    assert [c.id for c in after.cards] == [*(c.id for c in first.cards), "new"]
    assert after.cards[0].back == "$c = 3 \\cdot 10^8$"
    assert sorted(p.name for p in target.parent.iterdir()) == ["physics.yaml"]  # no .bak


def test_a_deck_edited_after_its_import_is_not_replaced(note: Path, tmp_path: Path) -> None:
    target = tmp_path / "decks" / "physics.yaml"
    assert run("import", "obsidian", str(note), "-o", "decks/physics.yaml")[0] == 0
    edited = target.read_text(encoding="utf-8").replace("back: '1'", "back: one, by hand")
    target.write_text(edited, encoding="utf-8")
    note.write_text(NOTE + "New :: card\n", "utf-8")
    code, _, stderr = run("import", "obsidian", str(note), "-o", "decks/physics.yaml")
    assert code == 2
    assert "decks/physics.yaml was edited after `studykit import obsidian` wrote it" in stderr
    assert target.read_text(encoding="utf-8") == edited


def test_a_deck_imported_from_another_note_is_not_replaced(note: Path, tmp_path: Path) -> None:
    assert run("import", "obsidian", str(note), "-o", "decks/physics.yaml")[0] == 0
    before = (tmp_path / "decks" / "physics.yaml").read_bytes()
    other = note.with_name("maths.md")
    other.write_text("#flashcards\nTwo :: 2\n", encoding="utf-8")
    code, _, stderr = run("import", "obsidian", str(other), "-o", "decks/physics.yaml")
    assert code == 2
    assert 'decks/physics.yaml holds the import of "physics.md", not of "maths.md"' in stderr
    assert (tmp_path / "decks" / "physics.yaml").read_bytes() == before


def test_a_file_named_like_the_temporary_file_is_left_alone(note: Path, tmp_path: Path) -> None:
    (tmp_path / "decks").mkdir()
    mine = tmp_path / "decks" / ".physics.yaml.partial"
    mine.write_text("mine\n", encoding="utf-8")
    assert run("import", "obsidian", str(note), "-o", "decks/physics.yaml")[0] == 0
    assert mine.read_text(encoding="utf-8") == "mine\n"
    assert sorted(p.name for p in mine.parent.iterdir()) == [
        ".physics.yaml.partial",
        "physics.yaml",
    ]


def test_a_deck_from_an_older_import_without_checksum_is_kept_as_a_backup(
    note: Path, tmp_path: Path
) -> None:
    target = tmp_path / "decks" / "physics.yaml"
    target.parent.mkdir()
    older = (
        "# Imported from physics.md by `studykit import obsidian`.\n"
        "# Card ids come from the fronts; keep them when you edit (history hangs on them).\n"
        "id: physics\nname: physics\ncards:\n  - id: one\n    front: One\n    back: edited\n"
    )
    target.write_text(older, encoding="utf-8")
    code, _, stderr = run("import", "obsidian", str(note), "-o", "decks/physics.yaml")
    assert code == 2
    assert "was written by an older `studykit import obsidian`, with no checksum" in stderr
    assert target.read_text(encoding="utf-8") == older
    assert run("import", "obsidian", str(note), "-o", "decks/physics.yaml", "--force")[0] == 0
    assert target.with_name("physics.yaml.bak").read_text(encoding="utf-8") == older

"""Hostile vaults: links out of the vault are not read; odd names cannot inject YAML."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from studykit.cli import cli
from studykit.content.loading import load_library


@pytest.fixture(autouse=True)
def _work_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("STUDYKIT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("STUDYKIT_ROOT", raising=False)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "good.md").write_text("#flashcards\nKept :: yes\n", encoding="utf-8")
    return root


def _decks(tmp_path: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in sorted((tmp_path / "decks").iterdir()))


def test_links_that_leave_the_vault_are_not_read(vault: Path, tmp_path: Path) -> None:
    secret = tmp_path / "private" / "diary.md"
    secret.parent.mkdir()
    secret.write_text("#flashcards\nMy secret :: leaked\n", encoding="utf-8")
    (secret.parent / "more.md").write_text("#flashcards\nOther secret :: leaked\n", "utf-8")
    os.symlink(secret, vault / "diary.md")
    os.symlink(secret.parent, vault / "private")
    os.symlink(vault / "good.md", vault / "alias.md")  # a link inside the vault is read
    code, stdout, _ = run("import", "obsidian", str(vault), "-o", "decks/", "--folders-as-decks")
    assert code == 1, stdout
    why = "a link that leads outside the vault; it was not read"
    assert f"{vault / 'diary.md'}: skipped: {why}" in stdout
    assert f"{vault / 'private'}: skipped: {why}" in stdout
    written = _decks(tmp_path)
    assert "secret" not in written and "leaked" not in written
    # folders choose the decks: both notes at the vault's top feed the vault's deck
    assert sorted(p.name for p in (tmp_path / "decks").iterdir()) == ["vault.yaml"]
    assert written.startswith('# Imported from "alias.md", "good.md" by')


def test_a_link_to_a_system_file_is_not_read(vault: Path, tmp_path: Path) -> None:
    os.symlink("/etc/passwd", vault / "passwd.md")
    code, stdout, _ = run("import", "obsidian", str(vault), "-o", "decks/", "--folders-as-decks")
    assert code == 1
    assert f"{vault / 'passwd.md'}: skipped: a link that leads outside the vault" in stdout
    assert "root" not in _decks(tmp_path)


@pytest.mark.parametrize(
    "name", ["a\nnew_per_day: 9999\n#.md", "b\rnew_per_day: 9999.md", "c\u2028new_per_day: 1.md"]
)
def test_a_note_name_cannot_inject_yaml(vault: Path, tmp_path: Path, name: str) -> None:
    (vault / name).write_text("#flashcards\nQ :: A\n", encoding="utf-8")
    code, stdout, _ = run("import", "obsidian", str(vault), "-o", "decks/")
    assert code == 0, stdout
    library = load_library(tmp_path)
    assert not library.problems
    [deck] = [d for d in library.decks.values() if d.id != "good"]
    assert deck.new_per_day is None
    assert deck.name == name.removesuffix(".md")
    assert deck.description == f"Imported from {name}"
    text = (tmp_path / "decks" / f"{deck.id}.yaml").read_text(encoding="utf-8")
    header, rest = text.split("\n", 1)
    assert header.startswith("# Imported from ") and rest.startswith("# ")
    quoted = header.removeprefix("# Imported from ").split(" by `studykit import obsidian`")[0]
    assert yaml.safe_load(quoted) == name  # the YAML library's own quoting, read back


def test_one_note_whose_deck_does_not_load_is_skipped_and_the_rest_imported(
    vault: Path, tmp_path: Path
) -> None:
    (vault / "pictures.md").write_text("#flashcards\nWhat is shown? :: ![a](a.png)\n", "utf-8")
    code, stdout, _ = run("import", "obsidian", str(vault), "-o", "decks/")
    assert code == 1, stdout
    assert f"{vault / 'pictures.md'}: skipped: its deck does not load: " in stdout
    assert "image `a.png` not found" in stdout
    assert sorted(p.name for p in (tmp_path / "decks").iterdir()) == ["good.yaml"]
    assert "1 card(s) in 1 deck(s)" in stdout and "1 note(s) not imported" in stdout


def test_a_note_whose_name_is_not_utf8_is_skipped_and_the_rest_imported(
    vault: Path, tmp_path: Path
) -> None:
    (vault / os.fsdecode(b"bad\xffname.md")).write_text("#flashcards\nQ :: A\n", "utf-8")
    code, stdout, _ = run("import", "obsidian", str(vault), "-o", "decks/")
    assert code == 1, stdout
    assert "bad\\udcffname.md: skipped: its path is not valid UTF-8; rename it" in stdout
    assert sorted(p.name for p in (tmp_path / "decks").iterdir()) == ["good.yaml"]

"""`studykit import obsidian VAULT/`: tags choose the decks, idempotent, schedules imported once."""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from studykit.cli import cli
from studykit.core.config import resolve_settings
from studykit.core.files import MAX_FILE_BYTES
from studykit.srs.studyday import rollover
from studykit.study.session import Rating, StudySession

NOTE = """---
tags: [flashcards/physics]
---
# Waves

Speed of light :: $c$
<!--SR:!2026-04-10,12,250-->

Wave front
?
Back of the wave
<!--SR:!2026-04-02,3,130-->

Plain prose, no card.
"""


def run(data: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner(env={"STUDYKIT_DATA_DIR": str(data)}).invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(autouse=True)
def _work_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The import writes only inside the working folder: make that tmp_path."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "Physics").mkdir(parents=True)
    (root / ".obsidian" / "plugins").mkdir(parents=True)
    (root / "Physics" / "Waves.md").write_text(NOTE, encoding="utf-8")
    (root / "Other.md").write_text("#flashcards\nOne :: 1\n", encoding="utf-8")
    (root / ".obsidian" / "plugins" / "hidden.md").write_text(
        "#flashcards\nNo :: card\n", encoding="utf-8"
    )
    (root / "picture.png").write_bytes(b"\x89PNG")
    (root / "Books.md").write_text("Author:: Ada\nYear:: 1843\n", encoding="utf-8")
    return root


def test_a_vault_gives_one_deck_per_tag_and_a_second_run_changes_nothing(
    vault: Path, tmp_path: Path
) -> None:
    out, data = tmp_path / "study" / "decks", tmp_path / "data"
    code, stdout, _ = run(data, "import", "obsidian", str(vault), "-o", f"{out}/")
    assert code == 0, stdout
    assert sorted(p.name for p in out.iterdir()) == ["other.yaml", "physics.yaml"]
    assert "3 card(s) in 2 deck(s), 2 deck file(s) written, 0 unchanged" in stdout
    assert "2 note(s) given their cards' block ids" in stdout
    assert "2 schedule(s) imported, 0 already here" in stdout
    why = "card syntax but no #flashcards tag (see --folders-as-decks)"
    assert f"{vault / 'Books.md'}: skipped: {why}" in stdout
    waves = (out / "physics.yaml").read_text(encoding="utf-8")
    assert waves.startswith('# Imported from "Physics/Waves.md" by')
    assert "name: physics" in waves and "tags:" not in waves
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}

    code, stdout, _ = run(data, "import", "obsidian", str(vault), "-o", f"{out}/")
    assert code == 0
    assert stdout.splitlines()[-1].startswith(
        "Nothing changed: 3 card(s) in 2 deck(s), 0 deck file(s) written"
    )
    assert "0 schedule(s) imported, 2 already here" in stdout
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before
    with sqlite3.connect(data / "studykit.sqlite3") as conn:
        rows = conn.execute("SELECT card_id, source FROM review_log ORDER BY card_id").fetchall()
    assert rows == [("speed-of-light", "obsidian"), ("wave-front", "obsidian")]


def test_an_imported_schedule_is_the_cards_starting_state(vault: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert run(data, "import", "obsidian", str(vault), "-o", f"{tmp_path}/study/decks/")[0] == 0
    settings = resolve_settings(root=tmp_path / "study", data_dir=data)
    now = datetime(2026, 4, 5, 12, tzinfo=UTC)
    with StudySession.open(settings, clock=lambda: now) as session:
        speed = session.study_card("physics", "speed-of-light")
        wave = session.study_card("physics", "wave-front")
        assert session.is_due(wave) and not session.is_due(speed)  # due 2 Apr vs 10 Apr
        [state] = [s for s in session.store.states_in(["physics"]) if s.card_id == "speed-of-light"]
        assert state.due == rollover(date(2026, 4, 10), hour=settings.rollover_hour, tz=None)
        assert state.stability == 12.0
        [row] = session.store.history(state.key)
        assert row.imported and row.reviewed_at == rollover(
            date(2026, 3, 29), hour=settings.rollover_hour, tz=None
        )
        # not an answer: the optimizer, undo, today's counts and stats leave it out
        assert session.review_rows() == [] and not session.has_reviews()
        assert session.store.last_answer() is None
        stats = session.stats()
        assert sum(stats.heatmap.values()) == 0 and stats.reviews_today == 0
        # an answer after the import is replayed from the imported state
        session.answer(wave, Rating.Good, duration_ms=1000)
        assert len(session.review_rows()) == 1
        assert session.reschedule() == 2
        # replayed from the imported state, the unanswered card keeps it exactly
        assert session.store.get_state(state.key) == state


def test_a_fifo_and_an_oversized_note_in_a_vault_are_reported_not_read(
    vault: Path, tmp_path: Path
) -> None:
    os.mkfifo(vault / "pipe.md")
    (vault / "huge.md").write_bytes(b"Q :: A\n" * (MAX_FILE_BYTES // 7 + 1))
    code, stdout, _ = run(
        tmp_path / "data", "import", "obsidian", str(vault), "-o", f"{tmp_path}/d/"
    )
    assert code == 1  # the rest is imported, and the exit says something was not
    assert f"{vault / 'pipe.md'}: skipped: a named pipe (FIFO)" in stdout
    assert f"{vault / 'huge.md'}: skipped: the file is 5.0 MB, over the 5 MB limit" in stdout
    assert "3 card(s) in 2 deck(s)" in stdout and "2 note(s) not imported" in stdout


def test_an_oversized_single_file_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    big.write_bytes(b"Q :: A\n" * (MAX_FILE_BYTES // 7 + 1))
    code, _, stderr = run(tmp_path / "data", "import", "obsidian", str(big))
    assert code == 2 and "over the 5 MB limit" in stderr


@pytest.mark.parametrize("output", [None, "decks/one.yaml"])
def test_a_folder_needs_an_output_folder(vault: Path, tmp_path: Path, output: str | None) -> None:
    args = ["import", "obsidian", str(vault)]
    if output is not None:
        args += ["-o", str(tmp_path / output)]
    code, _, stderr = run(tmp_path / "data", *args)
    assert code == 2 and "give -o FOLDER/" in stderr
    assert not (tmp_path / "decks").exists()


def test_no_schedules_leaves_the_database_alone(vault: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    code, stdout, _ = run(
        data, "import", "obsidian", str(vault), "-o", f"{tmp_path}/d/", "--no-schedules"
    )
    assert code == 0 and "2 schedule(s) not imported (--no-schedules)" in stdout
    assert not (data / "studykit.sqlite3").exists()


def test_more_cards_than_one_import_takes_are_refused_before_writing(tmp_path: Path) -> None:
    from studykit.commands.importing import MAX_IMPORT_CARDS

    many = tmp_path / "many.md"
    many.write_text("".join(f"Q{i} :: A\n" for i in range(MAX_IMPORT_CARDS + 1)), "utf-8")
    code, _, stderr = run(
        tmp_path / "data", "import", "obsidian", str(many), "-o", f"{tmp_path}/d/"
    )
    assert code == 2
    assert f"{MAX_IMPORT_CARDS + 1:,} cards is over the {MAX_IMPORT_CARDS:,} one import takes" in (
        stderr
    )
    assert not (tmp_path / "d").exists()


def test_folders_as_decks_reads_untagged_notes(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "decks"
    args = ["import", "obsidian", str(vault), "-o", f"{out}/", "--folders-as-decks"]
    code, stdout, _ = run(tmp_path / "data", *args)
    # the plugin's folder decks: a note's folder is its deck, its tags are card tags
    assert code == 0 and "5 card(s) in 2 deck(s)" in stdout, stdout
    top = (out / "vault.yaml").read_text(encoding="utf-8")
    assert top.startswith('# Imported from "Books.md", "Other.md" by') and "name: vault" in top
    waves = (out / "physics.yaml").read_text(encoding="utf-8")
    assert "name: Physics" in waves and "tags:\n      - physics" in waves


SIBLINGS = """#flashcards/words
Self-attention ::: Every token attends to every other
<!--SR:!2026-04-10,12,250!2026-04-03,4,230-->

Colours: ==laal== is red, ==hara== is green, ==neela== is blue
<!--SR:!2026-04-05,6,250!2026-04-06,7,250!2026-04-07,8,270-->

One way :: only
<!--SR:!2026-04-08,9,250!2026-04-09,10,250-->
"""


def test_every_siblings_schedule_is_imported_and_an_extra_one_reported(tmp_path: Path) -> None:
    source = tmp_path / "Words.md"
    source.write_text(SIBLINGS, encoding="utf-8")
    out, data = tmp_path / "decks", tmp_path / "data"
    code, stdout, _ = run(data, "import", "obsidian", str(source), "-o", f"{out}/")
    assert code == 0, stdout
    assert "6 schedule(s) imported, 0 already here" in stdout  # 2 + 3 + 1 of 7 entries
    assert "1 card(s) with more SR entries than siblings" in stdout
    assert "words/one-way: its SR comment has 2 entries but the card has 1 sibling(s)" in stdout
    with sqlite3.connect(data / "studykit.sqlite3") as conn:
        rows = conn.execute(
            "SELECT card_id, ordinal, round(stability) FROM card_state ORDER BY card_id, ordinal"
        ).fetchall()
    cards = {card_id for card_id, _, _ in rows}
    reversed_id = next(c for c in cards if c.startswith("self-attention"))
    cloze_id = next(c for c in cards if c.startswith("colours"))
    assert [(o, s) for c, o, s in rows if c == reversed_id] == [(1, 12.0), (2, 4.0)]
    assert [(o, s) for c, o, s in rows if c == cloze_id] == [(1, 6.0), (2, 7.0), (3, 8.0)]
    assert [(o, s) for c, o, s in rows if c == "one-way"] == [(1, 9.0)]

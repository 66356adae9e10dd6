"""`studykit sync obsidian VAULT`: the plugin's newer schedules come in as answers, studykit's
go out into the SR comments of the cards from that vault, and only the comments change."""

from __future__ import annotations

import re
from datetime import UTC, timedelta
from pathlib import Path

import pytest

from studykit.cli import main
from studykit.content.loading import load_library
from studykit.core.config import Settings
from studykit.srs.records import OBSIDIAN_ANSWER_SOURCE
from studykit.srs.scheduler import Rating, card_key
from studykit.srs.store import Store
from studykit.study.session import StudySession
from studykit.sync.obsidian import _notes, _write_note, plugin_entry, sync_obsidian

NOTE = """# Biology
#flashcards
What is DNA::Deoxyribonucleic acid <!--SR:!{due},4,250-->
Capital of France::Paris
Long question
?
Long answer
Photosynthesis:::Light into sugar <!--SR:!{due},3,250!{due},5,230-->
"""
_SR_LINE = re.compile(r"^<!--SR:[^>]*-->\n", re.MULTILINE)
_SR = re.compile(r" ?<!--SR:[^>]*-->")


def _without_comments(text: str) -> str:
    return _SR.sub("", _SR_LINE.sub("", text))


@pytest.fixture
def vault_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Settings]:
    vault, root = tmp_path / "vault", tmp_path / "study"
    vault.mkdir()
    (root / "decks").mkdir(parents=True)
    settings = Settings(root=root, data_dir=tmp_path / "data", enable_fuzzing=False)
    session = _session(settings)
    today = session.study_day(session.now())
    session.close()
    (vault / "Bio.md").write_text(NOTE.format(due=today + timedelta(days=2)), encoding="utf-8")
    monkeypatch.chdir(root)
    with pytest.raises(SystemExit) as done:
        main(
            [
                "--root",
                str(root),
                "--data-dir",
                str(settings.data_dir),
                "import",
                "obsidian",
                str(vault),
                "-o",
                "decks/",
            ]
        )
    assert done.value.code in (0, None)
    return vault, settings


def _session(settings: Settings) -> StudySession:
    (settings.root / "decks").mkdir(parents=True, exist_ok=True)
    library = load_library(settings.root)
    return StudySession(
        library, Store.open(settings.database_path), settings, tz=UTC, enable_fuzzing=False
    )


def _ids(session: StudySession) -> dict[str, str]:
    deck = session.library.decks["bio"]
    return {card.front.split()[-1].rstrip("?:"): card.id for card in deck.cards}


def test_studykit_schedules_go_into_the_comments_and_nothing_else(
    vault_root: tuple[Path, Settings],
) -> None:
    vault, settings = vault_root
    note = vault / "Bio.md"
    before = note.read_text()
    session = _session(settings)
    try:
        ids = _ids(session)
        first = sync_obsidian(session, vault)
        assert first.answers_in == 0 and first.written == []  # the imported schedule, as is
        session.answer(session.study_card("bio", ids["France"]), Rating.Good, duration_ms=2000)
        session.answer(session.study_card("bio", ids["question"]), Rating.Easy, duration_ms=2000)
        session.answer(session.study_card("bio", ids["Photosynthesis"]), Rating.Good, duration_ms=1)
        report = sync_obsidian(session, vault)
    finally:
        session.close()
    # the import kept Bio.md.bak when it wrote the block ids; the sync never writes over it
    assert report.written == [str(note)] and report.backups == ["Bio.md.1.bak"]
    after = note.read_text()
    assert _without_comments(after) == _without_comments(before)  # the note's text is untouched
    lines = after.splitlines()
    # a new comment goes before the block id, which Obsidian reads only at the line's end
    assert re.fullmatch(
        r"Capital of France::Paris <!--SR:![\d-]+,\d+,\d+--> \^capital-of-france", lines[3]
    )
    assert lines[6] == "Long answer ^long-question"
    assert re.fullmatch(r"<!--SR:![\d-]+,\d+,\d+-->", lines[7])
    # A sibling studykit keeps no schedule of its own for keeps the plugin's entry.
    second = re.findall(r"!([\d-]+,\d+,\d+)", lines[8])
    assert len(second) == 2 and second[1].endswith(",5,230")
    assert second[0] != re.findall(r"!([\d-]+,\d+,\d+)", before.splitlines()[7])[0]
    assert (vault / "Bio.md.1.bak").read_text() == before
    assert sync_obsidian(_session(settings), vault).written == []  # nothing new to write


def test_a_plugin_review_comes_in_as_an_answer_once(vault_root: tuple[Path, Settings]) -> None:
    vault, settings = vault_root
    note = vault / "Bio.md"
    session = _session(settings)
    try:
        dna = _ids(session)["DNA"]
        today = session.study_day(session.now())
        ease = plugin_entry(session, session.store.get_state(card_key("bio", dna)))
        assert ease is not None
        # The plugin's Easy today: ease up by 20, ten days on.
        text = note.read_text().replace(
            re.search(r"<!--SR:[^>]*-->", note.read_text()).group(),  # type: ignore[union-attr]
            f"<!--SR:!{today + timedelta(days=10)},10,{ease.ease + 20}-->",
        )
        note.write_text(text)
        report = sync_obsidian(session, vault)
        assert report.answers_in == 1
        history = session.store.history(card_key("bio", dna))
        assert [(a.source, a.rating) for a in history][-1] == (OBSIDIAN_ANSWER_SOURCE, Rating.Easy)
        assert session.study_day(history[-1].reviewed_at) == today
        assert report.written == [str(note)]  # studykit's schedule is in the comment now
        again = sync_obsidian(session, vault)
        assert again.answers_in == 0 and again.written == []
        assert len(session.store.history(card_key("bio", dna))) == len(history)
    finally:
        session.close()


def test_a_plugin_review_is_read_once_even_when_its_comment_was_not_rewritten(
    vault_root: tuple[Path, Settings],
) -> None:
    from studykit.sync.obsidian import VaultReport, take_in_reviews

    vault, settings = vault_root
    note = vault / "Bio.md"
    session = _session(settings)
    try:
        dna = _ids(session)["DNA"]
        today = session.study_day(session.now())
        text = re.sub(
            r"<!--SR:[^>]*-->",
            f"<!--SR:!{today + timedelta(days=9)},9,250-->",
            note.read_text(),
            count=1,
        )
        note.write_text(text)
        report = VaultReport(str(vault))
        for _ in range(2):  # read twice, as after a write-back that was refused
            notes, _ = _notes(session, vault)
            take_in_reviews(session, notes, report)
        assert report.answers_in == 1
        sources = [a.source for a in session.store.history(card_key("bio", dna))]
        assert sources.count(OBSIDIAN_ANSWER_SOURCE) == 1
    finally:
        session.close()


def test_a_note_changed_since_it_was_read_is_left_alone(vault_root: tuple[Path, Settings]) -> None:
    vault, settings = vault_root
    note = vault / "Bio.md"
    session = _session(settings)
    try:
        france = _ids(session)["France"]
        session.answer(session.study_card("bio", france), Rating.Good, duration_ms=2000)
        (read,), _ = _notes(session, vault)
        note.write_text(note.read_text() + "A line typed in Obsidian meanwhile.\n")
        changed = note.read_text()
        from studykit.sync.obsidian import VaultReport

        report = VaultReport(str(vault))
        _write_note(session, read, report)
    finally:
        session.close()
    assert report.written == [] and "changed since it was read" in report.refused[0]
    assert note.read_text() == changed
    assert not (vault / "Bio.md.1.bak").exists()

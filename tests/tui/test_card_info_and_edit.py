"""Pilot: `e` in review edits the card in $EDITOR and reloads; `i` shows the card's info."""

from __future__ import annotations

import re
import stat
from datetime import timedelta
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from studykit.core.config import Settings
from studykit.study.session import Rating
from studykit.tui.app import StudykitApp, make_app
from studykit.tui.palette import palette_commands
from studykit.tui.screens.card_info import CardInfoScreen
from studykit.tui.screens.experiments import ExperimentsScreen
from studykit.tui.screens.review import ReviewScreen
from tests.conftest import FakeClock

from .helpers import at_home, screen_text, settle
from .test_browser import DECK, MakeSession, deck_root, line_of, notes, open_browser

SIZE = (120, 40)


def review(app: StudykitApp) -> ReviewScreen:
    assert isinstance(app.screen, ReviewScreen)
    return app.screen


def on_card(app: StudykitApp) -> bool:
    """Review is up, showing a card."""
    return isinstance(app.screen, ReviewScreen) and app.screen.card is not None


def recording_editor(tmp_path: Path, record: Path, *, edit: str = "") -> str:
    """A shell-script editor that writes its argv to `record` and runs `edit` on its file."""
    editor = tmp_path / "fake editor.sh"
    editor.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{record}"\n{edit}\n')
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    return f"'{editor}'"


async def test_e_in_review_edits_the_card_then_the_edited_card_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = deck_root(tmp_path)
    path = root / "decks" / "demo.yaml"
    record = tmp_path / "argv.txt"
    edit = f"sed -i 's/Why are RNNs slow?/Why are recurrent nets slow?/' \"{path}\""
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", recording_editor(tmp_path, record, edit=edit))
    app = make_app(Settings(root=root, data_dir=tmp_path / "data"), start="review")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: on_card(app))
        old = app.session
        assert "Why are RNNs slow?" in screen_text(app)
        await pilot.press("e")
        await settle(pilot, lambda: app.session is not old)
        await settle(pilot, lambda: on_card(app))
        await settle(pilot, lambda: "Why are recurrent nets slow?" in screen_text(app))
        assert review(app).session is app.session
    expected = line_of(DECK, "- id: sequential")
    assert record.read_text().splitlines() == [f"+{expected}", str(path)]


async def test_e_in_review_without_a_working_editor_says_so_and_stays(
    tmp_path: Path, make_session: MakeSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    from studykit.content.loading import load_library

    session = make_session(load_library(deck_root(tmp_path)))
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app = make_app(session.settings, session=session, start="review")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: on_card(app))
        await pilot.press("e")
        await settle(pilot, lambda: any("Set $EDITOR" in note for note in notes(app)))
        monkeypatch.setenv("EDITOR", "false")
        await pilot.press("e")
        await settle(pilot, lambda: any("exited with status 1" in n for n in notes(app)))
        assert isinstance(app.screen, ReviewScreen) and app.session is session
        # Experiments stay one palette entry away from review, and `e` on home.
        assert app.session is not None
        commands = {command.title: command for command in palette_commands(app)}
        assert "Experiments" in commands
        await pilot.press("escape")
        await settle(pilot, lambda: at_home(app))
        await pilot.press("e")
        await settle(pilot, lambda: isinstance(app.screen, ExperimentsScreen))


def facts(app: StudykitApp) -> str:
    return str(app.screen.query_one("#card-info-facts", Static).render())


async def test_i_in_review_shows_the_cards_info_and_i_or_escape_closes_it(
    tmp_path: Path, make_session: MakeSession
) -> None:
    from studykit.content.loading import load_library

    session = make_session(load_library(deck_root(tmp_path)))
    app = make_app(session.settings, session=session, start="review")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: on_card(app))
        for close in ("i", "escape"):
            await pilot.press("i")
            await settle(pilot, lambda: isinstance(app.screen, CardInfoScreen))
            info = app.screen
            assert isinstance(info, CardInfoScreen)
            await settle(pilot, lambda: info.detail is not None)  # noqa: B023
            text = screen_text(app)
            line = line_of(DECK, "- id: sequential")
            assert "demo/sequential" in text and f"decks/demo.yaml:{line}" in text
            assert "never reviewed" in text and "Retrievability" in text
            await pilot.press(close)
            await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))


async def test_i_in_the_browser_shows_history_memory_and_recall_now(
    tmp_path: Path, make_session: MakeSession, fixed_clock: FakeClock
) -> None:
    from studykit.content.loading import load_library

    session = make_session(load_library(deck_root(tmp_path)))
    card = session.study_card("demo", "decay")
    session.answer(card, Rating.Good, duration_ms=10)
    fixed_clock.advance(timedelta(days=1))
    session.answer(session.study_card("demo", "decay"), Rating.Again, duration_ms=10)
    fixed_clock.advance(timedelta(days=3))
    detail = session.card_detail(card)
    recall = detail.retrievability
    assert recall is not None and 0 < recall < 1
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(app, pilot, 3)
        await pilot.press("down")
        await settle(
            pilot, lambda: screen.detail is not None and screen.detail.row.name == "demo/decay"
        )
        await pilot.press("i")
        await settle(pilot, lambda: isinstance(app.screen, CardInfoScreen))
        info = app.screen
        assert isinstance(info, CardInfoScreen)
        await settle(pilot, lambda: info.detail is not None)
        text = screen_text(app)
        row = detail.row
        assert row.stability is not None and row.difficulty is not None and row.due is not None
        assert f"{recall:.0%} now" in text
        assert f"{row.stability:.2f} days" in text and f"{row.difficulty:.2f}" in text
        assert f"{row.due:%Y-%m-%d %H:%M}" in text  # UTC in these tests
        assert re.search(r"State +learning", text) and re.search(r"Lapses +0", text)
        history = info.query_one("#card-info-history", DataTable)
        assert history.row_count == 2
        assert [str(history.get_row_at(i)[1]) for i in range(2)] == ["Again", "Good"]
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is screen)

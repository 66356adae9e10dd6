"""Pilot: the notes screen and the review screen show a cited claim's value, never `{claim:…}`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from studykit.content.loading import load_library
from studykit.core.config import Settings
from studykit.study.session import StudySession
from studykit.tui.app import make_app
from studykit.tui.messages import NotesRequested
from studykit.tui.screens.home import HomeScreen
from studykit.tui.screens.notes import NotesScreen, SectionView
from studykit.tui.screens.review import ReviewScreen
from tests.unit.test_citations import write_root

from .helpers import screen_text, settle

SIZE = (120, 40)


async def test_notes_screen_shows_the_claims_value(
    make_session: Callable[..., StudySession], tmp_settings: Settings
) -> None:
    library = load_library(tmp_settings.root)
    session = make_session(library)
    app = make_app(tmp_settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.post_message(NotesRequested("rnn-limitations", "vanishing-gradient"))
        await settle(pilot, lambda: isinstance(app.screen, NotesScreen))
        view = app.screen.query_one("#section-vanishing-gradient", SectionView)
        assert "(0.95)²⁹⁵ ≈ 2.68 × 10⁻⁷" in view.markdown.replace("\\", "")
        assert "{claim" not in view.markdown and "{measured" not in view.markdown
        await pilot.pause()
        shown = " ".join(screen_text(app).split())
        assert "{claim" not in shown and "\\times" not in shown


async def test_review_back_shows_the_claims_value(
    make_session: Callable[..., StudySession], tmp_settings: Settings, tmp_path: Path
) -> None:
    settings = Settings(root=write_root(tmp_path / "root"), data_dir=tmp_path / "data")
    session = make_session(load_library(settings.root), settings=settings)
    app = make_app(settings, session=session, start="review", deck_id="demo")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await settle(pilot, lambda: screen.card is not None)
        assert "295 Jacobians ke baad?" in screen_text(app)
        await pilot.press("space")
        await settle(pilot, lambda: screen.revealed)
        await pilot.pause()
        shown = screen_text(app)
        assert "2.68 × 10⁻⁷ — yaani 2.68 × 10⁻⁷." in shown and "{claim" not in shown

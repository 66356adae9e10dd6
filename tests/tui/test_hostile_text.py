"""Terminal escapes in content show escaped on the screens that print them, never raw."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

from textual.widgets import Static

from studykit.content.loading import load_library
from studykit.core.config import Settings
from studykit.study.quiz_questions import QuizAnswer
from studykit.study.session import StudySession
from studykit.tui.app import make_app
from studykit.tui.messages import ReviewScope
from studykit.tui.screens.quiz import QuizScoreScreen
from studykit.tui.widgets.deck_tree import DeckTree
from tests.tui.helpers import at_home, plain, screen_text, settle

ESCAPES = Path(__file__).resolve().parents[1] / "data" / "escapes"
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
MakeSession = Callable[..., StudySession]


def _settings(tmp_path: Path) -> Settings:
    root = tmp_path / "root"
    shutil.copytree(ESCAPES, root)
    return Settings(root=root, data_dir=tmp_path / "data", enable_fuzzing=False)


async def test_home_shows_the_deck_description_escaped(
    tmp_path: Path, make_session: MakeSession
) -> None:
    settings = _settings(tmp_path)
    app = make_app(settings, session=make_session(load_library(settings.root), settings=settings))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, lambda: at_home(app))
        tree = app.screen.query_one(DeckTree)
        [group] = tree.root.children
        tree.move_cursor(group.children[0])  # the deck itself: its description shows
        info = app.screen.query_one("#deck-info", Static)
        await settle(pilot, lambda: "desc" in plain(info))
        assert plain(info).startswith("desc \\x1b[2J \\x9b1m \\x1b]8;;http://x\\x1b\\L")
        await pilot.pause()
        assert not CONTROL.search(screen_text(app)), screen_text(app)


async def test_the_quiz_misses_show_escaped(tmp_path: Path, make_session: MakeSession) -> None:
    settings = _settings(tmp_path)
    session = make_session(load_library(settings.root), settings=settings)
    app = make_app(settings, session=session)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, lambda: at_home(app))
        card = session.study_card("evil", "basic")
        miss = QuizAnswer(card, False, "Front \x1b]0;F\x07 \x9b2J", "Back \x1b]8;;x\x1b\\", "\x7f")
        app.push_screen(QuizScoreScreen(ReviewScope("All decks"), [miss]))
        await settle(pilot, lambda: isinstance(app.screen, QuizScoreScreen))
        misses = plain(app.screen.query_one("#quiz-misses", Static))
        assert "• Front \\x1b]0;F\\x07 \\x9b2J" in misses
        assert "answer: Back \\x1b]8;;x\\x1b\\  (you: \\x7f)" in misses
        await pilot.pause()
        assert not CONTROL.search(screen_text(app)), screen_text(app)

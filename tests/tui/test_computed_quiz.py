"""Pilot: a quiz of three questions, typed and self-graded, to its score screen."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from textual.widgets import Button, Input, Static

from studykit.content.model import Deck
from studykit.core.config import Settings
from studykit.study.session import Rating, StudySession
from studykit.tui.app import make_app
from studykit.tui.screens.quiz import CRAM_NOTE, QuizScoreScreen, QuizScreen
from studykit.tui.widgets.answer_panel import AnswerPanel
from tests.conftest import make_library

from .helpers import at_home, plain, screen_text, settle

SIZE = (120, 40)
MakeSession = Callable[..., StudySession]

DECK = Deck.model_validate(
    {
        "id": "mixed",
        "name": "Demo::Mixed",
        "cards": [
            {
                "id": "positions",
                "kind": "numeric",
                "front": "{batch} × {seq} positions?",
                "params": {"batch": {"choices": [32]}, "seq": {"choices": [512]}},
                "answer": "batch*seq",
                "tolerance": {"abs": 0.5},
            },
            {
                "id": "scale",
                "kind": "numeric",
                "front": "d_k = {d_k}: divide the logits by?",
                "params": {"d_k": {"choices": [64]}},
                "answer": "sqrt(d_k)",
            },
            {"id": "plain-1", "front": "Why are RNNs slow?", "back": "Sequential."},
            {"id": "plain-2", "front": "What fixes the bottleneck?", "back": "Attention."},
        ],
    }
)
# What the student answers: right for `positions` and `plain-1`, wrong for the others.
TYPED = {"positions": "16384", "scale": "64"}
SELF_GRADED = {"plain-1": "3", "plain-2": "1"}


def waiting_at(screen: QuizScreen, answered: int) -> Callable[[], bool]:
    """True once `answered` questions are done and the next one waits unrevealed."""
    return lambda: len(screen.answers) == answered and not screen.revealed


@pytest.mark.parametrize("counts", [False, True], ids=["cramming", "quiz_counts"])
async def test_a_quiz_of_three_reaches_its_score_and_feeds_the_schedule_only_if_set(
    make_session: MakeSession, tmp_settings: Settings, counts: bool
) -> None:
    settings = replace(tmp_settings, quiz_counts=counts)
    session = make_session(make_library([DECK]), settings=settings)
    app = make_app(session.settings, session=session, start="quiz", deck_id="mixed", questions=3)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, QuizScreen))
        screen = app.screen
        assert isinstance(screen, QuizScreen)
        await settle(pilot, lambda: screen.card is not None)
        assert len(screen.questions) == 3
        kinds = {card.card.kind for card in screen.questions}
        assert kinds == {"numeric", "basic"}  # a mix of computed and ordinary cards
        asked = []
        for number in range(1, 4):
            await settle(pilot, waiting_at(screen, number - 1))
            card = screen.card
            assert card is not None
            asked.append(card.card.id)
            progress = plain(screen.query_one("#quiz-progress", Static))
            assert progress.startswith(f"Question {number} of 3")
            cram = screen.query_one("#quiz-cram", Static)
            assert cram.display is not counts  # every card here is new, not due
            assert CRAM_NOTE in screen_text(app) or counts
            if card.card.id in TYPED:
                assert screen.query_one("#quiz-answer Input", Input).has_focus
                await pilot.press(*TYPED[card.card.id], "enter")
                await settle(pilot, lambda: screen.revealed and isinstance(app.focused, Button))
                await pilot.press("enter")  # accept the proposed rating
            else:
                await pilot.press("space")
                await settle(pilot, lambda: screen.revealed)
                good = str(screen.query_one("#quiz-good", Button).label)
                assert good.startswith("Good · ") is counts  # intervals only when it counts
                await pilot.press(SELF_GRADED[card.card.id])
        await settle(pilot, lambda: isinstance(app.screen, QuizScoreScreen))
        score_screen = app.screen
        assert isinstance(score_screen, QuizScoreScreen)
        expected_right = sum(card in ("positions", "plain-1") for card in asked)
        assert score_screen.score == (expected_right, 3)
        score = plain(score_screen.query_one("#quiz-score", Static))
        assert score == f"Score: {expected_right} / 3"
        misses = plain(score_screen.query_one("#quiz-misses", Static))
        if "scale" in asked:
            assert "d_k = 64: divide the logits by?" in misses and "answer: 8  (you: 64)" in misses
        if "plain-2" in asked:
            assert "What fixes the bottleneck?" in misses and "answer: Attention." in misses
        for right in {"positions", "plain-1"} & set(asked):
            assert DECK.cards[[c.id for c in DECK.cards].index(right)].front[:8] not in misses
        # with quiz_counts every answer went into the schedule, with the typed ones' seeds;
        # cramming leaves new cards new and spends no daily limit
        logged = {
            entry.card_id: (entry.rating, entry.variant_seed)
            for card_id in asked
            for entry in session.store.history(session.study_card("mixed", card_id).key)
        }
        assert set(logged) == (set(asked) if counts else set())
        assert all(session.study_card("mixed", c).state == "new" for c in asked) is not counts
        for card_id, (rating, seed) in logged.items():
            assert (seed is not None) == (card_id in TYPED)
            wanted = {"positions": Rating.Good, "scale": Rating.Again}.get(card_id)
            if wanted is not None:
                assert rating == wanted
        await pilot.press("escape")
        await settle(pilot, lambda: at_home(app))


async def test_z_on_home_starts_a_quiz_on_the_highlighted_deck(make_session: MakeSession) -> None:
    session = make_session(make_library([DECK]))
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        await pilot.press("z")
        await settle(pilot, lambda: isinstance(app.screen, QuizScreen))
        screen = app.screen
        assert isinstance(screen, QuizScreen)
        await settle(pilot, lambda: screen.card is not None)
        assert len(screen.questions) == 4  # ten asked, the deck has four
        panel = screen.query_one(AnswerPanel)
        assert panel.display == (screen.questions[0].card.kind == "numeric")

"""Pilot: computed cards in review — typed answers, proposed ratings, seeds in the log."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Button, Input, Markdown, Static

from studykit.content.model import Card, Deck
from studykit.quiz import draw_variant
from studykit.srs.scheduler import card_key
from studykit.study.session import Rating, StudySession
from studykit.tui.app import StudykitApp, make_app
from studykit.tui.screens.review import ReviewScreen
from studykit.tui.widgets.answer_panel import AnswerPanel
from tests.conftest import make_library

from .helpers import plain, settle

SIZE = (120, 40)
MakeSession = Callable[..., StudySession]

K_STAR = Card(
    id="k-star",
    kind="numeric",
    front="γ = {gamma} wale RNN ka effective context k* kitna hai?",
    back="Ceiling of log(0.01)/log({gamma}).",
    params={"gamma": {"choices": [0.95]}},
    answer="ceiling(log(0.01)/log(gamma))",
    tolerance={"abs": 0.5},
)
DERIVATIVE = Card(
    id="tanh-prime",
    kind="symbolic",
    front="d/dz tanh(z)?",
    answer="1 - tanh(z)**2",
)


def computed_deck(*cards: Card) -> Deck:
    return Deck(id="computed", name="Demo::Computed", cards=cards)


async def open_review(app: StudykitApp, pilot: object) -> ReviewScreen:
    await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))  # type: ignore[arg-type]
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    await settle(pilot, lambda: screen.card is not None)  # type: ignore[arg-type]
    return screen


def logged(session: StudySession, card_id: str) -> list[tuple[Rating, int | None]]:
    history = session.store.history(card_key("computed", card_id))
    return [(answer.rating, answer.variant_seed) for answer in history]


async def test_right_answer_proposes_good_and_enter_commits_it_with_the_seed(
    make_session: MakeSession,
) -> None:
    session = make_session(make_library([computed_deck(K_STAR)]))
    app = make_app(session.settings, session=session, start="review")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        panel = screen.query_one(AnswerPanel)
        seed = panel.seed
        assert seed is not None and panel.variant == draw_variant(K_STAR, seed)
        front = screen.query_one("#front", Markdown).source
        assert "γ = 0.95 wale" in front and "{gamma}" not in front
        box = screen.query_one("#answer-input", Input)
        assert box.has_focus
        await pilot.press("9", "0")  # digits go into the input, not to the rating keys
        assert box.value == "90" and not screen.revealed and logged(session, "k-star") == []
        await pilot.press("enter")
        await settle(pilot, lambda: screen.revealed and isinstance(app.focused, Button))
        verdict = plain(screen.query_one("#answer-verdict", Static))
        assert verdict.startswith("✓ Right") and "Proposed:    Good" in verdict
        assert "Expected:    90" in verdict
        steps = plain(screen.query_one("#answer-steps", Static))
        assert "0.95" in steps and steps.endswith("= 90")
        assert "log(0.95)" in screen.query_one("#back", Markdown).source
        assert app.focused is screen.query_one("#good", Button)
        await pilot.press("enter")  # accept the proposal
        await settle(pilot, lambda: logged(session, "k-star") != [])
        assert logged(session, "k-star") == [(Rating.Good, seed)]


async def test_wrong_answer_proposes_again_and_a_digit_changes_it(
    make_session: MakeSession,
) -> None:
    session = make_session(make_library([computed_deck(K_STAR)]))
    app = make_app(session.settings, session=session, start="review")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        seed = screen.query_one(AnswerPanel).seed
        await pilot.press("4", "5", "9", "enter")
        await settle(pilot, lambda: screen.revealed and isinstance(app.focused, Button))
        verdict = plain(screen.query_one("#answer-verdict", Static))
        assert verdict.startswith("✗ Not quite") and "Your answer: 459" in verdict
        assert "Proposed:    Again" in verdict
        assert app.focused is screen.query_one("#again", Button)
        await pilot.press("2")  # the student overrides the proposal: Hard
        await settle(pilot, lambda: logged(session, "k-star") != [])
        assert logged(session, "k-star") == [(Rating.Hard, seed)]


async def test_a_typo_gets_a_message_and_the_card_stays_unanswered(
    make_session: MakeSession,
) -> None:
    session = make_session(make_library([computed_deck(DERIVATIVE)]))
    app = make_app(session.settings, session=session, start="review")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        message = screen.query_one("#answer-message", Static)
        await pilot.press(*"1 - tanh(y)**2", "enter")
        await settle(pilot, lambda: "unknown name `y`" in plain(message))
        assert not screen.revealed and screen.query_one(AnswerPanel).result is None
        box = screen.query_one("#answer-input", Input)
        assert not box.disabled
        box.value = ""
        await pilot.press(*"1/cosh(z)**2", "enter")
        await settle(pilot, lambda: screen.revealed and isinstance(app.focused, Button))
        assert plain(screen.query_one("#answer-verdict", Static)).startswith("✓ Right")
        await pilot.press("enter")
        await settle(pilot, lambda: logged(session, "tanh-prime") != [])
        assert logged(session, "tanh-prime")[0][0] == Rating.Good


async def test_plain_cards_have_no_answer_box(make_session: MakeSession) -> None:
    deck = Deck(id="computed", name="Demo::Plain", cards=(Card(id="a", front="Q?", back="A."),))
    session = make_session(make_library([deck]))
    app = make_app(session.settings, session=session, start="review")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        assert not screen.query_one(AnswerPanel).display
        await pilot.press("space")
        await settle(pilot, lambda: screen.revealed)
        await pilot.press("3")
        await settle(pilot, lambda: logged(session, "a") != [])
        assert logged(session, "a") == [(Rating.Good, None)]

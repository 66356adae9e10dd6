"""Pilot: a computed card linked to an experiment shows the measured value after the answer."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Static

from studykit.content.model import Card, Deck
from studykit.experiments.base import TorchMissing
from studykit.quiz import draw_variant
from studykit.quiz.measured import measured_value
from studykit.study.session import StudySession
from studykit.tui.app import make_app
from studykit.tui.screens.error import ErrorScreen
from studykit.tui.screens.review import ReviewScreen
from studykit.tui.widgets import measured_value as widget_module
from studykit.tui.widgets.answer_panel import AnswerPanel
from studykit.tui.widgets.measured_value import MeasuredValue
from tests.conftest import make_library

from .helpers import plain, settle

SIZE = (120, 40)
MakeSession = Callable[..., StudySession]

pytest.importorskip("torch")


def k_star(answer: str | None) -> Card:
    experiment: dict[str, object] = {"name": "effective-context", "params": {"gamma": "{gamma}"}}
    if answer is not None:
        experiment["answer"] = answer
    return Card.model_validate(
        {
            "id": "k-star",
            "kind": "numeric",
            "front": "gamma = {gamma}: k*?",
            "params": {"gamma": {"choices": [0.5]}},
            "answer": "ceiling(log(0.01)/log(gamma))",
            "tolerance": {"abs": 0.5},
            "experiment": experiment,
        }
    )


async def test_answering_shows_the_measured_value_and_caches_it(
    make_session: MakeSession,
) -> None:
    card = k_star("k")
    session = make_session(make_library([Deck(id="d", name="D", cards=(card,))]))
    app = make_app(session.settings, session=session, start="review")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await settle(pilot, lambda: screen.card is not None)
        widget = screen.query_one(MeasuredValue)
        assert not widget.display  # nothing before the answer
        await pilot.press("7", "enter")
        await settle(pilot, lambda: screen.revealed)
        assert widget.display
        text = widget.query_one("#measured-text", Static)
        await settle(
            pilot, lambda: plain(text).startswith("measured:"), steps=2000
        )  # the run happens in a worker
        assert plain(text) == "measured: 7 (experiment effective-context, cpu)"
        assert "Expected:    7" in plain(screen.query_one("#answer-verdict", Static))
        seed = screen.query_one(AnswerPanel).seed
        assert seed is not None
    assert measured_value(draw_variant(card, seed), session) is not None  # cached in the store


async def shown_after_answer(make_session: MakeSession, card: Card) -> bool:
    """Answer the card; whether the measured line is on screen once its run has ended."""
    session = make_session(make_library([Deck(id="d", name="D", cards=(card,))]))
    app = make_app(session.settings, session=session, start="review")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await settle(pilot, lambda: screen.card is not None)
        await pilot.press("7", "enter")
        await settle(pilot, lambda: screen.revealed)
        widget = screen.query_one(MeasuredValue)
        await settle(pilot, lambda: not widget.has_class("-running"))
        return bool(widget.display)


async def test_a_link_without_an_answer_or_without_torch_shows_nothing(
    make_session: MakeSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_torch(*_args: object, **_kwargs: object) -> None:
        raise TorchMissing()

    monkeypatch.setattr(widget_module, "measure", no_torch)
    assert not await shown_after_answer(make_session, k_star(None))
    assert not await shown_after_answer(make_session, k_star("k"))  # the run raised TorchMissing


async def test_an_unexpected_failure_of_the_measurement_is_a_dialog(
    make_session: MakeSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("cache row unreadable")

    monkeypatch.setattr(widget_module, "measure", broken)
    session = make_session(make_library([Deck(id="d", name="D", cards=(k_star("k"),))]))
    app = make_app(session.settings, session=session, start="review")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await settle(pilot, lambda: screen.card is not None)
        await pilot.press("7", "enter")
        await settle(pilot, lambda: isinstance(app.screen, ErrorScreen))
        assert plain(app.screen.query_one("#error-title", Static)) == "Could not measure the value"
        assert "cache row unreadable" in plain(app.screen.query_one("#error-message", Static))

"""What Review and Quiz share: a card shown, an answer box, reveal, rate and the answer bar."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.screen import Screen
from textual.widgets import Button, Input

from studykit.study.flow import QuizFlow, StudyFlow
from studykit.study.session import StudyCard
from studykit.tui.flowrunner import FlowRunner
from studykit.tui.guard import GuardedHandlers, LoudWorkers
from studykit.tui.keys import RATINGS
from studykit.tui.messages import HomeRequested
from studykit.tui.screens import SCREENS_CSS
from studykit.tui.screens.sizing import SizedScreen
from studykit.tui.widgets.answer_panel import AnswerPanel


class AnsweringScreen(SizedScreen, GuardedHandlers, LoudWorkers, Screen[None]):
    """A screen over a flow: its answer bar's buttons are `{BUTTON_PREFIX}show`, `…again`, …."""

    CSS_PATH = SCREENS_CSS
    BUTTON_PREFIX: ClassVar[str] = ""

    flow: StudyFlow | QuizFlow
    runner: FlowRunner
    card: StudyCard | None
    revealed: bool

    def closed(self) -> bool:
        """True once the screen has left the stack: a flow result that arrives then (keys
        closed the screen while the worker ran) has nothing left to show it in."""
        return not self.is_attached or self not in self.app.screen_stack

    def _typing(self) -> bool:
        """True while the answer box has focus (False before the screen is composed)."""
        # From the focus, not a query: every binding's check_action asks, on every refresh.
        focused = self.focused
        return isinstance(focused, Input) and isinstance(focused.parent, AnswerPanel)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self.refresh_bindings()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self.refresh_bindings()

    def on_answer_panel_left(self, event: AnswerPanel.Left) -> None:
        event.stop()
        self.query_one(f"#{self.BUTTON_PREFIX}show", Button).focus()

    def on_answer_panel_graded(self, event: AnswerPanel.Graded) -> None:
        """A typed answer was graded: reveal; the proposed rating goes under enter."""
        event.stop()
        self.action_reveal()

    def action_reveal(self) -> None:
        if self.card is not None and not self.revealed:
            self.runner.submit("Could not show the answer", self.flow.reveal)

    def action_rate(self, grade: int) -> None:
        raise NotImplementedError

    def action_home(self) -> None:
        self.post_message(HomeRequested())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == f"{self.BUTTON_PREFIX}show":
            self.action_reveal()
            return
        for rating, name in RATINGS:
            if event.button.id == f"{self.BUTTON_PREFIX}{name.lower()}":
                self.action_rate(int(rating))

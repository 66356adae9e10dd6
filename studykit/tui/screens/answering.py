"""What Review and Quiz share: a card shown, an answer box, reveal, rate and the answer bar."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.screen import Screen
from textual.widgets import Button, Input, Markdown

from studykit.study.cardtext import back_markdown, front_markdown
from studykit.study.flow import QuizFlow, Revealed, Shown, StudyFlow
from studykit.study.session import Rating, StudyCard, StudySession
from studykit.tui.flowrunner import FlowRunner
from studykit.tui.guard import GuardedHandlers, LoudWorkers
from studykit.tui.keys import RATINGS, rating_labels
from studykit.tui.messages import HomeRequested
from studykit.tui.screens import SCREENS_CSS
from studykit.tui.screens.sizing import SizedScreen
from studykit.tui.widgets.answer_panel import AnswerPanel, proposed_rating

_NAMES = dict(RATINGS)


class AnsweringScreen(SizedScreen, GuardedHandlers, LoudWorkers, Screen[None]):
    """A screen over a flow: its card's sides are the Markdown widgets `{ID_PREFIX}front` and
    `{ID_PREFIX}back`, its answer bar's buttons `{ID_PREFIX}show`, `…again`, …."""

    CSS_PATH = SCREENS_CSS
    ID_PREFIX: ClassVar[str] = ""

    session: StudySession
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

    def _button(self, name: str) -> Button:
        return self.query_one(f"#{self.ID_PREFIX}{name}", Button)

    def _side(self, name: str) -> Markdown:
        return self.query_one(f"#{self.ID_PREFIX}{name}", Markdown)

    async def put_front(self, shown: Shown) -> None:
        """The card's front shown, its back emptied, the answer box started."""
        card = self.card = shown.card
        self.revealed = False
        panel = self.query_one(AnswerPanel)
        panel.start(card.card, shown.variant)
        note = self.session.library.note_for(card.deck)
        front = (
            panel.front_markdown(note)
            if shown.variant is not None
            else front_markdown(card.card, note, card.ordinal)
        )
        await self._side("front").update(front)
        await self._side("back").update("")
        self.set_class(False, "-revealed")

    def focus_first(self, shown: Shown) -> None:
        """The answer box of a typed card (digits and space go into it), else Show answer."""
        if shown.variant is not None:
            self.query_one(AnswerPanel).focus_input()
        else:
            self._button("show").focus()

    def solution_shown(self, panel: AnswerPanel) -> None:
        """A typed card's solution is on screen (a screen adds to it here)."""

    async def put_back(self, revealed: Revealed) -> None:
        """The card's back, the answer bar's intervals, and focus on the proposed rating."""
        if revealed.card is not self.card:
            return
        self.revealed = True
        panel = self.query_one(AnswerPanel)
        note = self.session.library.note_for(revealed.card.deck)
        if panel.variant is not None:
            panel.show_solution()
            self.solution_shown(panel)
            back = panel.back_markdown(note)
        else:
            back = back_markdown(revealed.card.card, note, revealed.card.ordinal)
        await self._side("back").update(back)
        for rating, label in rating_labels(revealed.intervals).items():
            self._button(_NAMES[rating].lower()).label = label
        self.set_class(True, "-revealed")
        self._button(_NAMES[self.proposal()].lower()).focus()
        self.refresh_bindings()

    def proposal(self) -> Rating:
        """The rating under enter: the typed answer's proposal, else Good."""
        result = self.query_one(AnswerPanel).result
        return Rating.Good if result is None else proposed_rating(result)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self.refresh_bindings()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self.refresh_bindings()

    def on_answer_panel_left(self, event: AnswerPanel.Left) -> None:
        event.stop()
        self._button("show").focus()

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
        if event.button.id == f"{self.ID_PREFIX}show":
            self.action_reveal()
            return
        for rating, name in RATINGS:
            if event.button.id == f"{self.ID_PREFIX}{name.lower()}":
                self.action_rate(int(rating))

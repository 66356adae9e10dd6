"""Quiz: N questions mixing computed (typed) and ordinary (self-graded) cards, then a score."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Markdown, Rule, Static

from studykit.core.defaults import QUIZ_QUESTIONS
from studykit.core.terminal import terminal_safe
from studykit.study.flow import FlowResult, QuizDone, QuizFlow, Revealed, Shown
from studykit.study.quiz_questions import QuizAnswer
from studykit.study.session import Rating, StudyCard, StudySession
from studykit.tui.flowrunner import FlowRunner
from studykit.tui.guard import GuardedHandlers
from studykit.tui.keys import ANSWER_BINDINGS, RATINGS
from studykit.tui.messages import FlowDone, HomeRequested, QuizRequested, ReviewScope
from studykit.tui.screens import SCREENS_CSS
from studykit.tui.screens.answering import AnsweringScreen
from studykit.tui.screens.sizing import SizedScreen
from studykit.tui.widgets.answer_panel import AnswerPanel
from studykit.tui.widgets.footer import StudyFooter
from studykit.tui.widgets.title_bar import TitleBar

CRAM_NOTE = "Cramming: this card is not due, so your answer leaves its schedule alone."


class QuizScreen(AnsweringScreen):
    """Renders a QuizFlow: answers to cards not due leave the schedule alone unless set."""

    CSS_PATH = SCREENS_CSS

    SUB_TITLE = "Quiz"
    ID_PREFIX = "quiz-"
    flow: QuizFlow

    BINDINGS: ClassVar[list[BindingType]] = [
        *ANSWER_BINDINGS,
        Binding("escape", "home", "Home"),
    ]

    def __init__(
        self,
        session: StudySession,
        scope: ReviewScope,
        *,
        count: int = QUIZ_QUESTIONS,
        seed: int | None = None,
        flow: QuizFlow | None = None,
    ) -> None:
        super().__init__(id="quiz")
        self.session = session
        self.scope = scope
        self.flow = flow or QuizFlow(session, scope.deck_ids, count=count, seed=seed)
        self.runner = FlowRunner(self)
        self.card: StudyCard | None = None
        self.revealed = False

    @property
    def questions(self) -> list[StudyCard]:
        """The questions the flow picked (empty until it started)."""
        return self.flow.questions

    @property
    def answers(self) -> list[QuizAnswer]:
        """The answers so far."""
        return self.flow.answers

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="quiz-top"):
            yield Static(f"Quiz · {self.scope.title}", id="quiz-scope", markup=False)
            yield Static("", id="quiz-progress", markup=False)
        yield Static(CRAM_NOTE, id="quiz-cram", markup=False)
        with VerticalScroll(id="quiz-card"):
            yield Markdown(id="quiz-front")
            yield AnswerPanel(id="quiz-answer")
            yield Rule(id="quiz-divider")
            yield Markdown(id="quiz-back")
        with Horizontal(id="quiz-bar"):
            yield Button("Show answer", id="quiz-show", variant="primary")
            for _, name in RATINGS:
                yield Button(name, id=f"quiz-{name.lower()}", classes="rating")
        yield StudyFooter()

    def on_mount(self) -> None:
        self.runner.submit("Could not start the quiz", self.flow.start)

    async def on_flow_done(self, message: FlowDone) -> None:
        """Render what the flow did."""
        message.stop()
        if self.closed():
            return
        result: FlowResult | None = message.result
        match result:
            case Shown():
                await self.show_question(result)
            case Revealed():
                await self.put_back(result)
            case QuizDone(answers=answers):
                self.card = None
                self.app.switch_screen(QuizScoreScreen(self.scope, list(answers)))
            case _:
                pass  # a stale key: the flow ignored it

    async def show_question(self, shown: Shown) -> None:
        """Show one question's front."""
        await self.put_front(shown)
        progress = f"Question {shown.number} of {shown.total} · {shown.right} right"
        self.query_one("#quiz-progress", Static).update(progress)
        self.query_one("#quiz-cram", Static).display = not shown.counts
        self.focus_first(shown)
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in {"reveal", "rate"} and self._typing():
            return False  # the key would type into the answer box; escape leaves it first
        if action == "reveal":
            return self.card is not None and not self.revealed
        if action == "rate":
            return self.card is not None and self.revealed
        return True

    def action_rate(self, grade: int) -> None:
        if self.card is None or not self.revealed:
            return
        flow, graded = self.flow, self.query_one(AnswerPanel).result
        self.runner.submit("Your answer was not saved", lambda: flow.rate(Rating(grade), graded))


class QuizScoreScreen(SizedScreen, GuardedHandlers, Screen[None]):
    """The score of a finished quiz and the questions that were missed."""

    CSS_PATH = SCREENS_CSS

    SUB_TITLE = "Quiz score"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "home", "Home"),
        Binding("enter", "home", "Home", show=False),
        Binding("r", "again", "New quiz"),
    ]

    def __init__(self, scope: ReviewScope, answers: list[QuizAnswer]) -> None:
        super().__init__(id="quiz-score-screen")
        self.scope = scope
        self.answers = list(answers)

    @property
    def score(self) -> tuple[int, int]:
        return sum(answer.correct for answer in self.answers), len(self.answers)

    def compose(self) -> ComposeResult:
        right, total = self.score
        misses = [answer for answer in self.answers if not answer.correct]
        lines = ["Misses:"] if misses else ["No misses. Well done!"]
        for miss in misses:
            lines.append(f"• {miss.question}")
            given = f"  (you: {miss.given})" if miss.given else ""
            lines.append(f"    answer: {miss.expected}{given}")
        yield TitleBar()
        with Center(), Vertical(id="score-box"):
            yield Static(f"Score: {right} / {total}", id="quiz-score", markup=False)
            misses_text = terminal_safe("\n".join(lines), multiline=True)
            yield Static(misses_text, id="quiz-misses", markup=False)
            yield Static("Escape: back to your decks · r: another quiz", id="quiz-hint")
        yield StudyFooter()

    def action_home(self) -> None:
        self.post_message(HomeRequested())

    def action_again(self) -> None:
        self.post_message(QuizRequested(self.scope, count=max(len(self.answers), 1)))

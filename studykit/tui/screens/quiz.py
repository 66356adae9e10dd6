"""Quiz: N questions mixing computed (typed) and ordinary (self-graded) cards, then a score."""

from __future__ import annotations

import re
import time
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Markdown, Rule, Static

from studykit.defaults import QUIZ_QUESTIONS
from studykit.mathtext import latex_to_unicode
from studykit.model import CLOZE_PATTERN, Card
from studykit.quiz import QuizAnswer, pick_questions
from studykit.session import Rating, StudyCard, StudySession
from studykit.tui.cardtext import back_markdown, front_markdown
from studykit.tui.guard import shown_on_screen
from studykit.tui.keys import ANSWER_BINDINGS
from studykit.tui.messages import HomeRequested, QuizRequested, ReviewScope
from studykit.tui.widgets.answer_panel import AnswerPanel
from studykit.tui.widgets.title_bar import TitleBar

RATINGS: tuple[tuple[Rating, str], ...] = (
    (Rating.Again, "Again"),
    (Rating.Hard, "Hard"),
    (Rating.Good, "Good"),
    (Rating.Easy, "Easy"),
)


_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.DOTALL)


def _short(source: str, limit: int = 90) -> str:
    """Card text on one plain line: maths as Unicode, no markdown marks."""
    text = _MATH.sub(lambda m: latex_to_unicode(m.group(1) or m.group(2)), source)
    text = " ".join(text.replace("**", "").replace("`", "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plain_question(card: Card) -> tuple[str, str]:
    """(question, answer) of an ordinary card as plain text for the list of misses."""
    if card.kind == "cloze":
        question = CLOZE_PATTERN.sub("[...]", card.front)
        answer = CLOZE_PATTERN.sub(lambda m: m.group(2), card.front)
        return _short(question), _short(answer)
    return _short(card.front), _short(card.back or "")


class QuizScreen(Screen[None]):
    """One question at a time; every answer is rated and goes into the schedule."""

    SUB_TITLE = "Quiz"

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
    ) -> None:
        super().__init__(id="quiz")
        self.session = session
        self.scope = scope
        self.questions = pick_questions(session, scope.deck_ids, count=count, seed=seed)
        self.answers: list[QuizAnswer] = []
        self.card: StudyCard | None = None
        self.revealed = False
        self.shown_at = time.monotonic()

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="quiz-top"):
            yield Static(f"Quiz · {self.scope.title}", id="quiz-scope", markup=False)
            yield Static("", id="quiz-progress", markup=False)
        with VerticalScroll(id="quiz-card"):
            yield Markdown(id="quiz-front")
            yield AnswerPanel(id="quiz-answer")
            yield Rule(id="quiz-divider")
            yield Markdown(id="quiz-back")
        with Horizontal(id="quiz-bar"):
            yield Button("Show answer", id="quiz-show", variant="primary")
            for _, name in RATINGS:
                yield Button(name, id=f"quiz-{name.lower()}", classes="rating")
        yield Footer()

    async def on_mount(self) -> None:
        await self.show_question()

    async def show_question(self) -> None:
        """The next question, or the score once every question is answered."""
        index = len(self.answers)
        if index >= len(self.questions):
            self.card = None
            self.app.switch_screen(QuizScoreScreen(self.scope, self.answers))
            return
        card = self.questions[index]
        self.card = card
        self.revealed = False
        panel = self.query_one(AnswerPanel)
        with shown_on_screen(self, "Could not show the question"):
            variant = panel.start(card.card)
            note = self.session.library.note_for(card.deck)
            front = (
                panel.front_markdown(note)
                if variant is not None
                else front_markdown(card.card, note)
            )
            await self.query_one("#quiz-front", Markdown).update(front)
        await self.query_one("#quiz-back", Markdown).update("")
        self.set_class(False, "-revealed")
        right = sum(answer.correct for answer in self.answers)
        self.query_one("#quiz-progress", Static).update(
            f"Question {index + 1} of {len(self.questions)} · {right} right"
        )
        if variant is not None:
            panel.focus_input()
        else:
            self.query_one("#quiz-show", Button).focus()
        self.refresh_bindings()
        self.shown_at = time.monotonic()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "reveal":
            return self.card is not None and not self.revealed
        if action == "rate":
            return self.card is not None and self.revealed
        return True

    async def action_reveal(self) -> None:
        card = self.card
        if card is None or self.revealed:
            return
        panel = self.query_one(AnswerPanel)
        with shown_on_screen(self, "Could not show the answer"):
            note = self.session.library.note_for(card.deck)
            if panel.variant is not None:
                panel.show_solution()
                back = panel.back_markdown(note)
            else:
                back = back_markdown(card.card, note)
            await self.query_one("#quiz-back", Markdown).update(back)
            self.revealed = True
            self.set_class(True, "-revealed")
            self.query_one("#quiz-good", Button).focus()
            self.refresh_bindings()

    async def on_answer_panel_graded(self, event: AnswerPanel.Graded) -> None:
        event.stop()
        await self.action_reveal()
        if self.revealed:
            self.query_one(f"#quiz-{dict(RATINGS)[event.proposal].lower()}", Button).focus()

    def _record(self, card: StudyCard, rating: Rating) -> QuizAnswer:
        panel = self.query_one(AnswerPanel)
        variant = panel.variant
        if variant is None:
            question, answer = _plain_question(card.card)
            return QuizAnswer(card, rating != Rating.Again, question, answer)
        result = panel.result
        return QuizAnswer(
            card,
            bool(result is not None and result.correct),
            _short(variant.front()),
            latex_to_unicode(variant.expected_latex()),
            latex_to_unicode(result.given_latex) if result is not None else "(not answered)",
        )

    async def action_rate(self, grade: int) -> None:
        card = self.card
        if card is None or not self.revealed:
            return
        duration_ms = int((time.monotonic() - self.shown_at) * 1000)
        rating = Rating(grade)
        with shown_on_screen(self, "Your answer was not saved"):
            seed = self.query_one(AnswerPanel).seed
            self.session.answer(card, rating, duration_ms=duration_ms, variant_seed=seed)
            self.answers.append(self._record(card, rating))
            await self.show_question()

    def action_home(self) -> None:
        self.post_message(HomeRequested())

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "quiz-show":
            await self.action_reveal()
            return
        for rating, name in RATINGS:
            if event.button.id == f"quiz-{name.lower()}":
                await self.action_rate(int(rating))


class QuizScoreScreen(Screen[None]):
    """The score of a finished quiz and the questions that were missed."""

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
            yield Static("\n".join(lines), id="quiz-misses", markup=False)
            yield Static("Escape: back to your decks · r: another quiz", id="quiz-hint")
        yield Footer()

    def action_home(self) -> None:
        self.post_message(HomeRequested())

    def action_again(self) -> None:
        self.post_message(QuizRequested(self.scope, count=max(len(self.answers), 1)))

"""The typed answer of a computed card: an input, the verdict, and the worked steps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerState

from studykit.content.model import COMPUTED_KINDS, Card, Note
from studykit.quiz import Grade, Variant, grade
from studykit.study.cardtext import expected_text, side_markdown, worked_text
from studykit.study.session import Rating
from studykit.text.unicodemath import latex_to_unicode
from studykit.tui.guard import GuardedHandlers, LoudWorkers
from studykit.tui.notices import TYPED_ANSWER, tell_once

GRADE_WORKER = "grade-answer"


def proposed_rating(result: Grade) -> Rating:
    """Wrong -> Again, right -> Good (the student may change it)."""
    return Rating.Good if result.correct else Rating.Again


class AnswerPanel(GuardedHandlers, LoudWorkers, Vertical):
    """Shown for numeric and symbolic cards; hidden for the others."""

    # Printable keys type into the box, so the screen's keys work after escape leaves it.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "leave", "Leave answer box"),
    ]
    worker_titles: ClassVar[dict[str, str]] = {GRADE_WORKER: "Could not check your answer"}

    class Left(Message):
        """The student left the answer box with escape (the screen's keys work again)."""

    @dataclass
    class Graded(Message):
        """The typed answer was read and graded; `proposal` is the suggested rating."""

        result: Grade
        proposal: Rating

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.variant: Variant | None = None
        self.result: Grade | None = None

    def compose(self) -> ComposeResult:
        yield Input(placeholder="Type your answer; enter submits", id="answer-input")
        yield Static("", id="answer-message", markup=False)
        yield Static("", id="answer-verdict", markup=False)
        yield Static("", id="answer-steps", markup=False)

    @property
    def seed(self) -> int | None:
        """The seed of the variant shown (stored with the review)."""
        return self.variant.seed if self.variant is not None else None

    def start(self, card: Card, variant: Variant | None) -> None:
        """Show the box for a computed card's `variant` (hidden for other kinds)."""
        computed = card.kind in COMPUTED_KINDS and variant is not None
        self.variant = variant if computed else None
        self.result = None
        self.set_class(computed, "-computed")
        self.set_class(False, "-solved")
        box = self.query_one("#answer-input", Input)
        box.value = ""
        box.disabled = not computed
        if computed:
            hint = "a number" if card.kind == "numeric" else "an expression"
            box.placeholder = f"Type {hint}; enter submits"
            tell_once(self.app, TYPED_ANSWER)
        self._say("")

    def front_markdown(self, note: Note | None = None) -> str:
        assert self.variant is not None
        return side_markdown(self.variant.front(), note)

    def back_markdown(self, note: Note | None = None) -> str:
        """The back with the drawn values filled in (empty when the card has none)."""
        assert self.variant is not None
        return side_markdown(self.variant.back() or "", note)

    def focus_input(self) -> None:
        self.query_one("#answer-input", Input).focus()

    @property
    def typing(self) -> bool:
        """True while the answer box has focus (printable keys go into it)."""
        # From the focus, not a query: the footer asks on every refresh of the bindings.
        focused = self.screen.focused if self.is_attached else None
        return isinstance(focused, Input) and focused.parent is self

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave":
            return self.typing
        return True

    def action_leave(self) -> None:
        self.post_message(self.Left())

    def _say(self, message: str) -> None:
        note = self.query_one("#answer-message", Static)
        note.update(message)
        note.display = bool(message)

    # -- grading -------------------------------------------------------------

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.variant is None or self.result is not None:
            return
        self._say("Checking…")
        self.grade_answer(self.variant, event.value)

    @dataclass
    class Checked(Message):
        """The grading worker's verdict on a typed answer for `variant`."""

        variant: Variant
        result: Grade

    @work(thread=True, exclusive=True, exit_on_error=False, group="grade", name=GRADE_WORKER)
    def grade_answer(self, variant: Variant, text: str) -> None:
        """Grade off the UI thread (sympy may take a moment); the verdict comes as Checked."""
        self.post_message(self.Checked(variant, grade(variant, text)))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.name == GRADE_WORKER and event.state == WorkerState.ERROR:
            # LoudWorkers shows the error; the box must not stay on "Checking…"
            self._say("Could not check this answer; reveal it with space after escape.")

    def on_answer_panel_checked(self, message: Checked) -> None:
        message.stop()
        result = message.result
        if message.variant is not self.variant or self.result is not None:
            return  # a grade for a card that is no longer shown
        if result.correct is None:
            self._say(result.message)
            self.focus_input()
            return
        self.result = result
        self._say("")
        self.show_solution()
        self.post_message(self.Graded(result, proposed_rating(result)))

    def show_solution(self) -> None:
        """The verdict (if graded), the expected and typed values, and the worked steps."""
        variant = self.variant
        if variant is None:
            return
        box = self.query_one("#answer-input", Input)
        box.disabled = True
        verdict = self.query_one("#answer-verdict", Static)
        expected = expected_text(variant)
        lines = []
        if self.result is not None:
            mark = "✓" if self.result.correct else "✗"
            lines.append(f"{mark} {self.result.message}")
            lines.append(f"Your answer: {latex_to_unicode(self.result.given_latex)}")
            proposal = proposed_rating(self.result).name
            lines.append(f"Proposed:    {proposal} (enter accepts, 1-4 changes it)")
        lines.append(f"Expected:    {expected}")
        verdict.update("\n".join(lines))
        verdict.set_class(self.result is not None and bool(self.result.correct), "-right")
        verdict.set_class(self.result is not None and not self.result.correct, "-wrong")
        steps = worked_text(variant)
        self.query_one("#answer-steps", Static).update(f"Worked: {steps}")
        self.set_class(True, "-solved")

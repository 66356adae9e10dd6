"""Finish: nothing left to study today in this scope; says when the next card is due."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import Static

from studykit.study.formatting import format_local, format_until
from studykit.study.session import StudySession
from studykit.tui.guard import GuardedHandlers
from studykit.tui.messages import HomeRequested, ReviewRequested, ReviewScope
from studykit.tui.screens import SCREENS_CSS
from studykit.tui.screens.sizing import SizedScreen
from studykit.tui.widgets.footer import StudyFooter
from studykit.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from studykit.study.flow import StudyFlow


def next_due_text(due: datetime | None, now: datetime) -> str:
    """`The next card is due Tue 12 May 14:20 (in 3h 20m).` or that none is scheduled."""
    if due is None:
        return "No cards are scheduled in these decks."
    return f"The next card is due {format_local(due)} ({format_until(due - now)})."


class FinishScreen(SizedScreen, GuardedHandlers, Screen[None]):
    """Shown when the review queue is empty."""

    CSS_PATH = SCREENS_CSS

    SUB_TITLE = "Done for now"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "home", "Home"),
        Binding("enter", "home", "Home", show=False),
        Binding("h", "home", "Home", show=False),
        Binding("r", "again", "Study again"),
        Binding("u", "undo", "Undo"),
    ]

    def __init__(
        self,
        session: StudySession,
        scope: ReviewScope,
        *,
        now: Callable[[], datetime],
        next_due: datetime | None,
        flow: StudyFlow | None = None,
    ) -> None:
        super().__init__(id="finish")
        self.session = session
        self.scope = scope
        self.next_due = next_due
        self.flow = flow
        self._now = now

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Center(), Vertical(id="finish-box"):
            yield Static("Congratulations!", id="finish-title")
            yield Static(
                f"You have finished {self.scope.title} for now.", id="finish-scope", markup=False
            )
            yield Static("", id="next-due", markup=False)
            yield Static("Press escape to go back to your decks.", id="finish-hint")
        yield StudyFooter()

    def on_mount(self) -> None:
        self.update_next_due()

    def update_next_due(self) -> None:
        """Say when the next card is due (as the flow found it when the review finished)."""
        self.query_one("#next-due", Static).update(next_due_text(self.next_due, self._now()))

    def action_home(self) -> None:
        self.post_message(HomeRequested())

    def action_again(self) -> None:
        """Review the scope again, or say why not: nothing in it can be studied yet."""
        if self.session.next_card(scope=self.scope.deck_ids) is None:
            when = next_due_text(self.next_due, self._now())
            self.notify(f"Nothing to study in {self.scope.title} yet. {when}", markup=False)
            return
        self.post_message(ReviewRequested(self.scope))

    def action_undo(self) -> None:
        """Back to the review, which undoes the flow's last action (in its worker) first."""
        self.post_message(ReviewRequested(self.scope, flow=self.flow, undo=True))

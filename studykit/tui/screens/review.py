"""Review: show a card's front, reveal its back, rate it 1-4; undo, bury, suspend."""

from __future__ import annotations

import os
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Markdown, Rule, Static

from studykit.core.terminal import terminal_safe
from studykit.srs.hierarchy import deck_path
from studykit.study.flow import Finished, FlowResult, Notice, Revealed, Shown, StudyFlow
from studykit.study.formatting import fit_deck_name
from studykit.study.session import Rating, StudyCard, StudySession
from studykit.tui.editor import edit_card
from studykit.tui.flowrunner import FlowRunner
from studykit.tui.keys import ANSWER_BINDINGS, RATINGS
from studykit.tui.messages import (
    FlowDone,
    NotesRequested,
    ReloadRequested,
    ReviewFinished,
    ReviewScope,
)
from studykit.tui.screens import SCREENS_CSS
from studykit.tui.screens.answering import AnsweringScreen
from studykit.tui.widgets.answer_panel import AnswerPanel
from studykit.tui.widgets.footer import StudyFooter
from studykit.tui.widgets.measured_value import MeasuredValue
from studykit.tui.widgets.title_bar import TitleBar

STATE_LABELS = {
    "new": "new card",
    "learning": "learning",
    "review": "review",
    "relearning": "relearning",
}
# Actions whose keys a focused answer box would swallow: hidden from the footer while typing.
TYPED_OVER = frozenset({"reveal", "rate", "undo", "bury", "suspend", "notes", "edit", "info"})


def progress_text(new: int, learning: int, due: int) -> Text:
    """`12 new · 3 learning · 40 due`, coloured like Anki."""
    return Text.assemble(
        (f"{new} new", "bold #4c8dff"),
        " · ",
        (f"{learning} learning", "bold #ff7043"),
        " · ",
        (f"{due} due", "bold #4caf50"),
    )


class ReviewScreen(AnsweringScreen):
    """Renders a StudyFlow; its calls run in one serialized worker, a rating commits first."""

    CSS_PATH = SCREENS_CSS

    SUB_TITLE = "Review"
    flow: StudyFlow

    BINDINGS: ClassVar[list[BindingType]] = [
        *ANSWER_BINDINGS,
        Binding("u", "undo", "Undo"),
        Binding("ctrl+z", "undo_typing", "Undo", key_display="^z"),  # u types into the box
        Binding("minus", "bury", "Bury", key_display="-"),
        Binding("exclamation_mark", "suspend", "Suspend", key_display="!"),
        Binding("n", "notes", "Notes"),
        Binding("e", "edit", "Edit"),  # in place of the app's e (Experiments: the palette)
        Binding("i", "info", "Info"),
        Binding("escape", "home", "Home"),
    ]

    def __init__(
        self,
        session: StudySession,
        scope: ReviewScope,
        *,
        flow: StudyFlow | None = None,
        undo: bool = False,
    ) -> None:
        super().__init__(id="review")
        self.session = session
        self.scope = scope
        self.flow = flow or StudyFlow(session, scope.deck_ids)
        self.runner = FlowRunner(self)
        self.card: StudyCard | None = None
        self._progress = Text()
        self.revealed = False
        self._undo_first = undo

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="review-top"):
            yield Static(self.scope.title, id="review-deck", markup=False)
            yield Static("", id="review-progress")
        yield Static("", id="leech", markup=False)
        with VerticalScroll(id="card"):
            yield Markdown(id="front")
            yield AnswerPanel(id="answer-panel")
            yield MeasuredValue(self.session, id="measured")
            yield Rule(id="divider")
            yield Markdown(id="back")
        with Horizontal(id="answer-bar"):
            yield Button("Show answer", id="show", variant="primary")
            for _, name in RATINGS:
                yield Button(name, id=name.lower(), classes="rating")
        yield StudyFooter()

    def on_mount(self) -> None:
        if self._undo_first:
            self.runner.submit("Could not undo", self.flow.undo)
        else:
            self.runner.submit("Could not fetch the next card", self.flow.next)

    # -- results of the flow ---------------------------------------------------

    async def on_flow_done(self, message: FlowDone) -> None:
        """Render what the flow did."""
        message.stop()
        if self.closed():
            return
        result: FlowResult | None = message.result
        match result:
            case Shown():
                await self.show_card(result)
            case Revealed():
                await self.put_back(result)
            case Finished():
                self._finish(result)
            case Notice(text=text):
                self.notify(text)
                if self.card is None:  # e.g. nothing to undo from the finish screen
                    self.runner.submit("Could not fetch the next card", self.flow.next)
            case _:
                pass  # a stale key: the flow ignored it

    def _say(self, note: str, *, undoable: bool, typing: bool) -> None:
        """Notify what the last action did, with the key that undoes it now."""
        if note:
            self.notify(f"{note} {'ctrl+z' if typing else 'u'} undoes." if undoable else note)

    def _finish(self, result: Finished) -> None:
        self.card = None
        self.refresh_bindings()
        self._say(result.note, undoable=result.undoable, typing=False)
        self.post_message(ReviewFinished(self.scope, next_due=result.next_due, flow=self.flow))

    async def show_card(self, shown: Shown) -> None:
        """Show a card's front; the flow started timing it."""
        self.query_one(MeasuredValue).reset()
        await self.put_front(shown)
        card = shown.card
        self._progress = progress_text(*shown.remaining)
        self._show_deck_line()
        leech = self.query_one("#leech", Static)
        leech.display = card.leech
        leech.update(f"Leech: forgotten {card.lapses} times. Consider rewriting this card.")
        self.query_one("#card", VerticalScroll).scroll_home(animate=False)
        self.focus_first(shown)
        self._say(shown.note, undoable=shown.undoable, typing=shown.variant is not None)
        self.refresh_bindings()

    def _show_deck_line(self) -> None:
        """The card's deck and state left, today's counts right; a narrow line keeps the
        deck name's last part (and drops the state before it)."""
        card = self.card
        if card is None:
            return
        self.query_one("#review-progress", Static).update(self._progress)
        # #review-top pads 2 cells each side; keep one cell between deck and counts.
        room = self.size.width - 4 - self._progress.cell_len - 1
        name = terminal_safe(card.deck.name)
        side = f"  ·  {card.side}" if card.side else ""
        state = f"  ·  {STATE_LABELS[card.state]}{side}"
        fitted = fit_deck_name(name, room - len(state))
        last = (deck_path(name) or (name,))[-1]
        if not fitted.endswith(last):
            fitted, state = fit_deck_name(name, room), ""
        self.query_one("#review-deck", Static).update(Text.assemble(fitted, (state, "dim")))

    def on_resize(self, event: events.Resize) -> None:
        self._show_deck_line()

    def solution_shown(self, panel: AnswerPanel) -> None:
        self.query_one(MeasuredValue).show_for(panel.variant)

    # -- actions -------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        typing = self._typing()
        if action == "undo_typing":
            return typing
        if action in TYPED_OVER and typing:
            return False  # the key would type into the answer box; escape leaves it first
        if action == "reveal":
            return self.card is not None and not self.revealed
        if action == "rate":
            return self.card is not None and self.revealed
        if action in {"bury", "suspend", "notes", "edit", "info"}:
            return self.card is not None
        return True

    def action_rate(self, grade: int) -> None:
        if self.card is None or not self.revealed:
            return
        flow = self.flow
        self.runner.submit("Your answer was not saved", lambda: flow.rate(Rating(grade)))

    def action_undo(self) -> None:
        self.runner.submit("Could not undo", self.flow.undo)

    def action_undo_typing(self) -> None:
        """Undo from inside the answer box, where `u` is a letter."""
        self.action_undo()

    def action_bury(self) -> None:
        if self.card is not None:
            self.runner.submit("Could not bury the card", self.flow.bury)

    def action_suspend(self) -> None:
        if self.card is not None:
            self.runner.submit("Could not suspend the card", self.flow.suspend)

    def action_notes(self) -> None:
        card = self.card
        if card is None:
            return
        note = self.session.library.note_for(card.deck)
        if note is None:
            self.notify("This deck has no note.", severity="warning")
            return
        self.post_message(NotesRequested(note.id, card.card.source))

    def action_edit(self) -> None:
        """The card's YAML in $EDITOR; then the content reloads and this review goes on."""
        card = self.card
        if card is not None and edit_card(self.app, self.session.library.root, card, os.environ):
            self.post_message(ReloadRequested(review=self.scope))

    def action_info(self) -> None:
        if self.card is not None:
            from studykit.tui.screens.card_info import CardInfoScreen

            self.app.push_screen(CardInfoScreen(self.session, self.card))

"""Home's `c`: Custom study of the highlighted deck, as Anki's: pick a filter, then review it.

The filter is built in a thread worker (`StudySession.custom`); a filter that finds no card
says so here, and the dialog stays open for another choice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Static
from textual.worker import Worker, WorkerState

from studykit.core.errors import StudykitError, describe_error
from studykit.study.custom import KINDS, MAX_DAYS, MAX_TAG, CustomQueue, CustomRequest
from studykit.study.session import StudySession
from studykit.tui.guard import GuardedHandlers
from studykit.tui.screens import SCREENS_CSS
from studykit.tui.screens.sizing import SizedScreen

CHOICES = {
    "forgotten": "Review forgotten cards (answered Again)",
    "ahead": "Review ahead (cards due soon)",
    "tag": "Study by tag (new cards too)",
}
BUILD_WORKER = "custom-study"


class CustomStudyScreen(SizedScreen, GuardedHandlers, ModalScreen[CustomQueue | None]):
    """Dismissed with the queue to study, or None (escape, Cancel)."""

    CSS_PATH = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, session: StudySession, deck_ids: Sequence[str], deck_name: str) -> None:
        super().__init__(id="custom-study")
        self.session = session
        self.deck_ids = tuple(deck_ids)
        self.deck_name = deck_name

    def compose(self) -> ComposeResult:
        with Vertical(id="custom-box", classes="dialog-box"):
            yield Static(f"Custom study · {self.deck_name}", classes="dialog-title", markup=False)
            with RadioSet(id="custom-kind"):
                for kind in KINDS:
                    yield RadioButton(CHOICES[kind], value=kind == "forgotten", name=kind)
            with Horizontal(classes="dialog-row"):
                yield Label(f"Days (1–{MAX_DAYS}):", classes="dialog-label")
                yield Input("1", id="custom-days", max_length=3, restrict=r"[0-9]*")
            with Horizontal(classes="dialog-row"):
                yield Label("Tag:", classes="dialog-label")
                yield Input(id="custom-tag", max_length=MAX_TAG, placeholder="e.g. rnn")
            yield Static("", id="custom-error", classes="dialog-error", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Study (enter)", id="custom-start", variant="primary")
                yield Button("Cancel (esc)", id="custom-cancel")

    def on_mount(self) -> None:
        self._kind_changed()
        self.query_one(RadioSet).focus()

    def _kind(self) -> str:
        pressed = self.query_one(RadioSet).pressed_button
        return pressed.name if pressed is not None and pressed.name else "forgotten"

    @on(RadioSet.Changed)
    def _kind_changed(self, event: RadioSet.Changed | None = None) -> None:
        """Only the chosen filter's box is open; picking a filter goes to its box."""
        tag = self._kind() == "tag"
        days_box, tag_box = (
            self.query_one("#custom-days", Input),
            self.query_one("#custom-tag", Input),
        )
        days_box.disabled, tag_box.disabled = tag, not tag
        self._say("")
        if event is not None and self.focused is event.radio_set:
            (tag_box if tag else days_box).focus()

    def _say(self, text: str) -> None:
        error = self.query_one("#custom-error", Static)
        error.update(text)
        error.display = bool(text)

    @on(Button.Pressed, "#custom-start")
    @on(Input.Submitted)
    def start(self) -> None:
        """Check what was typed, then build the filter off the UI thread."""
        days = self.query_one("#custom-days", Input).value
        tag = self.query_one("#custom-tag", Input).value
        try:
            request = CustomRequest.parse(self._kind(), days, tag)
        except StudykitError as error:
            self._say(str(error))
            return
        self._say("Looking for the cards…")
        self.build(request)

    @on(Button.Pressed, "#custom-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

    @work(thread=True, exclusive=True, exit_on_error=False, name=BUILD_WORKER)
    def build(self, request: CustomRequest) -> CustomQueue:
        """The queue of the filtered cards (a thread worker: it reads the database)."""
        return self.session.custom.build(self.deck_ids, request)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.name != BUILD_WORKER:
            return
        event.stop()  # this dialog says what went wrong itself
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            self._say(f"Could not build the custom study: {describe_error(error)}" if error else "")
        elif event.state == WorkerState.SUCCESS:
            queue = event.worker.result
            if not isinstance(queue, CustomQueue):
                return
            if not queue.refs:
                self._say(f"No card is {queue.request.describe()} in {self.deck_name}.")
                return
            self.dismiss(queue)

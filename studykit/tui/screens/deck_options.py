"""Home's `o`: the highlighted deck's daily limits and desired retention, written back to its
YAML file (`StudySession.deck_options`: only the changed values' bytes change there).

Reading and writing the file run in thread workers; a value out of range or a file that
changed since it was read is said in the dialog, and nothing is written.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static
from textual.worker import Worker, WorkerState

from studykit.core.errors import StudykitError, describe_error
from studykit.study.deck_options import (
    MAX_NEW_PER_DAY,
    MAX_REVIEWS_PER_DAY,
    DeckOptionsForm,
    parse_options,
)
from studykit.study.session import StudySession
from studykit.tui.guard import GuardedHandlers
from studykit.tui.screens import SCREENS_CSS
from studykit.tui.screens.sizing import SizedScreen

READ_WORKER = "deck-options-read"
WRITE_WORKER = "deck-options-write"
FIELDS = ("options-new", "options-reviews", "options-retention")


class DeckOptionsScreen(SizedScreen, GuardedHandlers, ModalScreen[bool]):
    """Dismissed with True when the file was written (the app then reloads), else False."""

    CSS_PATH = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, session: StudySession, deck_id: str) -> None:
        super().__init__(id="deck-options")
        self.session = session
        self.deck_id = deck_id
        self.form: DeckOptionsForm | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="options-box", classes="dialog-box"):
            yield Static("Deck options", id="options-title", classes="dialog-title", markup=False)
            yield Static("Reading the deck file…", id="options-file", markup=False)
            labels = (
                f"New cards/day (0–{MAX_NEW_PER_DAY}):",
                f"Reviews/day (0–{MAX_REVIEWS_PER_DAY}):",
                "Desired retention (0.7–0.995):",
            )
            for field, label in zip(FIELDS, labels, strict=True):
                with Horizontal(classes="dialog-row"):
                    yield Label(label, classes="dialog-label")
                    yield Input(id=field, max_length=8, disabled=True)
            yield Static("", id="options-error", classes="dialog-error", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save (enter)", id="options-save", variant="primary", disabled=True)
                yield Button("Cancel (esc)", id="options-cancel")

    def on_mount(self) -> None:
        self._say("")
        self.read()

    def _say(self, text: str) -> None:
        error = self.query_one("#options-error", Static)
        error.update(text)
        error.display = bool(text)

    @work(thread=True, exclusive=True, exit_on_error=False, name=READ_WORKER)
    def read(self) -> DeckOptionsForm:
        """The deck's options as its file has them (reads the file)."""
        return self.session.deck_options.read(self.deck_id)

    @work(thread=True, exclusive=True, exit_on_error=False, name=WRITE_WORKER)
    def write(self, form: DeckOptionsForm, values: tuple[int, int, float]) -> bool:
        """Write the changed values into the deck file; False when nothing changed."""
        return self.session.deck_options.write(form, values)

    def _show(self, form: DeckOptionsForm) -> None:
        self.form = form
        self.query_one("#options-title", Static).update(f"Deck options · {form.deck_name}")
        new, reviews, retention = form.defaults
        self.query_one("#options-file", Static).update(
            f"Saved in {form.file.rel}; comments and layout are kept. "
            f"Defaults (config.toml): {new} new, {reviews} reviews, {retention:g} retention."
        )
        values = (str(form.new_per_day), str(form.reviews_per_day), f"{form.desired_retention:g}")
        for field, value in zip(FIELDS, values, strict=True):
            box = self.query_one(f"#{field}", Input)
            box.value, box.disabled = value, False
        self.query_one("#options-save", Button).disabled = False
        self.query_one(f"#{FIELDS[0]}", Input).focus()

    @on(Button.Pressed, "#options-save")
    @on(Input.Submitted)
    def save(self) -> None:
        """Check the values, then write the file off the UI thread."""
        form = self.form
        if form is None:
            return
        typed = [self.query_one(f"#{field}", Input).value for field in FIELDS]
        try:
            values = parse_options(*typed)
        except StudykitError as error:
            self._say(str(error))
            starts = ("New cards", "Reviews", "Desired")
            bad = next((f for f, w in zip(FIELDS, starts, strict=True) if str(error).startswith(w)))
            self.query_one(f"#{bad}", Input).focus()  # the box to type in again
            return
        self._say("Saving…")
        self.query_one("#options-save", Button).disabled = True
        self.write(form, values)

    @on(Button.Pressed, "#options-cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        name = event.worker.name
        if name not in (READ_WORKER, WRITE_WORKER):
            return
        event.stop()  # this dialog says what went wrong itself
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            what = "read" if name == READ_WORKER else "save"
            self._say(f"Could not {what} the options: {describe_error(error)}" if error else "")
            self.query_one("#options-save", Button).disabled = self.form is None
        elif event.state == WorkerState.SUCCESS:
            result = event.worker.result
            if isinstance(result, DeckOptionsForm):
                self._show(result)
            elif result is False:
                self.notify("Nothing changed; the deck file was not written.")
                self.dismiss(False)
            elif result is True:
                self.dismiss(True)

"""Review: show a card's front, reveal its back, rate it 1-4; undo, bury, suspend."""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Markdown, Rule, Static

from studykit.session import Rating, StudyCard, StudySession
from studykit.terminal import terminal_safe
from studykit.tui.cardtext import back_markdown, front_markdown
from studykit.tui.format import format_interval
from studykit.tui.guard import shown_on_screen
from studykit.tui.keys import ANSWER_BINDINGS
from studykit.tui.messages import HomeRequested, NotesRequested, ReviewFinished, ReviewScope
from studykit.tui.widgets.answer_panel import AnswerPanel
from studykit.tui.widgets.measured_value import MeasuredValue
from studykit.tui.widgets.title_bar import TitleBar

RATINGS: tuple[tuple[Rating, str], ...] = (
    (Rating.Again, "Again"),
    (Rating.Hard, "Hard"),
    (Rating.Good, "Good"),
    (Rating.Easy, "Easy"),
)
STATE_LABELS = {
    "new": "new card",
    "learning": "learning",
    "review": "review",
    "relearning": "relearning",
}


def remaining_in(session: StudySession, scope: ReviewScope) -> tuple[int, int, int]:
    """(new, learning, due) left today over the decks of `scope`."""
    if scope.deck_ids is None:
        return session.remaining(None)
    totals = [session.remaining(deck_id) for deck_id in scope.deck_ids]
    return (
        sum(t[0] for t in totals),
        sum(t[1] for t in totals),
        sum(t[2] for t in totals),
    )


def progress_text(new: int, learning: int, due: int) -> Text:
    """`12 new · 3 learning · 40 due`, coloured like Anki."""
    return Text.assemble(
        (f"{new} new", "bold #4c8dff"),
        " · ",
        (f"{learning} learning", "bold #ff7043"),
        " · ",
        (f"{due} due", "bold #4caf50"),
    )


class ReviewScreen(Screen[None]):
    """One card at a time; a rating is committed before the next card shows."""

    SUB_TITLE = "Review"

    BINDINGS: ClassVar[list[BindingType]] = [
        *ANSWER_BINDINGS,
        Binding("u", "undo", "Undo"),
        Binding("minus", "bury", "Bury", key_display="-"),
        Binding("exclamation_mark", "suspend", "Suspend", key_display="!"),
        Binding("n", "notes", "Notes"),
        Binding("escape", "home", "Home"),
    ]

    def __init__(
        self, session: StudySession, scope: ReviewScope, *, first: StudyCard | None = None
    ) -> None:
        super().__init__(id="review")
        self.session = session
        self.scope = scope
        self.card: StudyCard | None = None
        self.revealed = False
        self.shown_at = time.monotonic()
        self._first = first
        self._last_deck: str | None = None

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
        yield Footer()

    async def on_mount(self) -> None:
        first, self._first = self._first, None
        if first is not None:
            await self.show_card(first)
        else:
            await self.next_card()

    # -- queue ---------------------------------------------------------------

    def _pick(self) -> StudyCard | None:
        """The next card in scope; over several decks, start after the last card's deck."""
        if self.scope.deck_ids is None:
            return self.session.next_card(None)
        decks = list(self.scope.deck_ids)
        if self._last_deck in decks:
            start = decks.index(self._last_deck) + 1
            decks = decks[start:] + decks[:start]
        for deck_id in decks:
            card = self.session.next_card(deck_id)
            if card is not None:
                return card
        return None

    async def next_card(self) -> None:
        """Show the next card, or ask for the finish screen when nothing is left today."""
        self.card = None
        with shown_on_screen(self, "Could not fetch the next card"):
            card = self._pick()
            if card is None:
                self.refresh_bindings()
                self.post_message(ReviewFinished(self.scope))
                return
            await self.show_card(card)

    async def show_card(self, card: StudyCard) -> None:
        """Show `card`'s front and start timing the answer."""
        self.card = card
        self._last_deck = card.deck.id
        self.revealed = False
        panel = self.query_one(AnswerPanel)
        variant = panel.start(card.card)  # computed cards: a fresh seeded variant, typed answer
        self.query_one(MeasuredValue).reset()
        front = panel.front_markdown() if variant is not None else front_markdown(card.card)
        await self.query_one("#front", Markdown).update(front)
        await self.query_one("#back", Markdown).update("")
        self.set_class(False, "-revealed")
        self.query_one("#review-deck", Static).update(
            Text.assemble(
                terminal_safe(card.deck.name), (f"  ·  {STATE_LABELS[card.state]}", "dim")
            )
        )
        leech = self.query_one("#leech", Static)
        leech.display = card.leech
        leech.update(f"Leech: forgotten {card.lapses} times. Consider rewriting this card.")
        self._update_progress()
        self.query_one("#card", VerticalScroll).scroll_home(animate=False)
        if variant is not None:
            panel.focus_input()  # digits and space go into the answer, not to the bindings
        else:
            self.query_one("#show", Button).focus()
        self.refresh_bindings()
        self.shown_at = time.monotonic()

    def _update_progress(self) -> None:
        new, learning, due = remaining_in(self.session, self.scope)
        self.query_one("#review-progress", Static).update(progress_text(new, learning, due))

    # -- actions -------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "reveal":
            return self.card is not None and not self.revealed
        if action == "rate":
            return self.card is not None and self.revealed
        if action in {"bury", "suspend", "notes"}:
            return self.card is not None
        return True

    async def action_reveal(self) -> None:
        card = self.card
        if card is None or self.revealed:
            return
        with shown_on_screen(self, "Could not show the answer"):
            intervals = self.session.intervals(card)
            self.revealed = True
            panel = self.query_one(AnswerPanel)
            if panel.variant is not None:
                panel.show_solution()
                self.query_one(MeasuredValue).show_for(panel.variant)
                back = panel.back_markdown()
            else:
                back = back_markdown(card.card)
            await self.query_one("#back", Markdown).update(back)
            for rating, name in RATINGS:
                interval = intervals.get(rating)
                label = name if interval is None else f"{name} · {format_interval(interval)}"
                self.query_one(f"#{name.lower()}", Button).label = label
            self.set_class(True, "-revealed")
            self.query_one("#good", Button).focus()
            self.refresh_bindings()

    async def action_rate(self, grade: int) -> None:
        card = self.card
        if card is None or not self.revealed:
            return
        duration_ms = int((time.monotonic() - self.shown_at) * 1000)
        with shown_on_screen(self, "Your answer was not saved"):
            seed = self.query_one(AnswerPanel).seed
            self.session.answer(card, Rating(grade), duration_ms=duration_ms, variant_seed=seed)
            await self.next_card()

    async def action_undo(self) -> None:
        with shown_on_screen(self, "Could not undo"):
            card = self.session.undo()
            if card is None:
                self.notify("Nothing to undo.")
                return
            self.notify("Undone.")
            await self.show_card(card)

    async def action_bury(self) -> None:
        card = self.card
        if card is None:
            return
        with shown_on_screen(self, "Could not bury the card"):
            self.session.bury(card)
            self.notify("Buried until tomorrow.")
            await self.next_card()

    async def action_suspend(self) -> None:
        card = self.card
        if card is None:
            return
        with shown_on_screen(self, "Could not suspend the card"):
            self.session.suspend(card)
            self.notify("Suspended.")
            await self.next_card()

    def action_notes(self) -> None:
        card = self.card
        if card is None:
            return
        note = self.session.library.note_for(card.deck)
        if note is None:
            self.notify("This deck has no note.", severity="warning")
            return
        self.post_message(NotesRequested(note.id, card.card.source))

    def action_home(self) -> None:
        self.post_message(HomeRequested())

    async def on_answer_panel_graded(self, event: AnswerPanel.Graded) -> None:
        """A typed answer was graded: reveal, and put the proposed rating under enter."""
        event.stop()
        await self.action_reveal()
        if self.revealed:
            self.query_one(f"#{dict(RATINGS)[event.proposal].lower()}", Button).focus()

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "show":
            await self.action_reveal()
            return
        for rating, name in RATINGS:
            if event.button.id == name.lower():
                await self.action_rate(int(rating))

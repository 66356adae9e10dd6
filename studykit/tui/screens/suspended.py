"""Suspended cards (manual and leeches) of a scope: enter puts one back, u undoes."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from studykit.flow import FlowResult, Notice, StudyFlow, SuspendedCards
from studykit.quiz.picking import short_text
from studykit.session import StudyCard, StudySession
from studykit.tui.flowrunner import FlowRunner
from studykit.tui.guard import LoudWorkers
from studykit.tui.messages import FlowDone, ReviewScope
from studykit.tui.widgets.footer import StudyFooter
from studykit.tui.widgets.title_bar import TitleBar


def card_line(card: StudyCard) -> str:
    """`deck/card  Question text…  (leech, 8 lapses)` on one line."""
    leech = f"  (leech, {card.lapses} lapses)" if card.leech else ""
    return f"{card.deck.id}/{card.card.id}  {short_text(card.card.front, 70)}{leech}"


class SuspendedScreen(LoudWorkers, Screen[None]):
    """A list of the scope's suspended cards; its calls go through a StudyFlow's worker."""

    SUB_TITLE = "Suspended cards"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u", "undo", "Undo"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, session: StudySession, scope: ReviewScope) -> None:
        super().__init__(id="suspended")
        self.scope = scope
        self.flow = StudyFlow(session, scope.deck_ids)
        self.runner = FlowRunner(self)
        self.cards: tuple[StudyCard, ...] = ()

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static(f"Suspended in {self.scope.title}", id="suspended-title", markup=False)
        yield OptionList(id="suspended-list")
        yield Static("enter: put the card back into reviews", id="suspended-hint")
        yield StudyFooter()

    def on_mount(self) -> None:
        self.runner.submit("Could not list the suspended cards", self.flow.suspended)

    def on_flow_done(self, message: FlowDone) -> None:
        message.stop()
        result: FlowResult | None = message.result
        match result:
            case SuspendedCards(cards=cards, note=note, undoable=undoable):
                self._show(cards)
                if note:
                    self.notify(f"{note} u undoes." if undoable else note)
            case Notice(text=text):
                self.notify(text)
            case _:
                pass

    def _show(self, cards: tuple[StudyCard, ...]) -> None:
        self.cards = cards
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        if not cards:
            options.add_option(Option("No suspended cards here.", disabled=True))
            return
        options.add_options([Option(card_line(card)) for card in cards])
        options.highlighted = min(highlighted or 0, len(cards) - 1)
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.cards):
            card = self.cards[event.option_index]
            self.runner.submit("Could not unsuspend the card", lambda: self.flow.unsuspend(card))

    def action_undo(self) -> None:
        self.runner.submit("Could not undo", self.flow.undo)

    def action_back(self) -> None:
        self.dismiss()

"""The card browser without a screen: search, the selected card, its actions and their undo.

Each call returns a `BrowserView`; the screen renders it. Like a study flow, a browser is
not thread-safe by itself: the app runs its calls in order, in one worker thread.
"""

from __future__ import annotations

from dataclasses import dataclass

from studykit.study.browsing import BROWSE_LIMIT, SORT_KEYS, Browse, CardDetail, sort_rows
from studykit.study.search import Query, QueryError, parse_query
from studykit.study.session import NotLoadedError, StudyCard, StudySession

__all__ = ["BrowserView", "CardBrowser", "Detail"]

SORT_ALL = 1_000_000
"""A sorted list is sorted over every match (up to this many), then cut to the limit."""


Detail = CardDetail
"""The selected card, read fresh, with its history."""


@dataclass(frozen=True)
class BrowserView:
    """What changed: a new list, a new detail, a note for the user, a search error."""

    listing: Browse | None = None
    detail: Detail | None = None
    note: str = ""
    error: str = ""
    undoable: bool = False


class CardBrowser:
    """Search the session's cards and act on one; every action goes on the session's undo stack."""

    def __init__(
        self,
        session: StudySession,
        query: str = "",
        *,
        deck_id: str | None = None,
        limit: int = BROWSE_LIMIT,
    ) -> None:
        self.session = session
        self.query = query
        self.deck_id = deck_id
        self.limit = limit
        self.selected: StudyCard | None = None
        self.sort: str | None = None  # a key of SORT_KEYS; None: deck order
        self.descending = False

    def search(self, text: str) -> BrowserView:
        """List the cards matching `text`; an unreadable search keeps the old list and says why."""
        try:
            query = parse_query(text)
        except QueryError as error:
            return BrowserView(error=str(error))
        self.query = text
        return BrowserView(listing=self._list(query))

    def sorted_by(self, key: str | None, *, descending: bool = False) -> BrowserView:
        """List the same cards sorted by `key` (None: in deck order)."""
        if key is not None and key not in SORT_KEYS:
            raise ValueError(f"cannot sort by {key!r}")
        self.sort, self.descending = key, descending
        return BrowserView(listing=self._list(parse_query(self.query)))

    def _list(self, query: Query) -> Browse:
        if self.sort is None:
            return self.session.browse(query, deck_id=self.deck_id, limit=self.limit)
        every = self.session.browse(query, deck_id=self.deck_id, limit=SORT_ALL)
        rows = sort_rows(every.rows, self.sort, descending=self.descending)
        return Browse(tuple(rows[: self.limit]), every.total)

    def select(self, card: StudyCard | None) -> BrowserView:
        """Make `card` the selected one and show its detail."""
        self.selected = card
        return BrowserView(detail=self._detail())

    def _detail(self) -> Detail | None:
        card = self.selected
        if card is None:
            return None
        try:
            return self.session.card_detail(card)
        except NotLoadedError:
            return None

    def _after(self, note: str, *, undoable: bool = True) -> BrowserView:
        """The list and the detail read again after a change."""
        listing = self._list(parse_query(self.query))
        return BrowserView(listing, self._detail(), note, undoable=undoable)

    def toggle_suspend(self) -> BrowserView:
        """Suspend the selected card, or unsuspend it."""
        card = self._fresh()
        if card is None:
            return BrowserView(note="No card selected.")
        if card.suspended:
            self.session.unsuspend(card)
            leech = " (still marked a leech)" if card.leech else ""
            return self._after(f"Unsuspended {_name(card)}{leech}.")
        self.session.suspend(card)
        return self._after(f"Suspended {_name(card)}.")

    def toggle_bury(self) -> BrowserView:
        """Bury the selected card until the next rollover, or unbury it."""
        card = self._fresh()
        if card is None:
            return BrowserView(note="No card selected.")
        if self.session.is_buried(card):
            self.session.unbury(card)
            return self._after(f"Unburied {_name(card)}.")
        self.session.bury(card)
        return self._after(f"Buried {_name(card)} until tomorrow.")

    def forget(self) -> BrowserView:
        """Reset the selected card to new; its review history stays."""
        card = self._fresh()
        if card is None:
            return BrowserView(note="No card selected.")
        if not self.session.forget(card):
            return BrowserView(note=f"{_name(card)} is already new.")
        return self._after(f"Forgot {_name(card)}: it is new again, its history kept.")

    def undo(self) -> BrowserView:
        """Undo the session's last action of any kind (a rating in review too)."""
        done = self.session.undo_last()
        if done is None:
            return BrowserView(note="Nothing to undo.")
        label = "rating" if done.action == "rate" else done.action
        return self._after(f"Undone: the {label} of {done.name}.", undoable=False)

    def _fresh(self) -> StudyCard | None:
        """The selected card as stored now (None when none is selected or it left)."""
        card = self.selected
        if card is None:
            return None
        try:
            return self.session.study_card(card.deck.id, card.card.id, card.ordinal)
        except NotLoadedError:
            return None


def _name(card: StudyCard) -> str:
    return card.name

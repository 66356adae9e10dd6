"""The session's part that searches the loaded cards for the browser and `studykit cards`."""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import datetime
from itertools import islice

from studykit.srs.queue import DeckIndex
from studykit.srs.scheduler import State
from studykit.srs.store import Store
from studykit.srs.transitions import to_fsrs
from studykit.study.browsing import (
    BROWSE_LIMIT,
    Browse,
    CardDetail,
    CardRow,
    HistoryRow,
    any_computed,
    card_facts,
    deck_facts,
    history_rows,
    pending_claims,
)
from studykit.study.card import StudyCard
from studykit.study.decks import LoadedDecks
from studykit.study.scheduling import Scheduling
from studykit.study.search import Facts, Query

__all__ = ["CardSearch"]

Window = Callable[[], tuple[datetime, int, int]]
"""(now, now in epoch µs, end of today in µs), as the session counts them."""


class CardSearch:
    """Searches in Anki's syntax over the loaded decks; rows read fresh from the store."""

    def __init__(
        self, store: Store, decks: LoadedDecks, window: Window, scheduling: Scheduling
    ) -> None:
        self._store = store
        self._decks = decks
        self._window = window
        self._scheduling = scheduling
        # Search facts per deck id, built lazily, with the claims they show as `…`: once one
        # of those is computed (the notes or review screen shows it), the deck's are rebuilt.
        self._facts: dict[str, tuple[list[Facts], tuple[str, ...]]] = {}

    @staticmethod
    def states_of(index: DeckIndex, pos: int, now_us: int, end_us: int) -> frozenset[str]:
        """The `is:` states a card has now: new/learning/review, suspended, leech, buried, due."""
        slot = index.slots[pos]
        states = set()
        if slot.state is None:
            states.add("new")
        elif slot.state == State.Review:
            states.add("review")
        else:
            states.add("learning")
        buried = index.is_buried(pos, now_us)
        if slot.suspended:
            states.add("suspended")
        if slot.leech:
            states.add("leech")
        if buried:
            states.add("buried")
        due = slot.due_us is not None and slot.due_us < end_us
        if slot.state is not None and due and not slot.suspended and not buried:
            states.add("due")
        return frozenset(states)

    def _card_facts(self, index: DeckIndex) -> list[Facts]:
        """The search facts of a deck's cards, built on first use and again once a claim
        they showed as `…` has been computed."""
        built = self._facts.get(index.deck.id)
        if built is not None and not any_computed(built[1]):
            return built[0]
        deck = self._decks.model(index)
        deck_tags = deck_facts(deck).tags
        cards = deck.cards
        note = self._decks.library.note_for(deck)
        waiting = pending_claims(deck, note)  # before: a claim computed meanwhile is seen next
        facts = [
            card_facts(deck, cards[place], deck_tags, ordinal, note)
            for place, ordinal in zip(index.card_at, index.ordinal_at, strict=True)
        ]
        self._facts[index.deck.id] = (facts, waiting)
        return facts

    def browse(
        self, query: Query, *, deck_id: str | None = None, limit: int = BROWSE_LIMIT
    ) -> Browse:
        """Cards matching `query` (in one deck and its sub-decks, or all), in deck order.

        At most `limit` rows are built; the others are only counted.
        """
        scope = self._decks.deck_scope(deck_id)
        _, now_us, end_us = self._window()
        per_deck, per_card = query.only("deck"), query.without("deck")
        with_states = per_card.needs_states
        none: frozenset[str] = frozenset()
        found: list[tuple[DeckIndex, int]] = []
        total = 0
        for index in self._decks.all():
            if scope is not None and index.deck.id not in scope:
                continue
            if not per_deck.matches(deck_facts(self._decks.model(index)), none):
                continue
            positions: Collection[int] = range(index.total)
            if per_card.terms:
                facts = self._card_facts(index)
                states_of = self.states_of
                positions = [
                    pos
                    for pos in positions
                    if per_card.matches(
                        facts[pos],
                        states_of(index, pos, now_us, end_us) if with_states else none,
                    )
                ]
            total += len(positions)
            found.extend((index, pos) for pos in islice(positions, max(0, limit - len(found))))
        stored = self._store.states_of([index.key(pos) for index, pos in found])
        rows = []
        for index, pos in found:
            states = self.states_of(index, pos, now_us, end_us)
            card = self._decks.card(index, pos)
            state = stored.get(index.key(pos))
            rows.append(
                CardRow.of(
                    card,
                    state,
                    buried="buried" in states,
                    due="due" in states,
                    note=self._decks.library.note_for(card.deck),
                )
            )
        return Browse(tuple(rows), total)

    def card_detail(self, card: StudyCard) -> CardDetail:
        """One loaded card read fresh: row, history, recall now (NotLoadedError if not loaded)."""
        fresh = self._decks.study_card(card.deck.id, card.card.id, card.ordinal)
        found = self._decks.find(card.deck.id, card.card.id, card.ordinal)
        assert found is not None
        now, now_us, end_us = self._window()
        states = self.states_of(*found, now_us, end_us)
        stored = self._store.get_state(fresh.key)
        note = self._decks.library.note_for(fresh.deck)
        row = CardRow.of(fresh, stored, buried="buried" in states, due="due" in states, note=note)
        recall = None
        if stored is not None and stored.state is not None and stored.stability is not None:
            scheduler = self._scheduling.scheduler(fresh.deck)
            recall = scheduler.retrievability(to_fsrs(stored, now), now=now)
        return CardDetail(row, tuple(self.card_history(fresh)), recall)

    def card_history(self, card: StudyCard) -> list[HistoryRow]:
        """A card's answers and forgets, oldest first."""
        return history_rows(self._store.history(card.key), self._store.forgets(card.key))

"""The loaded decks as the session's parts see them: each deck's queue index, its outline and model.

Every part of the study facade (the queue, undo, the browser, the memory models) finds cards
through this one object, so a card is looked up the same way everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from studykit.content.loading import Library
from studykit.content.loading.outline import DeckOutline
from studykit.core.config import Settings
from studykit.core.errors import StudykitError
from studykit.srs.decks import ScheduledDeck
from studykit.srs.hierarchy import DeckHierarchy
from studykit.srs.queue import DeckIndex, index_decks
from studykit.srs.records import CardState
from studykit.srs.scheduler import State, schedule_key
from studykit.srs.siblings import BURY_ALL, BuryRule
from studykit.srs.store import Store
from studykit.study.card import StateName, StudyCard

if TYPE_CHECKING:
    from studykit.content.model import Deck

__all__ = ["LoadedDecks", "NotLoadedError", "bury_rule", "fresh_state"]

_STATE_NAMES: Mapping[State | None, StateName] = {
    None: "new",
    State.Learning: "learning",
    State.Review: "review",
    State.Relearning: "relearning",
}


class NotLoadedError(StudykitError, KeyError):
    """A deck or card id that is not in the loaded library."""

    def __str__(self) -> str:
        return str(self.args[0])


class LoadedDecks:
    """The library's decks, indexed for the queue from the store's rows."""

    def __init__(self, library: Library, store: Store, bury: BuryRule = BURY_ALL) -> None:
        self.library = library
        # Built on the outlines: counting needs no deck model (a cached library builds
        # those, and imports pydantic, on the first call that needs a card's content).
        self.outlines: Mapping[str, DeckOutline] = library.deck_outlines()
        """Each deck's name, description, limits and card ids, by id: what home shows."""
        self.tree = DeckHierarchy(self.outlines.values())
        self.indexes = index_decks(self.outlines.values(), store.queue_rows(), bury)
        """The queue index of each deck, by deck id, in library order."""

    def all(self) -> list[DeckIndex]:
        """Every deck's index, in library order."""
        return list(self.indexes.values())

    def of(self, deck_id: str | None) -> list[DeckIndex]:
        """One deck's index (None: every deck)."""
        return self.all() if deck_id is None else [self.index(deck_id)]

    def scope(self, deck_ids: Sequence[str] | None) -> list[DeckIndex]:
        """The indexes of a review scope (None: every deck), each once."""
        if deck_ids is None:
            return self.all()
        return [self.index(deck_id) for deck_id in dict.fromkeys(deck_ids)]

    def index(self, deck_id: str) -> DeckIndex:
        """The queue index of a loaded deck (NotLoadedError when it is not loaded)."""
        index = self.indexes.get(deck_id)
        if index is None:
            known = ", ".join(sorted(self.indexes)) or "none"
            raise NotLoadedError(f"no deck with id `{deck_id}` is loaded (loaded: {known})")
        return index

    def contains(self, parent: ScheduledDeck, deck: ScheduledDeck) -> bool:
        """True when `deck` is `parent` or one of its sub-decks (by `::` in the names)."""
        return self.tree.contains(parent.id, deck.id)

    def deck_scope(self, deck_id: str | None) -> list[str] | None:
        """Ids of a deck and its sub-decks (None: every deck); NotLoadedError if unknown."""
        if deck_id is None:
            return None
        parent = self.index(deck_id).deck
        return [d.id for d in self.outlines.values() if self.contains(parent, d)]

    def model(self, index: DeckIndex) -> Deck:
        """The deck's content model (the index holds its outline; a cached library builds
        the models on this first need)."""
        return self.library.decks[index.deck.id]

    def find(self, deck_id: str, card_id: str, ordinal: int = 1) -> tuple[DeckIndex, int] | None:
        """(index, position) of one loaded schedule; None if it is not loaded."""
        index = self.indexes.get(deck_id)
        pos = None if index is None else index.position.get((card_id, ordinal))
        return None if index is None or pos is None else (index, pos)

    def card(self, index: DeckIndex, pos: int) -> StudyCard:
        """The StudyCard at a position of a deck's index."""
        slot = index.slots[pos]
        deck = self.model(index)
        return StudyCard(
            deck=deck,
            card=deck.cards[index.card_at[pos]],
            key=index.key(pos),
            state=_STATE_NAMES[None if slot.state is None else State(slot.state)],
            lapses=slot.lapses,
            leech=bool(slot.leech),
            suspended=bool(slot.suspended),
            ordinal=index.ordinal_at[pos],
        )

    def study_card(self, deck_id: str, card_id: str, ordinal: int | None = None) -> StudyCard:
        """The StudyCard of one loaded schedule (NotLoadedError if it is not loaded).

        Without `ordinal`, the card's first (ordinal 1 but for a cloze without `{{c1::`).
        """
        index = self.index(deck_id)
        positions = index.positions_of(card_id)
        if not positions:
            raise NotLoadedError(f"deck `{deck_id}` has no card `{card_id}`")
        if ordinal is None:
            return self.card(index, positions[0])
        pos = index.position.get((card_id, ordinal))
        if pos is None:
            has = ", ".join(f"#{index.ordinal_at[p]}" for p in positions)
            raise NotLoadedError(f"card `{deck_id}/{card_id}` has no #{ordinal} (it has {has})")
        return self.card(index, pos)

    def schedules(self, deck_id: str, card_id: str) -> list[StudyCard]:
        """Every ordinal of one loaded card, in order (NotLoadedError if it is not loaded)."""
        index = self.index(deck_id)
        positions = index.positions_of(card_id)
        if not positions:
            raise NotLoadedError(f"deck `{deck_id}` has no card `{card_id}`")
        return [self.card(index, pos) for pos in positions]

    def suspended(self, deck_id: str | None) -> list[StudyCard]:
        """The suspended schedules of one deck (None: all), in deck order."""
        return [
            self.card(index, pos)
            for index in self.of(deck_id)
            for pos, slot in enumerate(index.slots)
            if slot.suspended
        ]

    def reindexer(
        self, deck_id: str, card_id: str, ordinal: int = 1
    ) -> Callable[[CardState], None]:
        """A function that puts a schedule's new state into the queue (a no-op once unloaded)."""
        found = self.find(deck_id, card_id, ordinal)
        if found is None:
            return lambda _: None  # the card is no longer loaded; its row stays
        index, pos = found
        return lambda new: index.put(pos, new)


def bury_rule(settings: Settings) -> BuryRule:
    """Which siblings an answer buries, for decks that do not say (config.toml's keys)."""
    return BuryRule(settings.bury_new_siblings, settings.bury_review_siblings)


def fresh_state(card: StudyCard) -> CardState:
    """The state of `card`'s schedule before it was ever answered."""
    deck_id, card_id, ordinal = card.deck.id, card.card.id, card.ordinal
    return CardState(schedule_key(deck_id, card_id, ordinal), deck_id, card_id, ordinal=ordinal)

"""StudySession: the facade the UI uses over the decks, the store and the scheduler."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta, tzinfo
from itertools import islice
from types import TracebackType
from typing import TYPE_CHECKING, Any, Concatenate, Literal, ParamSpec, Self, TypeVar

from studykit.content.loading import Library, load_library
from studykit.content.loading.outline import DeckOutline
from studykit.core.config import Settings
from studykit.core.errors import StudykitError
from studykit.srs import studyday
from studykit.srs.balance import Balancer, day_balancer
from studykit.srs.decks import ScheduledDeck
from studykit.srs.hierarchy import DeckHierarchy
from studykit.srs.limits import DailyTally, ScopeLimits
from studykit.srs.queue import DeckIndex, earliest, index_decks
from studykit.srs.records import Answer, CardState, from_us, to_us
from studykit.srs.scheduler import Rating, Scheduler, State, card_key, ensure_utc, utc_now
from studykit.srs.store import Store
from studykit.srs.transitions import answered, to_fsrs, undone
from studykit.study.browsing import (
    BROWSE_LIMIT,
    Browse,
    CardRow,
    HistoryRow,
    card_facts,
    deck_facts,
    history_rows,
)
from studykit.study.card import StateName, StudyCard
from studykit.study.search import Facts, Query
from studykit.study.stats import Stats, collect_stats

if TYPE_CHECKING:
    from studykit.content.model import Deck

__all__ = [
    "LEARN_AHEAD",
    "UNDO_DEPTH",
    "Action",
    "DeckCounts",
    "NotLoadedError",
    "Rating",
    "Stats",
    "StudyCard",
    "StudySession",
    "Undone",
    "utc_now",
]

# The UI never touches SQL or fsrs, except the `Rating` enum re-exported here. One session per
# database at a time: another process's answers are not seen until the session is reopened.

# As in Anki: when nothing else is left, a learning card due this soon is shown now.
LEARN_AHEAD = timedelta(minutes=20)
UNDO_DEPTH = 1000
"""Actions the undo stack remembers (the oldest are dropped first)."""

Action = Literal["rate", "bury", "unbury", "suspend", "unsuspend", "forget"]

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


@dataclass(frozen=True)
class DeckCounts:
    """Cards of one deck available today (limits applied), and its totals."""

    deck_id: str
    name: str
    new: int
    learning: int
    due: int
    total: int
    suspended: int


@dataclass(frozen=True)
class _Undoable:
    """One action on the session's undo stack; `log_id` names its review-log or forget row."""

    action: Action
    key: int
    deck_id: str
    card_id: str
    before: CardState
    log_id: int | None = None


@dataclass(frozen=True)
class Undone:
    """What an undo took back, and its card as it is now (None when it is no longer loaded)."""

    action: Action
    deck_id: str
    card_id: str
    card: StudyCard | None

    @property
    def name(self) -> str:
        """`deck/card`."""
        return f"{self.deck_id}/{self.card_id}"


P = ParamSpec("P")
R = TypeVar("R")


def _synchronized(
    method: Callable[Concatenate[StudySession, P], R],
) -> Callable[Concatenate[StudySession, P], R]:
    """Run the method under the session's lock (the UI may call from worker threads)."""

    @functools.wraps(method)
    def locked(self: StudySession, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with self._lock:
            return method(self, *args, **kwargs)

    return locked


class StudySession:
    """Decks + store + scheduler. `now` comes from the clock on every call."""

    def __init__(
        self,
        library: Library,
        store: Store,
        settings: Settings,
        *,
        clock: Callable[[], datetime] = utc_now,
        tz: tzinfo | None = None,
        enable_fuzzing: bool | None = None,
    ) -> None:
        self.library = library
        self.settings = settings
        self.store = store
        self._clock = clock
        self._lock = threading.RLock()
        self._tz = tz  # None: the machine's local zone, looked up at each instant
        self._fuzz = settings.enable_fuzzing if enable_fuzzing is None else enable_fuzzing
        self._schedulers: dict[tuple[float, tuple[float, ...] | None], Scheduler] = {}
        self._models: dict[str, dict[str, Any]] | None = None  # memory_model rows, read lazily
        self._today = DailyTally()
        # Built on the outlines: counting needs no deck model (a cached library builds
        # those, and imports pydantic, on the first call that needs a card's content).
        self.outlines: Mapping[str, DeckOutline] = library.deck_outlines()
        """Each deck's name, description, limits and card ids, by id: what home shows."""
        self._tree = DeckHierarchy(self.outlines.values())
        self._decks = index_decks(self.outlines.values(), store.queue_rows())
        self._undo: list[_Undoable] = []  # every kind of action, newest last
        self._facts: dict[str, list[Facts]] = {}  # search facts per deck id, built lazily

    @classmethod
    def open(
        cls,
        settings: Settings,
        *,
        clock: Callable[[], datetime] = utc_now,
        tz: tzinfo | None = None,
        enable_fuzzing: bool | None = None,
    ) -> StudySession:
        """Load the library from `settings.root` and open the store at `settings.database_path`."""
        # The store first: a database it refuses (a newer schema) leaves the data dir as it
        # was, with no library cache written into it.
        store = Store.open(settings.database_path, backups_kept=settings.backups_kept)
        try:
            library = load_library(settings.root, cache_dir=settings.cache_dir)
            return cls(library, store, settings, clock=clock, tz=tz, enable_fuzzing=enable_fuzzing)
        except BaseException:
            store.close()
            raise

    # -- time ------------------------------------------------------------------------------

    def now(self) -> datetime:
        """The session's clock, in UTC (a fake one in tests)."""
        return ensure_utc(self._clock())

    def local(self, moment: datetime) -> datetime:
        """`moment` in the session's time zone (the machine's when none was given)."""
        return moment.astimezone(self._tz)

    def study_day(self, moment: datetime) -> date:
        """The local study day of an instant: days change at the rollover hour, not midnight."""
        return studyday.study_day(moment, hour=self.settings.rollover_hour, tz=self._tz)

    def day_bounds(self, moment: datetime) -> tuple[datetime, datetime]:
        """UTC start and end of the study day holding `moment`."""
        return studyday.day_bounds(moment, hour=self.settings.rollover_hour, tz=self._tz)

    def _window(self) -> tuple[datetime, int, int]:
        """(now, now in epoch µs, end of today in µs); recounts today's answers on a new day."""
        now = self.now()
        start, end = self.day_bounds(now)
        self._today.refresh(self.store, start)
        return now, to_us(now), to_us(end)

    # -- lookups ---------------------------------------------------------------------------

    def _indexes(self, deck_id: str | None) -> list[DeckIndex]:
        if deck_id is None:
            return list(self._decks.values())
        return [self._deck(deck_id)]

    def _scope(self, deck_ids: Sequence[str] | None) -> list[DeckIndex]:
        """The indexes of a review scope (None: every deck), each once."""
        if deck_ids is None:
            return list(self._decks.values())
        return [self._deck(deck_id) for deck_id in dict.fromkeys(deck_ids)]

    def _limits(self, indexes: Sequence[DeckIndex]) -> ScopeLimits:
        """The limits over a scope; build after `_window`, which keeps today's tally current."""
        scope = {index.deck.id for index in indexes}
        return ScopeLimits(self._today, self.settings, self.outlines, self._tree, scope)

    def _deck(self, deck_id: str) -> DeckIndex:
        index = self._decks.get(deck_id)
        if index is None:
            known = ", ".join(sorted(self._decks)) or "none"
            raise NotLoadedError(f"no deck with id `{deck_id}` is loaded (loaded: {known})")
        return index

    def _deck_model(self, index: DeckIndex) -> Deck:
        """The deck's content model (the index holds its outline; a cached library builds
        the models on this first need)."""
        return self.library.decks[index.deck.id]

    def _find(self, deck_id: str, card_id: str) -> tuple[DeckIndex, int] | None:
        """(index, position) of a loaded card; None if it is not loaded."""
        index = self._decks.get(deck_id)
        pos = None if index is None else index.position.get(card_id)
        return None if index is None or pos is None else (index, pos)

    def _scheduler(self, deck: ScheduledDeck) -> Scheduler:
        retention = deck.desired_retention or self.settings.desired_retention
        model = self._model_for(deck)
        parameters = None if model is None else tuple(model["parameters"])
        scheduler = self._schedulers.get((retention, parameters))
        if scheduler is None:
            scheduler = Scheduler(
                desired_retention=retention,
                learning_steps=self.settings.learning_steps,
                relearning_steps=self.settings.relearning_steps,
                enable_fuzzing=self._fuzz,
                parameters=parameters,
            )
            self._schedulers[retention, parameters] = scheduler
        return scheduler

    def _model_for(self, deck: ScheduledDeck) -> dict[str, Any] | None:
        """The stored model of the nearest deck (itself or a parent deck), else the global one."""
        if self._models is None:
            self._models = self.store.memory_models()
        best: tuple[int, dict[str, Any]] | None = None
        for scope, model in self._models.items():
            owner = self.outlines.get(scope)
            deeper = owner is not None and (best is None or len(owner.name) > best[0])
            if owner is not None and deeper and self._contains(owner, deck):
                best = (len(owner.name), model)
        return best[1] if best is not None else self._models.get("")

    def _contains(self, parent: ScheduledDeck, deck: ScheduledDeck) -> bool:
        """True when `deck` is `parent` or one of its sub-decks (by `::` in the names)."""
        return self._tree.contains(parent.id, deck.id)

    # -- queue -----------------------------------------------------------------------------

    @_synchronized
    def deck_counts(self) -> list[DeckCounts]:
        """Every loaded deck, by name, with what is available today of its own cards."""
        _, now_us, end_us = self._window()
        result = []
        for index in self._decks.values():
            new, learning, due = self._limits([index]).total(
                {index.deck.id: index.counts(now_us=now_us, end_us=end_us)}
            )
            result.append(
                DeckCounts(
                    deck_id=index.deck.id,
                    name=index.deck.name,
                    new=new,
                    learning=learning,
                    due=due,
                    total=index.total,
                    suspended=index.suspended,
                )
            )
        return result

    @_synchronized
    def remaining(self, deck_id: str | None = None) -> tuple[int, int, int]:
        """(new, learning, due) left today in one deck (its own cards) or in all of them."""
        return self.scope_remaining(None if deck_id is None else (deck_id,))

    @_synchronized
    def scope_remaining(self, deck_ids: Sequence[str] | None) -> tuple[int, int, int]:
        """(new, learning, due) that studying these decks together serves today (None: all)."""
        _, now_us, end_us = self._window()
        indexes = self._scope(deck_ids)
        available = {i.deck.id: i.counts(now_us=now_us, end_us=end_us) for i in indexes}
        return self._limits(indexes).total(available)

    @_synchronized
    def next_card(
        self, deck_id: str | None = None, *, scope: Sequence[str] | None = None
    ) -> StudyCard | None:
        """The card to study now: learning due now, then reviews due today, then new cards.

        From `deck_id` (None: any deck of the scope) within the limits of the decks in `scope`
        (default: `deck_id` alone, or every deck when both are None).
        """
        in_scope = self._scope(scope if scope is not None or deck_id is None else (deck_id,))
        indexes = in_scope if deck_id is None else [self._deck(deck_id)]
        now, now_us, end_us = self._window()
        limits = self._limits(in_scope)
        found = earliest(indexes, "learning", until_us=now_us, now_us=now_us)
        if found is None:
            with_reviews = [i for i in indexes if limits.allows_review(i.deck.id)]
            found = earliest(with_reviews, "review", until_us=end_us - 1, now_us=now_us)
        if found is None:
            for index in indexes:
                if limits.allows_new(index.deck.id):
                    pos = index.first_new(now_us)
                    if pos is not None:
                        found = (index, pos)
                        break
        if found is None:
            ahead_us = to_us(now + LEARN_AHEAD)
            found = earliest(indexes, "learning", until_us=ahead_us, now_us=now_us)
        return None if found is None else self._study_card(*found)

    def _study_card(self, index: DeckIndex, pos: int) -> StudyCard:
        slot = index.slots[pos]
        deck = self._deck_model(index)
        return StudyCard(
            deck=deck,
            card=deck.cards[pos],
            key=index.key(pos),
            state=_STATE_NAMES[None if slot.state is None else State(slot.state)],
            lapses=slot.lapses,
            leech=bool(slot.leech),
            suspended=bool(slot.suspended),
        )

    @_synchronized
    def study_card(self, deck_id: str, card_id: str) -> StudyCard:
        """The StudyCard of one loaded card (NotLoadedError if it is not loaded)."""
        index = self._deck(deck_id)
        pos = index.position.get(card_id)
        if pos is None:
            raise NotLoadedError(f"deck `{deck_id}` has no card `{card_id}`")
        return self._study_card(index, pos)

    @_synchronized
    def suspended_cards(self, deck_id: str | None = None) -> list[StudyCard]:
        """The suspended cards (manual and leeches) of one deck or all, in deck order."""
        return [
            self._study_card(index, pos)
            for index in self._indexes(deck_id)
            for pos in index.position.values()
            if index.slots[pos].suspended
        ]

    @_synchronized
    def next_due(self, deck_id: str | None = None) -> datetime | None:
        """The earliest due time after now of a scheduled card (UTC), if any."""
        now_us = to_us(self.now())
        times = [t for i in self._indexes(deck_id) if (t := i.next_due_us(now_us)) is not None]
        return from_us(min(times)) if times else None

    # -- changes ---------------------------------------------------------------------------

    def _locate(self, card: StudyCard) -> tuple[Callable[[CardState], None], CardState]:
        """A function that updates the card in the queue, and its current stored state."""
        key = card_key(card.deck.id, card.card.id)
        state = self.store.get_state(key) or CardState(key, card.deck.id, card.card.id)
        found = self._find(card.deck.id, card.card.id)
        if found is None:
            return (lambda _: None), state  # the card is no longer loaded; its row stays
        index, pos = found
        return (lambda new: index.put(pos, new)), state

    @_synchronized
    def intervals(self, card: StudyCard) -> dict[Rating, timedelta]:
        """The next interval for each rating (without fuzz); nothing changes."""
        now = self.now()
        _, state = self._locate(card)
        return self._scheduler(card.deck).preview(to_fsrs(state, now), now=now)

    @_synchronized
    def answer(
        self,
        card: StudyCard,
        rating: Rating,
        *,
        duration_ms: int,
        variant_seed: int | None = None,
    ) -> None:
        """Rate a card; state and log are committed in one transaction before this returns."""
        rating = Rating(rating)
        now, _, _ = self._window()  # before the write, so a new day's recount cannot see it
        reindex, before = self._locate(card)
        reviewed, _ = self._scheduler(card.deck).review(
            to_fsrs(before, now),
            rating,
            now=now,
            duration_ms=duration_ms,
            balance=self._balancer(card.deck, now),
        )
        after = answered(before, reviewed, rating, now=now, leech_lapses=self.settings.leech_lapses)
        log_id = self.store.record_answer(
            before,
            after,
            rating=rating,
            reviewed_at=now,
            duration_ms=duration_ms,
            variant_seed=variant_seed,
        )
        reindex(after)
        self._today.record(card.deck.id, before.state)
        self._push("rate", before, log_id)

    def _balancer(self, deck: ScheduledDeck, now: datetime) -> Balancer | None:
        """Picks a review's day from the due counts ahead, with the deck's Easy Days."""
        easy_days = self.outlines[deck.id].easy_days or self.settings.easy_days
        if not self.settings.load_balancer and min(easy_days) == 1:
            return None
        return day_balancer(
            self._decks.values(),
            today=self.study_day(now),
            hour=self.settings.rollover_hour,
            tz=self._tz,
            easy_days=easy_days,
            even=self.settings.load_balancer,
        )

    def _push(self, action: Action, before: CardState, log_id: int | None = None) -> None:
        self._undo.append(
            _Undoable(action, before.key, before.deck_id, before.card_id, before, log_id)
        )
        del self._undo[:-UNDO_DEPTH]

    @_synchronized
    def undo(self) -> StudyCard | None:
        """Undo the last action of any kind; its card as it is now, or None."""
        done = self.undo_last()
        return None if done is None else done.card

    @_synchronized
    def undo_last(self) -> Undone | None:
        """Undo the last action of any kind (persisted); None when there is nothing to undo.

        The stack holds this session's actions; below them, the newest logged answer or
        forget (which outlive a restart) is undone.
        """
        while True:
            logged = not self._undo
            entry = self._logged_last() if logged else self._undo.pop()
            if entry is None:
                return None
            restored = self._revert(entry)
            if restored is not None:
                break
            if logged:  # the log's own newest row could not be taken back: stop, never spin
                return None
        found = self._find(entry.deck_id, entry.card_id)
        card = None
        if found is not None:  # a card no longer loaded keeps its row, unshown
            found[0].put(found[1], restored)
            card = self._study_card(*found)
        return Undone(entry.action, entry.deck_id, entry.card_id, card)

    def _logged_last(self) -> _Undoable | None:
        """The newest logged answer or forget as an undo entry (after a restart)."""
        answer, forget = self.store.last_answer(), self.store.last_forget()
        if answer is not None and (forget is None or answer.reviewed_at >= forget.forgotten_at):
            return _Undoable(
                "rate", answer.key, answer.deck_id, answer.card_id, answer.before, answer.id
            )
        if forget is not None:
            before = forget.before
            return _Undoable(
                "forget", forget.key, before.deck_id, before.card_id, before, forget.id
            )
        return None

    def _revert(self, entry: _Undoable) -> CardState | None:
        """Take one action back in the store; the restored state (None: it was already gone)."""
        current = self.store.get_state(entry.key) or entry.before
        if entry.action == "rate":
            answer = None if entry.log_id is None else self.store.answer(entry.log_id)
            if answer is None:
                return None
            restored = undone(answer, current)
            self.store.undo_answer(answer.id, restored)
            self._today.forget()  # recount today's answers from the log
            return restored
        if entry.action == "forget":
            assert entry.log_id is not None
            restored = replace(entry.before, suspended=current.suspended)
            self.store.undo_forget(entry.log_id, restored)
            return restored
        if entry.action in ("bury", "unbury"):
            restored = replace(current, buried_until=entry.before.buried_until)
        else:
            restored = replace(current, suspended=entry.before.suspended)
        self.store.put_state(restored)
        return restored

    def _change(
        self, card: StudyCard, action: Action, change: Callable[[CardState], CardState]
    ) -> None:
        reindex, state = self._locate(card)
        updated = change(state)
        self.store.put_state(updated)
        reindex(updated)
        self._push(action, state)

    @_synchronized
    def bury(self, card: StudyCard) -> None:
        """Hide a card until the next rollover."""
        _, end = self.day_bounds(self.now())
        self._change(card, "bury", lambda state: replace(state, buried_until=end))

    @_synchronized
    def suspend(self, card: StudyCard) -> None:
        """Hide a card until it is unsuspended."""
        self._change(card, "suspend", lambda state: replace(state, suspended=True))

    @_synchronized
    def unsuspend(self, card: StudyCard) -> None:
        """Show a suspended card again (a leech keeps its leech flag)."""
        self._change(card, "unsuspend", lambda state: replace(state, suspended=False))

    @_synchronized
    def unbury(self, card: StudyCard) -> None:
        """Show a buried card again today."""
        self._change(card, "unbury", lambda state: replace(state, buried_until=None))

    @_synchronized
    def forget(self, card: StudyCard) -> bool:
        """Reset a card to new; its review history stays, and the forget is logged for undo.

        Suspension, leech and bury flags stay. False (nothing done) for a card that is new.
        """
        reindex, before = self._locate(card)
        if before.state is None:
            return False
        after = before.as_new()
        log_id = self.store.record_forget(before, after, at=self.now())
        reindex(after)
        self._push("forget", before, log_id)
        return True

    @_synchronized
    def is_buried(self, card: StudyCard) -> bool:
        """True while a card is buried."""
        found = self._find(card.deck.id, card.card.id)
        return found is not None and found[0].is_buried(found[1], to_us(self.now()))

    @_synchronized
    def is_due(self, card: StudyCard) -> bool:
        """True when a scheduled card is due before today's rollover (new cards are not due)."""
        found = self._find(card.deck.id, card.card.id)
        if found is None:
            return False
        index, pos = found
        slot = index.slots[pos]
        _, now_us, end_us = self._window()
        if slot.state is None or slot.suspended or slot.due_us is None:
            return False
        return slot.due_us < end_us and not index.is_buried(pos, now_us)

    # -- browsing --------------------------------------------------------------------------

    def _states_of(self, index: DeckIndex, pos: int, now_us: int, end_us: int) -> frozenset[str]:
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
        """The search facts of a deck's cards, built on first use."""
        facts = self._facts.get(index.deck.id)
        if facts is None:
            deck = self._deck_model(index)
            deck_tags = deck_facts(deck).tags
            facts = [card_facts(deck, card, deck_tags) for card in deck.cards]
            self._facts[index.deck.id] = facts
        return facts

    @_synchronized
    def browse(
        self, query: Query, *, deck_id: str | None = None, limit: int = BROWSE_LIMIT
    ) -> Browse:
        """Cards matching `query` (in one deck and its sub-decks, or all), in deck order.

        At most `limit` rows are built; the others are only counted.
        """
        scope = self.deck_scope(deck_id)
        _, now_us, end_us = self._window()
        per_deck, per_card = query.only("deck"), query.without("deck")
        with_states = per_card.needs_states
        none: frozenset[str] = frozenset()
        found: list[tuple[DeckIndex, int]] = []
        total = 0
        for index in self._decks.values():
            if scope is not None and index.deck.id not in scope:
                continue
            if not per_deck.matches(deck_facts(self._deck_model(index)), none):
                continue
            positions: Collection[int] = index.position.values()
            if per_card.terms:
                facts = self._card_facts(index)
                states_of = self._states_of
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
        stored = self.store.states_of([index.key(pos) for index, pos in found])
        rows = []
        for index, pos in found:
            states = self._states_of(index, pos, now_us, end_us)
            card = self._study_card(index, pos)
            state = stored.get(index.key(pos))
            rows.append(CardRow.of(card, state, buried="buried" in states, due="due" in states))
        return Browse(tuple(rows), total)

    @_synchronized
    def card_row(self, card: StudyCard) -> CardRow:
        """The browse row of one loaded card, read fresh (NotLoadedError if not loaded)."""
        fresh = self.study_card(card.deck.id, card.card.id)
        found = self._find(card.deck.id, card.card.id)
        assert found is not None
        _, now_us, end_us = self._window()
        states = self._states_of(*found, now_us, end_us)
        stored = self.store.get_state(fresh.key)
        return CardRow.of(fresh, stored, buried="buried" in states, due="due" in states)

    @_synchronized
    def card_history(self, card: StudyCard) -> list[HistoryRow]:
        """A card's answers and forgets, oldest first."""
        return history_rows(self.store.history(card.key), self.store.forgets(card.key))

    # -- export ----------------------------------------------------------------------------

    @_synchronized
    def scheduling_records(self, deck_ids: Sequence[str]) -> tuple[list[CardState], list[Answer]]:
        """The stored card states of these decks and their answers, oldest first (read only)."""
        return self.store.states_in(deck_ids), self.store.answers_in(deck_ids)

    @_synchronized
    def fsrs_parameters(self, deck_id: str) -> tuple[float, ...]:
        """The FSRS parameters one deck is scheduled with."""
        return self._scheduler(self._deck(deck_id).deck).parameters

    # -- memory model ----------------------------------------------------------------------

    def deck_scope(self, deck_id: str | None) -> list[str] | None:
        """Ids of a deck and its sub-decks (None: every deck); NotLoadedError if unknown."""
        if deck_id is None:
            return None
        parent = self._deck(deck_id).deck
        return [d.id for d in self.outlines.values() if self._contains(parent, d)]

    @_synchronized
    def review_rows(self, deck_id: str | None = None) -> list[tuple[int, int, int, int]]:
        """(card key, rating, reviewed_at_us, duration_ms) of the log, oldest first."""
        return self.store.review_rows(self.deck_scope(deck_id))

    @_synchronized
    def training_log(
        self, deck_id: str | None = None
    ) -> tuple[list[tuple[int, int, int, int | None, int]], list[tuple[int, int]], int]:
        """Answers and forgets for the optimizer (see Store.training_log) and the next day
        boundary in epoch seconds."""
        answers, forgets = self.store.training_log(self.deck_scope(deck_id))
        return answers, forgets, to_us(self.day_bounds(self.now())[1]) // 1_000_000

    @_synchronized
    def has_reviews(self) -> bool:
        """True when the review log holds at least one answer."""
        return self.store.review_count() > 0

    @_synchronized
    def memory_model(self, deck_id: str | None = None) -> dict[str, Any] | None:
        """The stored model a deck (or, with None, the collection) is scheduled with, if any."""
        if deck_id is not None:
            return self._model_for(self._deck(deck_id).deck)
        if self._models is None:
            self._models = self.store.memory_models()
        return self._models.get("")

    @_synchronized
    def set_memory_model(
        self,
        deck_id: str | None,
        parameters: list[float],
        *,
        reviews: int,
        cards: int,
        log_loss: float | None = None,
        rmse: float | None = None,
    ) -> None:
        """Store fitted parameters for a deck and its sub-decks (None: globally); used at once."""
        scope = "" if deck_id is None else self._deck(deck_id).deck.id
        Scheduler(parameters=parameters)  # ValueError for parameters fsrs would refuse
        self.store.put_memory_model(
            scope,
            parameters,
            fitted_at=self.now(),
            reviews=reviews,
            cards=cards,
            log_loss=log_loss,
            rmse=rmse,
        )
        self._models = None
        self._schedulers.clear()

    @_synchronized
    def reschedule(self, deck_id: str | None = None) -> int:
        """Recompute memory state and due date of answered cards from their history; how many."""
        moved = []
        scope = self.deck_scope(deck_id)
        for index in self._indexes(None):
            if scope is not None and index.deck.id not in scope:
                continue
            scheduler = self._scheduler(index.deck)
            for pos in range(len(index.deck.cards)):
                key = index.key(pos)
                state = self.store.get_state(key)
                history = self.store.history(key) if state and state.state else []
                forgets = self.store.forgets(key) if history else []
                if forgets:  # a forget starts the card afresh: replay only what came after
                    history = [a for a in history if a.reviewed_at > forgets[-1].forgotten_at]
                if state is None or not history:
                    continue
                fsrs_card = Scheduler.new_card(key, now=history[0].reviewed_at)
                if history[0].imported:  # an imported schedule is where the replay starts
                    fsrs_card = to_fsrs(history[0].after, history[0].reviewed_at)
                    history = history[1:]
                for answer in history:
                    fsrs_card, _ = scheduler.review(
                        fsrs_card, answer.rating, now=answer.reviewed_at
                    )
                new = replace(
                    state,
                    state=State(fsrs_card.state),
                    step=fsrs_card.step,
                    stability=fsrs_card.stability,
                    difficulty=fsrs_card.difficulty,
                    due=fsrs_card.due,
                    last_review=fsrs_card.last_review,
                )
                moved.append(new)
                index.put(pos, new)
        self.store.put_states(moved)
        return len(moved)

    @_synchronized
    def workload_inputs(self) -> dict[str, Any]:
        """Loaded, unsuspended cards: how many are new; S, D, days since review, days to due
        (negative when overdue) and lapses of the rest."""
        now = self.now()
        states = {state.key: state for state in self.store.load_states()}
        new, stability, difficulty, elapsed, due_in, lapses = 0, [], [], [], [], []
        for index in self._decks.values():
            for pos in range(len(index.deck.cards)):
                state = states.get(index.key(pos))
                if state is not None and state.suspended:
                    continue
                if state is None or state.stability is None or state.last_review is None:
                    new += 1
                    continue
                stability.append(state.stability)
                difficulty.append(state.difficulty or 5.0)
                elapsed.append(max(0.0, (now - state.last_review).total_seconds() / 86400))
                due = state.due or now
                due_in.append((due - now).total_seconds() / 86400)
                lapses.append(state.lapses)
        return {
            "new": new,
            "stability": stability,
            "difficulty": difficulty,
            "elapsed": elapsed,
            "due_in": due_in,
            "lapses": lapses,
            "weekday": self.study_day(now).weekday(),  # of today, the simulation's day 0
        }

    # -- experiment cache ------------------------------------------------------------------

    @_synchronized
    def cached_experiment(
        self, *, name: str, params: dict[str, Any], seed: int, device: str, torch_version: str
    ) -> dict[str, Any] | None:
        """A cached experiment result (as stored JSON) for exactly these inputs, if any."""
        return self.store.experiment_result(
            name=name, params=params, seed=seed, device=device, torch_version=torch_version
        )

    @_synchronized
    def store_experiment(self, result: dict[str, Any]) -> None:
        """Cache an experiment result; its name, params, seed, device and torch version key it."""
        self.store.put_experiment_result(
            name=result["name"],
            params=result["params"],
            seed=result["seed"],
            device=result["device"],
            torch_version=result["torch_version"],
            result=result,
            created_at=self.now(),
        )

    # -- statistics ------------------------------------------------------------------------

    @_synchronized
    def stats(self) -> Stats:
        """Reviews today, true retention, 30-day forecast, 365-day heatmap, card totals."""
        now, _, _ = self._window()
        return collect_stats(
            self.store,
            self._decks.values(),
            now=now,
            reviews_today=self._today.answers,
            rollover_hour=self.settings.rollover_hour,
            tz=self._tz,
        )

    # -- lifetime --------------------------------------------------------------------------

    @_synchronized
    def close(self) -> None:
        """Close the store."""
        self.store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

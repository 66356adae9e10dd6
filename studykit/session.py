"""StudySession: the facade the UI uses over the decks, the store and the scheduler."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta, tzinfo
from types import TracebackType
from typing import Any, Concatenate, Literal, ParamSpec, Self, TypeVar

from studykit.config import Settings
from studykit.errors import StudykitError
from studykit.loading import Library, load_library
from studykit.model import Card, Deck
from studykit.srs import studyday
from studykit.srs.limits import DailyTally
from studykit.srs.queue import DeckIndex, earliest, index_decks
from studykit.srs.records import Answer, CardState, from_us, to_us
from studykit.srs.scheduler import Rating, Scheduler, State, card_key, ensure_utc, utc_now
from studykit.srs.store import Store
from studykit.srs.transitions import answered, to_fsrs, undone
from studykit.stats import Stats, collect_stats

__all__ = [
    "LEARN_AHEAD",
    "DeckCounts",
    "NotLoadedError",
    "Rating",
    "Stats",
    "StudyCard",
    "StudySession",
    "utc_now",
]

# The UI never touches SQL or fsrs, except the `Rating` enum re-exported here. One session per
# database at a time: another process's answers are not seen until the session is reopened.

# As in Anki: when nothing else is left, a learning card due this soon is shown now.
LEARN_AHEAD = timedelta(minutes=20)

StateName = Literal["new", "learning", "review", "relearning"]
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
class StudyCard:
    """A card as the UI sees it: content plus its scheduling summary."""

    deck: Deck
    card: Card
    key: int
    state: StateName
    lapses: int
    leech: bool
    suspended: bool


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
        self._decks = index_decks(library.decks.values(), store.queue_rows())

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

    def _deck(self, deck_id: str) -> DeckIndex:
        index = self._decks.get(deck_id)
        if index is None:
            known = ", ".join(sorted(self._decks)) or "none"
            raise NotLoadedError(f"no deck with id `{deck_id}` is loaded (loaded: {known})")
        return index

    def _find(self, deck_id: str, card_id: str) -> tuple[DeckIndex, int] | None:
        """(index, position) of a loaded card; None if it is not loaded."""
        index = self._decks.get(deck_id)
        pos = None if index is None else index.position.get(card_id)
        return None if index is None or pos is None else (index, pos)

    def _scheduler(self, deck: Deck) -> Scheduler:
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

    def _model_for(self, deck: Deck) -> dict[str, Any] | None:
        """The stored model of the nearest deck (itself or a parent deck), else the global one."""
        if self._models is None:
            self._models = self.store.memory_models()
        best: tuple[int, dict[str, Any]] | None = None
        for scope, model in self._models.items():
            owner = self.library.decks.get(scope)
            deeper = owner is not None and (best is None or len(owner.name) > best[0])
            if owner is not None and deeper and self._contains(owner, deck):
                best = (len(owner.name), model)
        return best[1] if best is not None else self._models.get("")

    @staticmethod
    def _contains(parent: Deck, deck: Deck) -> bool:
        """True when `deck` is `parent` or one of its sub-decks (by `::` in the names)."""
        return deck.id == parent.id or deck.name.startswith(parent.name + "::")

    # -- queue -----------------------------------------------------------------------------

    def _counts(self, index: DeckIndex, now_us: int, end_us: int) -> tuple[int, int, int]:
        new, learning, review = index.counts(now_us=now_us, end_us=end_us)
        new_left, reviews_left = self._today.left(index.deck, self.settings)
        return min(new, new_left), learning, min(review, reviews_left)

    @_synchronized
    def deck_counts(self) -> list[DeckCounts]:
        """Every loaded deck, by name, with what is available today."""
        _, now_us, end_us = self._window()
        result = []
        for index in self._decks.values():
            new, learning, due = self._counts(index, now_us, end_us)
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
        """(new, learning, due) left today in one deck or all of them."""
        _, now_us, end_us = self._window()
        totals = [0, 0, 0]
        for index in self._indexes(deck_id):
            for i, value in enumerate(self._counts(index, now_us, end_us)):
                totals[i] += value
        return totals[0], totals[1], totals[2]

    @_synchronized
    def next_card(self, deck_id: str | None = None) -> StudyCard | None:
        """The card to study now: learning due now, then reviews due today, then new cards."""
        indexes = self._indexes(deck_id)
        now, now_us, end_us = self._window()
        found = earliest(indexes, "learning", until_us=now_us, now_us=now_us)
        if found is None:
            with_reviews = [i for i in indexes if self._today.left(i.deck, self.settings)[1] > 0]
            found = earliest(with_reviews, "review", until_us=end_us - 1, now_us=now_us)
        if found is None:
            for index in indexes:
                if self._today.left(index.deck, self.settings)[0] > 0:
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
        return StudyCard(
            deck=index.deck,
            card=index.deck.cards[pos],
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
            to_fsrs(before, now), rating, now=now, duration_ms=duration_ms
        )
        after = answered(before, reviewed, rating, now=now, leech_lapses=self.settings.leech_lapses)
        self.store.record_answer(
            before,
            after,
            rating=rating,
            reviewed_at=now,
            duration_ms=duration_ms,
            variant_seed=variant_seed,
        )
        reindex(after)
        self._today.record(card.deck.id, before.state)

    @_synchronized
    def undo(self) -> StudyCard | None:
        """Undo the last logged answer (persisted); that card again, or None if nothing to undo."""
        last = self.store.last_answer()
        if last is None:
            return None
        restored = undone(last, self.store.get_state(last.key) or last.after)
        self.store.undo_answer(last.id, restored)
        self._today.forget()  # recount today's answers from the log
        found = self._find(last.deck_id, last.card_id)
        if found is None:
            return None  # the card is no longer loaded; its row stays
        found[0].put(found[1], restored)
        return self._study_card(*found)

    def _change(self, card: StudyCard, change: Callable[[CardState], CardState]) -> None:
        reindex, state = self._locate(card)
        updated = change(state)
        self.store.put_state(updated)
        reindex(updated)

    @_synchronized
    def bury(self, card: StudyCard) -> None:
        """Hide a card until the next rollover."""
        _, end = self.day_bounds(self.now())
        self._change(card, lambda state: replace(state, buried_until=end))

    @_synchronized
    def suspend(self, card: StudyCard) -> None:
        """Hide a card until it is unsuspended."""
        self._change(card, lambda state: replace(state, suspended=True))

    @_synchronized
    def unsuspend(self, card: StudyCard) -> None:
        """Show a suspended card again (a leech keeps its leech flag)."""
        self._change(card, lambda state: replace(state, suspended=False))

    @_synchronized
    def unbury(self, card: StudyCard) -> None:
        """Show a buried card again today."""
        self._change(card, lambda state: replace(state, buried_until=None))

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
        return [d.id for d in self.library.decks.values() if self._contains(parent, d)]

    @_synchronized
    def review_rows(self, deck_id: str | None = None) -> list[tuple[int, int, int, int]]:
        """(card key, rating, reviewed_at_us, duration_ms) of the log, oldest first."""
        return self.store.review_rows(self.deck_scope(deck_id))

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
                if state is None or not history:
                    continue
                fsrs_card = Scheduler.new_card(key, now=history[0].reviewed_at)
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
        """Loaded, unsuspended cards: how many are new, and S, D, days since review of the rest."""
        now = self.now()
        states = {state.key: state for state in self.store.load_states()}
        new, stability, difficulty, elapsed = 0, [], [], []
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
        return {"new": new, "stability": stability, "difficulty": difficulty, "elapsed": elapsed}

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

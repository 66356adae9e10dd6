"""StudySession: the facade the UI uses over the decks, the store and the scheduler.

Like Anki's `Collection`, it owns the state and delegates to parts: the loaded decks
(`decks`), the undo stack (`undo`), card search (`card_search`), scheduling with the
memory models (`scheduling`), custom study (`custom`) and deck options (`deck_options`).
Every public method runs under one lock, so the UI may call from worker threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import date, datetime, timedelta, tzinfo
from typing import Self

from studykit.content.loading import Library, load_library
from studykit.content.loading.outline import DeckOutline
from studykit.core.config import Settings
from studykit.core.jsontypes import JsonObject
from studykit.srs import studyday
from studykit.srs.lock import describe, other_sessions
from studykit.srs.records import Answer, CardState, to_us
from studykit.srs.scheduler import Rating, ensure_utc, utc_now
from studykit.srs.shapes import MemoryModel, WorkloadInputs
from studykit.srs.store import Store
from studykit.srs.transitions import answered, to_fsrs
from studykit.study.browsing import BROWSE_LIMIT, Browse, CardDetail, HistoryRow
from studykit.study.card import StudyCard
from studykit.study.card_search import CardSearch
from studykit.study.custom import CustomStudy
from studykit.study.deck_options import DeckOptionsPart
from studykit.study.decks import LoadedDecks, NotLoadedError, bury_rule, fresh_state
from studykit.study.locking import synchronized
from studykit.study.scheduling import Scheduling
from studykit.study.search import Query
from studykit.study.stats import Stats, collect_stats
from studykit.study.today import LEARN_AHEAD, DeckCounts, Today
from studykit.study.undo import UNDO_DEPTH, Action, Undone, UndoStack

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
        self.decks = LoadedDecks(library, store, bury_rule(settings))
        """The loaded decks, indexed for the queue."""
        self.scheduling = Scheduling(
            store,
            self.decks,
            settings,
            fuzz=settings.enable_fuzzing if enable_fuzzing is None else enable_fuzzing,
            now=self.now,
            study_day=self.study_day,
            tz=tz,
        )
        """Schedulers and memory models."""
        self.today = Today(store, self.decks, settings, now=self.now, day_bounds=self.day_bounds)
        """Today's queue and counts within the daily limits."""
        self._undo = UndoStack(store, self.decks, self.today.tally.forget)
        self.card_search = CardSearch(store, self.decks, self.today.window, self.scheduling)
        """Search in Anki's syntax over the loaded cards."""
        self.custom = CustomStudy(store, self.decks, self.today, self.day_bounds, self._lock)
        """Custom study: the forgotten cards, cards due ahead, or a tag's cards, as Anki's."""
        self.deck_options = DeckOptionsPart(self.decks, settings, lock=self._lock)
        """Each deck's daily limits and retention, read from and written to its YAML file."""

    @property
    def outlines(self) -> Mapping[str, DeckOutline]:
        """Each deck's name, description, limits and card ids, by id: what home shows."""
        return self.decks.outlines

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

    # -- queue (the today part) -----------------------------------------------------------

    @synchronized
    def deck_counts(self) -> list[DeckCounts]:
        """Every loaded deck, by name, with what is available today of its own cards."""
        return self.today.deck_counts()

    @synchronized
    def remaining(self, deck_id: str | None = None) -> tuple[int, int, int]:
        """(new, learning, due) left today in one deck (its own cards) or in all of them."""
        return self.today.scope_remaining(None if deck_id is None else (deck_id,))

    @synchronized
    def scope_remaining(self, deck_ids: Sequence[str] | None) -> tuple[int, int, int]:
        """(new, learning, due) that studying these decks together serves today (None: all)."""
        return self.today.scope_remaining(deck_ids)

    @synchronized
    def next_card(
        self, deck_id: str | None = None, *, scope: Sequence[str] | None = None
    ) -> StudyCard | None:
        """The card to study now (learning due, then reviews due today, then new) from `deck_id`
        (None: any in scope) within the limits of the decks in `scope` (default: `deck_id`
        alone, or every deck)."""
        return self.today.next_card(deck_id, scope)

    @synchronized
    def study_card(self, deck_id: str, card_id: str, ordinal: int | None = None) -> StudyCard:
        """One loaded schedule (default: the card's first ordinal); NotLoadedError if unknown."""
        return self.decks.study_card(deck_id, card_id, ordinal)

    @synchronized
    def schedules(self, deck_id: str, card_id: str) -> list[StudyCard]:
        """Every ordinal of one loaded card, in order (NotLoadedError if it is not loaded)."""
        return self.decks.schedules(deck_id, card_id)

    @synchronized
    def suspended_cards(self, deck_id: str | None = None) -> list[StudyCard]:
        """The suspended cards (manual and leeches) of one deck or all, in deck order."""
        return self.decks.suspended(deck_id)

    @synchronized
    def next_due(self, deck_id: str | None = None) -> datetime | None:
        """The earliest due time after now of a scheduled card (UTC), if any."""
        return self.today.next_due(deck_id)

    # -- changes ---------------------------------------------------------------------------

    @synchronized
    def intervals(self, card: StudyCard) -> dict[Rating, timedelta]:
        """The next interval for each rating (without fuzz); nothing changes."""
        now = self.now()
        fresh = fresh_state(card)
        state = self.store.get_state(fresh.key) or fresh
        return self.scheduling.scheduler(card.deck).preview(to_fsrs(state, now), now=now)

    @synchronized
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
        now, _, _ = self.today.window()  # before the write, so a new day's recount cannot see it
        scheduler = self.scheduling.scheduler(card.deck)
        balance = self.scheduling.balancer(card.deck, now)

        def decide(before: CardState) -> CardState:
            reviewed, _ = scheduler.review(
                to_fsrs(before, now), rating, now=now, duration_ms=duration_ms, balance=balance
            )
            return answered(
                before, reviewed, rating, now=now, leech_lapses=self.settings.leech_lapses
            )

        # The state is read inside the write transaction: another studykit's answer to this
        # card in between is built on, not overwritten.
        before, after, log_id = self.store.answer_card(
            fresh_state(card),
            decide,
            rating=rating,
            reviewed_at=now,
            duration_ms=duration_ms,
            variant_seed=variant_seed,
        )
        self.decks.reindexer(card.deck.id, card.card.id, card.ordinal)(after)
        self.today.record_answer(card, before.state)
        self._undo.push("rate", before, log_id)

    @synchronized
    def undo_last(self) -> Undone | None:
        """Undo the last action of any kind (persisted, see study/undo.py); None if none."""
        return self._undo.undo_last()

    def _change(
        self, card: StudyCard, action: Action, change: Callable[[CardState], CardState]
    ) -> None:
        before, after = self.store.change_state(fresh_state(card), change)
        self.decks.reindexer(card.deck.id, card.card.id, card.ordinal)(after)
        self._undo.push(action, before)

    @synchronized
    def bury(self, card: StudyCard) -> None:
        """Hide a card until the next rollover."""
        _, end = self.day_bounds(self.now())
        self._change(card, "bury", lambda state: replace(state, buried_until=end))

    @synchronized
    def suspend(self, card: StudyCard) -> None:
        """Hide a card until it is unsuspended."""
        self._change(card, "suspend", lambda state: replace(state, suspended=True))

    @synchronized
    def unsuspend(self, card: StudyCard) -> None:
        """Show a suspended card again (a leech keeps its leech flag)."""
        self._change(card, "unsuspend", lambda state: replace(state, suspended=False))

    @synchronized
    def unbury(self, card: StudyCard) -> None:
        """Show a buried card again today (one buried by a sibling's answer too)."""
        now = self.now()  # inside today, it lifts a sibling's burial too (siblings.py)
        self._change(card, "unbury", lambda state: replace(state, buried_until=now))

    @synchronized
    def forget(self, card: StudyCard) -> bool:
        """Reset a card to new; its review history stays, and the forget is logged for undo.

        Suspension, leech and bury flags stay. False (nothing done) for a card that is new.
        """
        done = self.store.forget_card(fresh_state(card), at=self.now())
        if done is None:
            return False
        before, log_id = done
        self.decks.reindexer(card.deck.id, card.card.id, card.ordinal)(before.as_new())
        self._undo.push("forget", before, log_id)
        return True

    @synchronized
    def is_buried(self, card: StudyCard) -> bool:
        """True while a card is buried (by hand, or by a sibling's answer today)."""
        return self.today.is_buried(card)

    @synchronized
    def is_due(self, card: StudyCard) -> bool:
        """True when a scheduled card is due before today's rollover (new cards are not due)."""
        return self.today.is_due(card)

    @synchronized
    def apply_synced(self, merge: Callable[[], Sequence[CardState]]) -> None:
        """Run a sync's merge under the lock; its states go into the queue, undo starts afresh."""
        for state in merge():
            self.decks.reindexer(state.deck_id, state.card_id, state.ordinal)(state)
        self._undo.clear()  # no undo may restore a state from before the merge
        self.today.tally.forget()

    # -- browsing (the card_search part) ---------------------------------------------------

    @synchronized
    def browse(
        self, query: Query, *, deck_id: str | None = None, limit: int = BROWSE_LIMIT
    ) -> Browse:
        """Cards matching `query` (in a deck and its sub-decks, or all), at most `limit` built."""
        return self.card_search.browse(query, deck_id=deck_id, limit=limit)

    @synchronized
    def card_detail(self, card: StudyCard) -> CardDetail:
        """A loaded card read fresh: row, history, recall now (NotLoadedError if not loaded)."""
        return self.card_search.card_detail(card)

    @synchronized
    def card_history(self, card: StudyCard) -> list[HistoryRow]:
        """A card's answers and forgets, oldest first."""
        return self.card_search.card_history(card)

    # -- export ----------------------------------------------------------------------------

    @synchronized
    def scheduling_records(self, deck_ids: Sequence[str]) -> tuple[list[CardState], list[Answer]]:
        """The stored card states of these decks and their answers, oldest first (read only)."""
        return self.store.states_in(deck_ids), self.store.answers_in(deck_ids)

    @synchronized
    def sibling_buried(self, deck_ids: Sequence[str]) -> list[tuple[str, str, int]]:
        """(deck, card, ordinal) of the schedules of these decks buried by a sibling's answer."""
        return self.today.sibling_buried(deck_ids)

    @synchronized
    def fsrs_parameters(self, deck_id: str) -> tuple[float, ...]:
        """The FSRS parameters one deck is scheduled with."""
        return self.scheduling.scheduler(self.decks.index(deck_id).deck).parameters

    # -- memory model (the scheduling part) ------------------------------------------------

    def deck_scope(self, deck_id: str | None) -> list[str] | None:
        """Ids of a deck and its sub-decks (None: every deck); NotLoadedError if unknown."""
        return self.decks.deck_scope(deck_id)

    @synchronized
    def review_rows(self, deck_id: str | None = None) -> list[tuple[int, int, int, int]]:
        """(card key, rating, reviewed_at_us, duration_ms) of the log, oldest first."""
        return self.store.review_rows(self.deck_scope(deck_id))

    @synchronized
    def training_log(
        self, deck_id: str | None = None
    ) -> tuple[list[tuple[int, int, int, int | None, int]], list[tuple[int, int]], int]:
        """Answers and forgets for the optimizer (see Store.training_log) and the next day
        boundary in epoch seconds."""
        answers, forgets = self.store.training_log(self.deck_scope(deck_id))
        return answers, forgets, to_us(self.day_bounds(self.now())[1]) // 1_000_000

    @synchronized
    def has_reviews(self) -> bool:
        """True when the review log holds at least one answer."""
        return self.store.review_count() > 0

    @synchronized
    def memory_model(self, deck_id: str | None = None) -> MemoryModel | None:
        """The stored model a deck (or, with None, the collection) is scheduled with, if any."""
        return self.scheduling.memory_model(deck_id)

    @synchronized
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
        self.scheduling.set_memory_model(
            deck_id, parameters, reviews=reviews, cards=cards, log_loss=log_loss, rmse=rmse
        )

    @synchronized
    def reschedule(self, deck_id: str | None = None) -> int:
        """Recompute memory state and due date of answered cards from their history; how many."""
        return self.scheduling.reschedule(deck_id)

    @synchronized
    def workload_inputs(self) -> WorkloadInputs:
        """The loaded cards the workload simulation starts from (see `WorkloadInputs`)."""
        return self.scheduling.workload_inputs()

    # -- experiment cache ------------------------------------------------------------------

    @synchronized
    def cached_experiment(
        self, *, name: str, params: Mapping[str, object], seed: int, device: str, torch_version: str
    ) -> JsonObject | None:
        """A cached experiment result (as stored JSON) for exactly these inputs, if any."""
        return self.store.experiment_result(
            name=name, params=params, seed=seed, device=device, torch_version=torch_version
        )

    @synchronized
    def store_experiment(self, result: JsonObject) -> None:
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

    @synchronized
    def stats(self) -> Stats:
        """Reviews today, true retention, 30-day forecast, 365-day heatmap, card totals."""
        now, _, _ = self.today.window()
        return collect_stats(
            self.store,
            self.decks.all(),
            now=now,
            reviews_today=self.today.tally.answers,
            rollover_hour=self.settings.rollover_hour,
            tz=self._tz,
        )

    # -- lifetime --------------------------------------------------------------------------

    @synchronized
    def other_sessions(self) -> str:
        """`another studykit (pid 42)` while other processes have the database open, else ''."""
        others = other_sessions(self.store.path)
        return describe(others) if others else ""

    def close(self) -> None:
        """Close the store."""
        self.store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

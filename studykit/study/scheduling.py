"""The session's part that schedules: one fsrs scheduler per retention and memory model, the
stored models (fitted parameters per deck, or global), rescheduling from history, and what the
workload simulation starts from."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, tzinfo

from studykit.core.config import Settings
from studykit.srs.balance import Balancer, day_balancer
from studykit.srs.decks import ScheduledDeck
from studykit.srs.replay import replayed_state
from studykit.srs.scheduler import Scheduler
from studykit.srs.shapes import MemoryModel, WorkloadInputs
from studykit.srs.store import Store
from studykit.study.decks import LoadedDecks

__all__ = ["Scheduling"]


class Scheduling:
    """Schedulers for the loaded decks, built once per (retention, parameters)."""

    def __init__(
        self,
        store: Store,
        decks: LoadedDecks,
        settings: Settings,
        *,
        fuzz: bool,
        now: Callable[[], datetime],
        study_day: Callable[[datetime], date],
        tz: tzinfo | None,
    ) -> None:
        self._store = store
        self._decks = decks
        self._settings = settings
        self._fuzz = fuzz
        self._now = now
        self._study_day = study_day
        self._tz = tz
        self._schedulers: dict[tuple[float, tuple[float, ...] | None], Scheduler] = {}
        self._models: dict[str, MemoryModel] | None = None  # memory_model rows, read lazily

    def scheduler(self, deck: ScheduledDeck) -> Scheduler:
        """The scheduler of a deck: its desired retention and its nearest memory model."""
        retention = deck.desired_retention or self._settings.desired_retention
        model = self.model_for(deck)
        parameters = None if model is None else tuple(model["parameters"])
        scheduler = self._schedulers.get((retention, parameters))
        if scheduler is None:
            scheduler = Scheduler(
                desired_retention=retention,
                learning_steps=self._settings.learning_steps,
                relearning_steps=self._settings.relearning_steps,
                enable_fuzzing=self._fuzz,
                parameters=parameters,
            )
            self._schedulers[retention, parameters] = scheduler
        return scheduler

    def balancer(self, deck: ScheduledDeck, now: datetime) -> Balancer | None:
        """Picks a review's day from the due counts ahead, with the deck's Easy Days."""
        settings = self._settings
        easy_days = self._decks.outlines[deck.id].easy_days or settings.easy_days
        if not settings.load_balancer and min(easy_days) == 1:
            return None
        return day_balancer(
            self._decks.all(),
            today=self._study_day(now),
            hour=settings.rollover_hour,
            tz=self._tz,
            easy_days=easy_days,
            even=settings.load_balancer,
        )

    def _stored(self) -> dict[str, MemoryModel]:
        if self._models is None:
            self._models = self._store.memory_models()
        return self._models

    def model_for(self, deck: ScheduledDeck) -> MemoryModel | None:
        """The stored model of the nearest deck (itself or a parent deck), else the global one."""
        models = self._stored()
        best: tuple[int, MemoryModel] | None = None
        for scope, model in models.items():
            owner = self._decks.outlines.get(scope)
            deeper = owner is not None and (best is None or len(owner.name) > best[0])
            if owner is not None and deeper and self._decks.contains(owner, deck):
                best = (len(owner.name), model)
        return best[1] if best is not None else models.get("")

    def memory_model(self, deck_id: str | None = None) -> MemoryModel | None:
        """The stored model a deck (or, with None, the collection) is scheduled with, if any."""
        if deck_id is not None:
            return self.model_for(self._decks.index(deck_id).deck)
        return self._stored().get("")

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
        scope = "" if deck_id is None else self._decks.index(deck_id).deck.id
        Scheduler(parameters=parameters)  # ValueError for parameters fsrs would refuse
        self._store.put_memory_model(
            scope,
            parameters,
            fitted_at=self._now(),
            reviews=reviews,
            cards=cards,
            log_loss=log_loss,
            rmse=rmse,
        )
        self._models = None
        self._schedulers.clear()

    def reschedule(self, deck_id: str | None = None) -> int:
        """Recompute memory state and due date of answered cards from their history; how many."""
        moved = []
        scope = self._decks.deck_scope(deck_id)
        store = self._store
        for index in self._decks.all():
            if scope is not None and index.deck.id not in scope:
                continue
            scheduler = self.scheduler(index.deck)
            for pos in range(index.total):
                key = index.key(pos)
                state = store.get_state(key)
                if state is None or state.state is None:
                    continue
                new = replayed_state(state, store.history(key), store.forgets(key), scheduler)
                if new is None:
                    continue
                moved.append(new)
                index.put(pos, new)
        store.put_states(moved)
        return len(moved)

    def workload_inputs(self) -> WorkloadInputs:
        """Loaded, unsuspended cards: how many are new; S, D, days since review, days to due
        (negative when overdue) and lapses of the rest."""
        now = self._now()
        states = {state.key: state for state in self._store.load_states()}
        new = 0
        stability: list[float] = []
        difficulty: list[float] = []
        elapsed: list[float] = []
        due_in: list[float] = []
        lapses: list[int] = []
        for index in self._decks.all():
            for pos in range(index.total):
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
            "weekday": self._study_day(now).weekday(),  # of today, the simulation's day 0
        }

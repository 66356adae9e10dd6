"""How an answer, and its undo, change a card's stored state."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

import fsrs

from studykit.srs.records import Answer, CardState
from studykit.srs.scheduler import Rating, Scheduler, State

__all__ = ["answered", "is_leech", "to_fsrs", "undone", "with_memory"]


def to_fsrs(state: CardState, now: datetime) -> fsrs.Card:
    """The fsrs card of a stored state (a new card is due `now`)."""
    if state.state is None:
        return Scheduler.new_card(state.key, now=now)
    return fsrs.Card(
        card_id=state.key,
        state=state.state,
        step=state.step,
        stability=state.stability,
        difficulty=state.difficulty,
        due=state.due,
        last_review=state.last_review,
    )


def with_memory(state: CardState, card: fsrs.Card, **changes: Any) -> CardState:
    """`state` with the schedule and memory state of fsrs's `card` (counts and flags kept,
    unless `changes` names them: one copy, not two)."""
    return replace(
        state,
        state=State(card.state),
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=card.due,
        last_review=card.last_review,
        **changes,
    )


def is_leech(lapses: int, threshold: int) -> bool:
    """True when a card reaching `lapses` lapses becomes (again) a leech."""
    # Anki's rule: a leech at the threshold, then again every half threshold.
    return lapses >= threshold and (lapses - threshold) % max(1, threshold // 2) == 0


def answered(
    before: CardState, reviewed: fsrs.Card, rating: Rating, *, now: datetime, leech_lapses: int
) -> CardState:
    """The state to store after `rating` turned `before` into fsrs's `reviewed` card at `now`."""
    lapse = before.state == State.Review and rating == Rating.Again
    lapses = before.lapses + int(lapse)
    leech_now = lapse and is_leech(lapses, leech_lapses)
    return with_memory(
        before,
        reviewed,
        reps=before.reps + 1,
        lapses=lapses,
        suspended=before.suspended or leech_now,
        leech=before.leech or leech_now,
        buried_until=None,
        introduced_at=before.introduced_at or now,
    )


def undone(last: Answer, current: CardState) -> CardState:
    """The state to restore when undoing `last`; `current` is the card's state now."""
    # A suspension the answer caused (a new leech) goes with it; one made since stays.
    made_leech = last.after.leech and not last.before.leech
    return replace(
        last.before,
        suspended=last.before.suspended if made_leech else current.suspended,
    )

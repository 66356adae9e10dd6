"""A card's review history replayed through a scheduler: the memory state and due date it
gives. `optimize --reschedule` replays with newly fitted parameters; a sync replays the merged
history of both sides."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

import fsrs

from studykit.srs.records import Answer, CardState, Forget
from studykit.srs.scheduler import Rating, Scheduler
from studykit.srs.transitions import answered, to_fsrs, with_memory

__all__ = ["Event", "EventKind", "Step", "replay", "replay_events", "replayed_state"]


def replay(
    key: int, history: Sequence[Answer], forgets: Sequence[Forget], scheduler: Scheduler
) -> fsrs.Card | None:
    """The fsrs card after the answers in `history` (oldest first); None when none count.

    A forget starts the card afresh, so only what came after the newest forget is replayed;
    an imported schedule (an Obsidian plugin's) is where the replay starts.
    """
    answers = list(history)
    if forgets:
        answers = [a for a in answers if a.reviewed_at > forgets[-1].forgotten_at]
    if not answers:
        return None
    card = Scheduler.new_card(key, now=answers[0].reviewed_at)
    if answers[0].imported:
        card = to_fsrs(answers[0].after, answers[0].reviewed_at)
        answers = answers[1:]
    for answer in answers:
        card, _ = scheduler.review(card, answer.rating, now=answer.reviewed_at)
    return card


def replayed_state(
    state: CardState, history: Sequence[Answer], forgets: Sequence[Forget], scheduler: Scheduler
) -> CardState | None:
    """`state` with the schedule its history gives (None: nothing to replay)."""
    card = replay(state.key, history, forgets, scheduler)
    return None if card is None else with_memory(state, card)


EventKind = Literal["answer", "cram", "imported", "forget"]


@dataclass(frozen=True)
class Event:
    """One row of a card's merged log: an answer (here or elsewhere), an answer from a cram
    deck (it counts by the quiz rule), an imported starting state, or a forget."""

    at: datetime
    kind: EventKind
    handle: object
    """The caller's name for the row (its id, or the new row it will be)."""
    rating: Rating | None = None
    duration_ms: int = 0
    imported: CardState | None = None
    """The starting state an imported row set."""
    new: bool = False
    """Taken in by this merge: only a new answer may make the card a leech now."""


@dataclass(frozen=True)
class Step:
    """What one event did: the state before and after it, and whether it counted."""

    event: Event
    before: CardState
    after: CardState
    counted: bool = True


_NEVER = 1 << 30


def _due_that_day(state: CardState, event: Event, day_end: Callable[[datetime], datetime]) -> bool:
    """Whether the card was due by the end of the study day of `event`."""
    return state.due is not None and state.state is not None and state.due < day_end(event.at)


def replay_events(
    current: CardState,
    events: Sequence[Event],
    scheduler: Scheduler,
    *,
    leech_lapses: int,
    day_end: Callable[[datetime], datetime],
    cram_counts: bool = False,
    go_on: bool = False,
) -> tuple[CardState, list[Step]]:
    """Walk a card's merged log in time order from new; the state it ends in, and each step.

    Flags (suspended, leech, buried) start as `current` has them, so an old lapse never
    suspends a card the student put back; an answer from a cram deck counts when the card
    was due by the end of that study day (`day_end`), or always with `cram_counts`. With
    `go_on`, `events` all come after the card's last one: the walk goes on from `current`.
    """
    state = current if go_on else current.as_new()
    steps: list[Step] = []
    answered_now = False
    for event in sorted(events, key=lambda e: e.at):
        before = state
        if event.kind == "forget":
            state = state.as_new()
        elif event.kind == "imported" and event.imported is not None:
            state = replace(
                event.imported,
                suspended=state.suspended,
                leech=state.leech,
                buried_until=state.buried_until,
            )
        elif event.rating is not None:
            if event.kind == "cram" and not (cram_counts or _due_that_day(state, event, day_end)):
                steps.append(Step(event, before, before, counted=False))
                continue
            reviewed, _ = scheduler.review(
                to_fsrs(state, event.at), event.rating, now=event.at, duration_ms=event.duration_ms
            )
            threshold = leech_lapses if event.new else _NEVER
            state = answered(state, reviewed, event.rating, now=event.at, leech_lapses=threshold)
            answered_now = answered_now or event.new
        steps.append(Step(event, before, state))
    if not answered_now:  # only a new answer ends a burial
        state = replace(state, buried_until=current.buried_until)
    return state, steps

"""A card's review history replayed through a scheduler: the memory state and due date it
gives. `optimize --reschedule` replays with newly fitted parameters; a sync replays the merged
history of both sides."""

from __future__ import annotations

from collections.abc import Sequence

import fsrs

from studykit.srs.records import Answer, CardState, Forget
from studykit.srs.scheduler import Scheduler
from studykit.srs.transitions import to_fsrs, with_memory

__all__ = ["replay", "replayed_state"]


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

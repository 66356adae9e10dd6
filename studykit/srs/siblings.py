"""Siblings: the schedules of one card (a cloze's deletions, a reversed card's directions).

As Anki does with the cards of one note, with "bury new siblings" and "bury review siblings"
on (a deck option, on by default):
- once one ordinal is answered, its new siblings and those in review wait until the next
  study day (derived from today's review log, so an undone answer takes the burial back
  with it and a restart keeps it; nothing is written);
- of the siblings not answered today, the queue gathers one: a card in (re)learning holds
  back its new and review siblings, a review due today its new siblings and the other
  reviews, a new one the other new ones. Anki's study screen counts what it gathers, so
  home counts the same.
A schedule buried by hand stays buried and is gathered by nothing; one unburied by hand today
(`buried_until` inside the study day) is free of its siblings' burial until tomorrow.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple, Protocol

__all__ = ["BURY_ALL", "BuryRule", "Day", "Settled", "settle"]

_REVIEW = 2  # fsrs State.Review


class SlotLike(Protocol):
    """What settling needs of a schedule's slot (`queue.Slot`)."""

    @property
    def state(self) -> int | None: ...
    @property
    def due_us(self) -> int | None: ...
    @property
    def suspended(self) -> int: ...
    @property
    def buried_until_us(self) -> int | None: ...


class BuryRule(NamedTuple):
    """Which siblings an answer buries until tomorrow (a deck's options)."""

    new: bool = True
    review: bool = True


BURY_ALL = BuryRule()
"""Anki's defaults, and ours: new and review siblings both wait."""


class Day(NamedTuple):
    """The study day the burials are for: its start and end, epoch microseconds."""

    start_us: int
    end_us: int


class Settled(NamedTuple):
    """What one card's siblings are today: buried by an answer, or not gathered."""

    buried: tuple[int, ...]
    held_back: tuple[int, ...]


_NOTHING = Settled((), ())


def settle(
    schedules: Sequence[tuple[int, int, SlotLike]],
    answered: Collection[int],
    rule: BuryRule,
    day: Day,
) -> Settled:
    """Buried and held-back positions of one card's schedules, `(position, ordinal, slot)`.

    `answered` holds the ordinals answered today; positions come back in the order given.
    """
    if not (rule.new or rule.review) or len(schedules) < 2:
        return _NOTHING
    start_us, end_us = day
    buried: list[int] = []
    free: list[tuple[int, SlotLike]] = []  # in the queue today and not buried
    for pos, ordinal, slot in schedules:
        if slot.suspended:
            continue
        until = slot.buried_until_us
        if until is not None and until >= end_us:
            continue  # buried by hand: gathered by nothing
        unburied = until is not None and start_us < until < end_us
        kind_buried = rule.new if slot.state is None else rule.review and slot.state == _REVIEW
        if kind_buried and not unburied and any(other != ordinal for other in answered):
            buried.append(pos)
        else:
            free.append((pos, slot))
    held: list[int] = []
    seen = any(
        slot.state is not None and slot.state != _REVIEW and (slot.due_us or 0) < end_us
        for _, slot in free
    )
    due = [
        (slot.due_us or 0, pos)
        for pos, slot in free
        if slot.state == _REVIEW and (slot.due_us or 0) < end_us
    ]
    for k, (_, pos) in enumerate(sorted(due)):
        if rule.review and (seen or k > 0):
            held.append(pos)
    seen = seen or bool(due)
    fresh = [pos for pos, slot in free if slot.state is None]
    for k, pos in enumerate(fresh):
        if rule.new and (seen or k > 0):
            held.append(pos)
    return Settled(tuple(buried), tuple(held))

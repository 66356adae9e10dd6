"""Custom study, as Anki's: a session over a filter of one deck's cards, answered as usual.

Three filters: the cards forgotten (answered Again) in the last N days, the cards due within
the next N days (review ahead), and the cards with a tag. The answers go through the
deck's scheduler like any other (Anki's filtered decks with rescheduling on); a learning
card comes back when it is due again, as in a filtered deck.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal, get_args

from studykit.core.errors import StudykitError
from studykit.srs.queue import DeckIndex
from studykit.srs.records import to_us
from studykit.srs.scheduler import State
from studykit.srs.store import Store
from studykit.study.card import StudyCard
from studykit.study.decks import LoadedDecks
from studykit.study.locking import synchronized
from studykit.study.today import LEARN_AHEAD, Today

__all__ = [
    "KINDS",
    "MAX_CUSTOM_CARDS",
    "MAX_DAYS",
    "MAX_TAG",
    "CustomKind",
    "CustomQueue",
    "CustomRequest",
    "CustomStudy",
    "CustomStudyError",
]

CustomKind = Literal["forgotten", "ahead", "tag"]
KINDS: tuple[CustomKind, ...] = get_args(CustomKind)
MAX_DAYS = 365
"""The most days a forgotten or review-ahead filter looks back or forward."""
MAX_TAG = 100
"""The longest tag a user may type (characters)."""
MAX_CUSTOM_CARDS = 1000
"""The most cards one custom study serves (the first in deck order, or by due date)."""
_TAG = re.compile(r"[^\s:\"]+")
_LEARN_AHEAD_US = LEARN_AHEAD // timedelta(microseconds=1)
Ref = tuple[str, str, int]  # (deck id, card id, ordinal)


class CustomStudyError(StudykitError, ValueError):
    """A custom study request that cannot be used; the message says what to type."""


@dataclass(frozen=True)
class CustomRequest:
    """Which filter: `forgotten` or `ahead` with `days`, or `tag` with `tag`."""

    kind: CustomKind
    days: int = 1
    tag: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise CustomStudyError(f"unknown custom study `{self.kind}` (known: {KINDS})")
        if self.kind == "tag":
            if not self.tag or len(self.tag) > MAX_TAG or not _TAG.fullmatch(self.tag):
                raise CustomStudyError(
                    f"Tag: type one tag, without spaces, quotes or colons "
                    f"(at most {MAX_TAG} characters), e.g. rnn"
                )
        elif not 1 <= self.days <= MAX_DAYS:
            raise CustomStudyError(f"Days: type a whole number from 1 to {MAX_DAYS}")

    @classmethod
    def parse(cls, kind: str, days: str, tag: str) -> CustomRequest:
        """A request from what was typed (CustomStudyError says what to type instead)."""
        if kind == "tag":
            return cls("tag", tag=tag.strip())
        text = days.strip()
        if not text.isascii() or not text.isdigit() or len(text) > 3:
            raise CustomStudyError(f"Days: type a whole number from 1 to {MAX_DAYS}")
        return cls(kind, days=int(text))  # type: ignore[arg-type]  # checked in __post_init__

    def describe(self) -> str:
        """`forgotten today`, `due in the next 3 days`, `tagged rnn`."""
        if self.kind == "tag":
            return f"tagged {self.tag}"
        if self.kind == "forgotten":
            return (
                "forgotten today" if self.days == 1 else f"forgotten in the last {self.days} days"
            )
        return f"due in the next {self.days} day{'s' if self.days > 1 else ''}"


@dataclass
class CustomQueue:
    """The schedules one custom study serves, in order, and those answered in it so far."""

    request: CustomRequest
    refs: tuple[Ref, ...]
    found: int
    """How many matched the filter (more than `refs` holds when capped)."""
    answered: set[Ref] = field(default_factory=set)


class CustomStudy:
    """The session's part that builds custom study queues and serves their cards."""

    def __init__(
        self,
        store: Store,
        decks: LoadedDecks,
        today: Today,
        day_bounds: Callable[[datetime], tuple[datetime, datetime]],
        lock: threading.RLock,
    ) -> None:
        self._store = store
        self._decks = decks
        self._today = today
        self._day_bounds = day_bounds
        self._lock = lock

    @synchronized
    def build(self, deck_ids: Sequence[str] | None, request: CustomRequest) -> CustomQueue:
        """The cards of these decks (None: every deck) that meet `request`, neither suspended
        nor buried; at most MAX_CUSTOM_CARDS of them."""
        now, now_us, _ = self._today.window()
        indexes = self._decks.scope(deck_ids)
        found: list[tuple[int, Ref]] = []  # (sort key, ref)
        if request.kind == "forgotten":
            start, _ = self._day_bounds(now - timedelta(days=request.days - 1))
            forgotten = set(self._store.forgotten_since(start))
            found = [(0, ref) for ref in self._refs(indexes, now_us) if ref in forgotten]
        elif request.kind == "ahead":
            _, end = self._day_bounds(now + timedelta(days=request.days))
            until = to_us(end)
            for index in indexes:
                for pos, slot in enumerate(index.slots):
                    due = slot.due_us
                    if self._open(index, pos, now_us) and due is not None and due < until:
                        found.append((due, self._ref(index, pos)))
            found.sort()
        else:
            tag = request.tag.casefold()
            for index in indexes:
                deck = self._decks.model(index)
                tags = {t.casefold() for t in deck.tags}
                for pos in range(len(index.slots)):
                    card = deck.cards[index.card_at[pos]]
                    if self._open(index, pos, now_us) and (
                        tag in tags or any(t.casefold() == tag for t in card.tags)
                    ):
                        found.append((0, self._ref(index, pos)))
        refs = tuple(ref for _, ref in found[:MAX_CUSTOM_CARDS])
        return CustomQueue(request, refs, len(found))

    @staticmethod
    def _ref(index: DeckIndex, pos: int) -> Ref:
        return index.deck.id, index.card(pos).id, index.ordinal_at[pos]

    @staticmethod
    def _open(index: DeckIndex, pos: int, now_us: int) -> bool:
        """Neither suspended nor buried."""
        return not index.slots[pos].suspended and not index.is_buried(pos, now_us)

    def _refs(self, indexes: list[DeckIndex], now_us: int) -> list[Ref]:
        return [
            self._ref(index, pos)
            for index in indexes
            for pos in range(len(index.slots))
            if self._open(index, pos, now_us)
        ]

    def _slots(self, queue: CustomQueue, now_us: int) -> list[tuple[Ref, DeckIndex, int]]:
        """The queue's schedules still loaded, neither suspended nor buried, in order."""
        open_ = []
        for ref in queue.refs:
            found = self._decks.find(*ref)
            if found is not None and self._open(found[0], found[1], now_us):
                open_.append((ref, *found))
        return open_

    @synchronized
    def next_card(self, queue: CustomQueue) -> StudyCard | None:
        """Learning cards of the queue due now, then the first card not answered in it yet,
        then a learning card due within the learn-ahead limit; None: the study is over."""
        _, now_us, _ = self._today.window()
        learning: list[tuple[int, DeckIndex, int]] = []
        unanswered: tuple[DeckIndex, int] | None = None
        for ref, index, pos in self._slots(queue, now_us):
            slot = index.slots[pos]
            if ref not in queue.answered:
                unanswered = unanswered or (index, pos)
            elif slot.state in (State.Learning, State.Relearning) and slot.due_us is not None:
                learning.append((slot.due_us, index, pos))
        soonest = min(learning, key=lambda entry: entry[0], default=None)
        if soonest is not None and soonest[0] <= now_us:
            return self._decks.card(soonest[1], soonest[2])
        if unanswered is not None:
            return self._decks.card(*unanswered)
        if soonest is not None and soonest[0] <= now_us + _LEARN_AHEAD_US:
            return self._decks.card(soonest[1], soonest[2])
        return None

    @synchronized
    def remaining(self, queue: CustomQueue) -> tuple[int, int, int]:
        """(new, learning, due) the queue still holds: those not answered in it by state,
        and answered cards in learning again within the learn-ahead limit."""
        _, now_us, _ = self._today.window()
        new = learning = due = 0
        for ref, index, pos in self._slots(queue, now_us):
            slot = index.slots[pos]
            if ref not in queue.answered:
                if slot.state is None:
                    new += 1
                elif slot.state == State.Review:
                    due += 1
                else:
                    learning += 1
            elif slot.state in (State.Learning, State.Relearning) and slot.due_us is not None:
                learning += slot.due_us <= now_us + _LEARN_AHEAD_US
        return new, learning, due

"""The in-memory due queue: one index per deck of its schedules, sorted by due time.

A schedule is one ordinal of a card (`content/ordinals.py`); its position in the index is its
place in deck order (cards in order, each card's ordinals ascending).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from studykit.srs.decks import ScheduledCard, ScheduledDeck
from studykit.srs.records import CardState, opt_to_us
from studykit.srs.scheduler import State, schedule_key
from studykit.srs.siblings import BURY_ALL, BuryRule, Day, settle

__all__ = ["NEW_SLOT", "BuryRule", "DeckIndex", "Entry", "Slot", "earliest", "index_decks"]

# Memory holds only slots, so next_card and deck_counts cost a few bisects per deck whatever
# the collection size; the store stays the truth and is written before an index changes.
# Siblings are settled per card, once a day and when one of them changes (`siblings.py`).

Entry = tuple[int, int]  # (due in epoch microseconds, position in the deck)
ScheduleRef = tuple[str, int]  # (card id, ordinal)


class Slot(NamedTuple):
    """What the queue needs to know of a stored card state (cheap to load by the 100,000)."""

    state: int | None  # fsrs State value; None: new
    due_us: int | None
    lapses: int
    suspended: int
    leech: int
    buried_until_us: int | None

    @classmethod
    def of(cls, state: CardState) -> Slot:
        """The slot of a full card state."""
        return cls(
            None if state.state is None else int(state.state),
            opt_to_us(state.due),
            state.lapses,
            int(state.suspended),
            int(state.leech),
            opt_to_us(state.buried_until),
        )


NEW_SLOT = Slot(None, None, 0, 0, 0, None)


class DeckIndex:
    """The due queue of one deck: unsuspended schedules bucketed and sorted in memory."""

    def __init__(
        self,
        deck: ScheduledDeck,
        stored: Mapping[ScheduleRef, Slot],
        order: int = 0,
        bury: BuryRule = BURY_ALL,
    ) -> None:
        self.deck = deck
        self.order = order  # the deck's place by name: breaks ties between decks
        self.bury = bury
        self.position: dict[ScheduleRef, int] = {}
        """(card id, ordinal) -> position of that schedule (a duplicate card id: its first)."""
        self.first: dict[str, int] = {}  # card id -> the position of its first ordinal
        self.card_at: list[int] = []  # position -> the card's place in `deck.cards`
        self.ordinal_at: list[int] = []  # position -> the schedule's ordinal
        self.siblings: dict[int, tuple[int, ...]] = {}  # card place -> its positions (2 or more)
        self.slots: list[Slot] = []
        for place, card in enumerate(deck.cards):
            if card.id in self.first:
                continue  # a duplicate id is never queued
            start = self.first[card.id] = len(self.slots)
            for ordinal in card.ordinals:
                self.position[card.id, ordinal] = len(self.slots)
                self.card_at.append(place)
                self.ordinal_at.append(ordinal)
                self.slots.append(stored.get((card.id, ordinal), NEW_SLOT))
            if len(self.slots) - start > 1:
                self.siblings[place] = tuple(range(start, len(self.slots)))
        self._keys: dict[int, int] = {}
        self.new: list[int] = []
        self.learning: list[Entry] = []
        self.review: list[Entry] = []
        self.buried: dict[int, int] = {}  # position -> buried until (epoch µs); may be expired
        self.suspended = 0
        self.leeches = 0
        for pos, slot in enumerate(self.slots):
            self._add(pos, slot, sort=False)
        self.learning.sort()
        self.review.sort()
        # Siblings, for the study day in `_day` (None: not settled yet, nothing held back).
        self._day: Day | None = None
        self._answered: dict[int, set[int]] = {}  # card place -> ordinals answered today
        # card place -> (buried, held back, how many of those held back are new)
        self._settled: dict[int, tuple[tuple[int, ...], tuple[int, ...], int]] = {}
        self.sibling_buried: set[int] = set()
        """Positions buried until tomorrow because a sibling was answered today."""
        self.held_back: set[int] = set()
        """Positions the queue does not gather today because a sibling comes first."""
        self._held = [0, 0]  # of those: how many are new, how many reviews due today

    @property
    def total(self) -> int:
        """Schedules in the deck (a duplicate card id counted once)."""
        return len(self.slots)

    def never_answered(self) -> int:
        """Schedules of the deck that are new, suspended or not."""
        return sum(slot.state is None for slot in self.slots)

    def card(self, pos: int) -> ScheduledCard:
        """The card a schedule belongs to."""
        return self.deck.cards[self.card_at[pos]]

    def key(self, pos: int) -> int:
        """The schedule's key (hashed on first use: opening stays cheap)."""
        key = self._keys.get(pos)
        if key is None:
            card = self.card(pos)
            key = self._keys[pos] = schedule_key(self.deck.id, card.id, self.ordinal_at[pos])
        return key

    def positions_of(self, card_id: str) -> list[int]:
        """The positions of every ordinal of a card (none when it is not in the deck)."""
        first = self.first.get(card_id)
        if first is None:
            return []
        return list(self.siblings.get(self.card_at[first], (first,)))

    def _bucket(self, slot: Slot) -> list[Entry] | None:
        if slot.state is None:
            return None
        return self.review if slot.state == State.Review else self.learning

    def _add(self, pos: int, slot: Slot, *, sort: bool = True) -> None:
        self.leeches += slot.leech
        if slot.suspended:
            self.suspended += 1
            return
        if slot.buried_until_us is not None:
            self.buried[pos] = slot.buried_until_us
        bucket = self._bucket(slot)
        if bucket is None:
            if sort:
                insort(self.new, pos)
            else:
                self.new.append(pos)  # positions arrive in order
            return
        assert slot.due_us is not None
        if sort:
            insort(bucket, (slot.due_us, pos))
        else:
            bucket.append((slot.due_us, pos))

    def _remove(self, pos: int, slot: Slot) -> None:
        self.leeches -= slot.leech
        if slot.suspended:
            self.suspended -= 1
            return
        self.buried.pop(pos, None)
        bucket = self._bucket(slot)
        if bucket is None:
            del self.new[bisect_left(self.new, pos)]
            return
        assert slot.due_us is not None
        del bucket[bisect_left(bucket, (slot.due_us, pos))]

    def put(self, pos: int, state: CardState) -> None:
        """Replace a schedule's state in the index."""
        slot = Slot.of(state)
        self._remove(pos, self.slots[pos])
        self.slots[pos] = slot
        self._add(pos, slot)
        self._settle(self.card_at[pos])

    # -- siblings --------------------------------------------------------------------------

    def start_day(self, day: Day, answered: Mapping[str, Collection[int]]) -> None:
        """Settle every card's siblings for `day`; `answered`: card id -> ordinals answered."""
        self._day = day
        self._answered = {}
        for card_id, ordinals in answered.items():
            positions = self.positions_of(card_id)
            if positions:
                self._answered[self.card_at[positions[0]]] = set(ordinals)
        self._settled.clear()
        self.sibling_buried.clear()
        self.held_back.clear()
        self._held = [0, 0]
        # A card none of whose schedules was ever stored (the common case, settled in bulk):
        # its first new one is gathered, the others held back when new siblings wait.
        slots, touched = self.slots, self._answered
        held_back: list[int] = []
        for place, group in self.siblings.items():
            if place not in touched and all(slots[pos] is NEW_SLOT for pos in group):
                held = group[1:] if self.bury.new else ()
                self._settled[place] = ((), held, len(held))
                held_back.extend(held)
            else:
                self._settle(place)
        self.held_back.update(held_back)
        self._held[0] += len(held_back)

    def answered(self, pos: int) -> None:
        """Note that the schedule at `pos` was answered today (its siblings are buried)."""
        place = self.card_at[pos]
        self._answered.setdefault(place, set()).add(self.ordinal_at[pos])
        self._settle(place)

    def _settle(self, place: int) -> None:
        positions = self.siblings.get(place)
        if positions is None or self._day is None:
            return
        schedules = [(pos, self.ordinal_at[pos], self.slots[pos]) for pos in positions]
        settled = settle(schedules, self._answered.get(place, ()), self.bury, self._day)
        self._hold(place, settled.buried, settled.held_back)

    def _hold(self, place: int, buried: tuple[int, ...], held: tuple[int, ...]) -> None:
        """Record one card's siblings as settled: `buried` by an answer, `held` back."""
        old_buried, old_held, old_new = self._settled.get(place, ((), (), 0))
        self.sibling_buried.difference_update(old_buried)
        self.held_back.difference_update(old_held)
        new = sum(self.slots[pos].state is None for pos in held)
        self._held[0] += new - old_new
        self._held[1] += len(held) - new - (len(old_held) - old_new)
        self._settled[place] = (buried, held, new)
        self.sibling_buried.update(buried)
        self.held_back.update(held)

    # -- reading ---------------------------------------------------------------------------

    def is_buried(self, pos: int, now_us: int) -> bool:
        """True while the schedule at `pos` is buried, by hand or by a sibling's answer."""
        until = self.buried.get(pos)
        return (until is not None and until > now_us) or pos in self.sibling_buried

    def is_hidden(self, pos: int, now_us: int) -> bool:
        """True while the queue will not serve the schedule today: buried or held back."""
        return pos in self.held_back or self.is_buried(pos, now_us)

    def first_due(self, bucket: list[Entry], *, until_us: int, now_us: int) -> Entry | None:
        """The earliest entry due at or before `until_us` that is not hidden."""
        for entry in bucket:
            if entry[0] > until_us:
                return None
            if not self.is_hidden(entry[1], now_us):
                return entry
        return None

    def first_new(self, now_us: int) -> int | None:
        """Position of the first new schedule in deck order that is not hidden."""
        for pos in self.new:
            if not self.is_hidden(pos, now_us):
                return pos
        return None

    def active_buried(self, now_us: int) -> list[tuple[int, Slot]]:
        """(buried until, slot) of the schedules buried at `now_us`; forgets expired burials.

        A sibling's burial lasts until the end of the settled study day.
        """
        active = []
        for pos, until in list(self.buried.items()):
            if until <= now_us:
                del self.buried[pos]  # the stored value is harmless once expired
            else:
                active.append((until, self.slots[pos]))
        if self._day is not None and self.sibling_buried:
            end_us = self._day.end_us
            by_hand = self.buried
            for pos in self.sibling_buried:
                if pos not in by_hand:
                    active.append((end_us, self.slots[pos]))
        return active

    def counts(
        self, *, now_us: int, end_us: int, learn_until_us: int | None = None
    ) -> tuple[int, int, int]:
        """(new, learning, review) available before `end_us`, limits not applied.

        Learning counts what is due before `learn_until_us` (default `end_us`), as Anki
        counts learning due within its learn-ahead limit.
        """
        learn_until = end_us if learn_until_us is None else learn_until_us
        new = len(self.new)
        learning = bisect_left(self.learning, (learn_until, -1))
        review = bisect_left(self.review, (end_us, -1))
        for _, slot in self.active_buried(now_us):
            if slot.state is None:
                new -= 1
            elif slot.due_us is not None:
                if slot.state == State.Review and slot.due_us < end_us:
                    review -= 1
                elif slot.state != State.Review and slot.due_us < learn_until:
                    learning -= 1
        # Held back: new ones, and reviews due today (`settle` holds back no other).
        return new - self._held[0], learning, review - self._held[1]

    def due_per_day(self, edges: Sequence[int], now_us: int) -> list[int]:
        """Scheduled cards due between consecutive `edges` (overdue ones in the first day)."""
        days = len(edges) - 1
        result = [0] * days
        for bucket in (self.learning, self.review):
            cuts = [bisect_left(bucket, (edge, -1)) for edge in edges]
            result[0] += cuts[0]
            for k in range(days):
                result[k] += cuts[k + 1] - cuts[k]
        for until, slot in self.active_buried(now_us):
            if slot.due_us is None:
                continue
            moved = max(slot.due_us, until)
            old, new = (max(0, bisect_right(edges, t) - 1) for t in (slot.due_us, moved))
            if old < days:
                result[old] -= 1
            if new < days:
                result[new] += 1
        return result

    def due_on_days(self, edges: Sequence[int]) -> list[int]:
        """Scheduled cards due between consecutive `edges`; none before the first counted."""
        result = [0] * (len(edges) - 1)
        for bucket in (self.learning, self.review):
            cuts = [bisect_left(bucket, (edge, -1)) for edge in edges]
            for k in range(len(result)):
                result[k] += cuts[k + 1] - cuts[k]
        return result

    def next_due_us(self, now_us: int) -> int | None:
        """Earliest due time after `now_us` of a scheduled, unsuspended card (bury counted)."""
        best: int | None = None
        for bucket in (self.learning, self.review):
            i = bisect_right(bucket, (now_us, len(self.slots)))
            while i < len(bucket):
                due, pos = bucket[i]
                if not self.is_buried(pos, now_us):
                    best = due if best is None else min(best, due)
                    break
                i += 1
        for until, slot in self.active_buried(now_us):
            if slot.due_us is not None:
                when = max(until, slot.due_us)
                best = when if best is None else min(best, when)
        return best


def index_decks(
    decks: Iterable[ScheduledDeck],
    rows: Iterable[Sequence[Any]],
    bury: BuryRule = BURY_ALL,
) -> dict[str, DeckIndex]:
    """An index per deck, by deck name, from `Store.queue_rows()` rows.

    `bury` is the default sibling rule, for decks that do not set their own.
    """
    stored: defaultdict[str, dict[ScheduleRef, Slot]] = defaultdict(dict)
    make = Slot._make
    for row in rows:
        stored[row[0]][row[1], row[2]] = make(row[3:])
    ordered = sorted(decks, key=lambda d: (d.name, d.id))
    return {
        deck.id: DeckIndex(deck, stored.get(deck.id, {}), order, _rule(deck, bury))
        for order, deck in enumerate(ordered)
    }


def _rule(deck: ScheduledDeck, default: BuryRule) -> BuryRule:
    new, review = deck.bury_new_siblings, deck.bury_review_siblings
    return BuryRule(
        default.new if new is None else new, default.review if review is None else review
    )


def earliest(
    indexes: Iterable[DeckIndex],
    bucket: Literal["learning", "review"],
    *,
    until_us: int,
    now_us: int,
) -> tuple[DeckIndex, int] | None:
    """(index, position) of the schedule due first, at or before `until_us`, across decks."""
    best: tuple[int, int, DeckIndex, int] | None = None
    for index in indexes:
        entries = index.learning if bucket == "learning" else index.review
        entry = index.first_due(entries, until_us=until_us, now_us=now_us)
        if entry is not None:
            candidate = (entry[0], index.order, index, entry[1])
            if best is None or candidate[:2] < best[:2]:
                best = candidate
    return None if best is None else (best[2], best[3])

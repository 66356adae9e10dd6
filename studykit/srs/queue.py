"""The in-memory due queue: one index per deck of its unsuspended cards, sorted by due time."""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from studykit.srs.decks import ScheduledDeck
from studykit.srs.records import CardState, opt_to_us
from studykit.srs.scheduler import State, card_key

__all__ = ["NEW_SLOT", "DeckIndex", "Entry", "Slot", "earliest", "index_decks"]

# Memory holds only slots, so next_card and deck_counts cost a few bisects per deck whatever
# the collection size; the store stays the truth and is written before an index changes.

Entry = tuple[int, int]  # (due in epoch microseconds, position in the deck)


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
    """The due queue of one deck: unsuspended cards bucketed and sorted in memory."""

    def __init__(self, deck: ScheduledDeck, stored: Mapping[str, Slot], order: int = 0) -> None:
        self.deck = deck
        self.order = order  # the deck's place by name: breaks ties between decks
        self.position: dict[str, int] = {}
        for pos, card in enumerate(deck.cards):
            self.position.setdefault(card.id, pos)
        self.slots: list[Slot] = [stored.get(card.id, NEW_SLOT) for card in deck.cards]
        self._keys: dict[int, int] = {}
        self.new: list[int] = []
        self.learning: list[Entry] = []
        self.review: list[Entry] = []
        self.buried: dict[int, int] = {}  # position -> buried until (epoch µs); may be expired
        self.suspended = 0
        self.leeches = 0
        for pos, slot in enumerate(self.slots):
            if self.position[deck.cards[pos].id] == pos:  # a duplicate id is never queued
                self._add(pos, slot, sort=False)
        self.learning.sort()
        self.review.sort()

    @property
    def total(self) -> int:
        """Cards in the deck (a duplicate id counted once)."""
        return len(self.position)

    def never_answered(self) -> int:
        """Cards of the deck that are new, suspended or not."""
        return sum(self.slots[pos].state is None for pos in self.position.values())

    def key(self, pos: int) -> int:
        """The card's key (hashed on first use: opening stays cheap)."""
        key = self._keys.get(pos)
        if key is None:
            key = self._keys[pos] = card_key(self.deck.id, self.deck.cards[pos].id)
        return key

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
        """Replace a card's state in the index."""
        slot = Slot.of(state)
        self._remove(pos, self.slots[pos])
        self.slots[pos] = slot
        self._add(pos, slot)

    def is_buried(self, pos: int, now_us: int) -> bool:
        """True while the card at `pos` is buried."""
        until = self.buried.get(pos)
        return until is not None and until > now_us

    def first(self, bucket: list[Entry], *, until_us: int, now_us: int) -> Entry | None:
        """The earliest entry due at or before `until_us` that is not buried."""
        for entry in bucket:
            if entry[0] > until_us:
                return None
            if not self.is_buried(entry[1], now_us):
                return entry
        return None

    def first_new(self, now_us: int) -> int | None:
        """Position of the first new card in deck order that is not buried."""
        for pos in self.new:
            if not self.is_buried(pos, now_us):
                return pos
        return None

    def active_buried(self, now_us: int) -> list[tuple[int, Slot]]:
        """(buried until, slot) of the cards buried at `now_us`; forgets expired burials."""
        active = []
        for pos, until in list(self.buried.items()):
            if until <= now_us:
                del self.buried[pos]  # the stored value is harmless once expired
            else:
                active.append((until, self.slots[pos]))
        return active

    def counts(self, *, now_us: int, end_us: int) -> tuple[int, int, int]:
        """(new, learning, review) available before `end_us`, limits not applied."""
        new = len(self.new)
        learning = bisect_left(self.learning, (end_us, -1))
        review = bisect_left(self.review, (end_us, -1))
        for _, slot in self.active_buried(now_us):
            if slot.state is None:
                new -= 1
            elif slot.due_us is not None and slot.due_us < end_us:
                if slot.state == State.Review:
                    review -= 1
                else:
                    learning -= 1
        return new, learning, review

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
    decks: Iterable[ScheduledDeck], rows: Iterable[Sequence[Any]]
) -> dict[str, DeckIndex]:
    """An index per deck, by deck name, from `Store.queue_rows()` rows."""
    stored: defaultdict[str, dict[str, Slot]] = defaultdict(dict)
    make = Slot._make
    for row in rows:
        stored[row[0]][row[1]] = make(row[2:])
    ordered = sorted(decks, key=lambda d: (d.name, d.id))
    return {
        deck.id: DeckIndex(deck, stored.get(deck.id, {}), order)
        for order, deck in enumerate(ordered)
    }


def earliest(
    indexes: Iterable[DeckIndex],
    bucket: Literal["learning", "review"],
    *,
    until_us: int,
    now_us: int,
) -> tuple[DeckIndex, int] | None:
    """(index, position) of the card due first, at or before `until_us`, across decks."""
    best: tuple[int, int, DeckIndex, int] | None = None
    for index in indexes:
        entries = index.learning if bucket == "learning" else index.review
        entry = index.first(entries, until_us=until_us, now_us=now_us)
        if entry is not None:
            candidate = (entry[0], index.order, index, entry[1])
            if best is None or candidate[:2] < best[:2]:
                best = candidate
    return None if best is None else (best[2], best[3])

"""The session's part that knows today: its study day, the answers already given, the daily
limits, and so what to serve next and what home counts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from studykit.core.config import Settings
from studykit.srs.limits import DailyTally, ScopeLimits
from studykit.srs.queue import DeckIndex, earliest
from studykit.srs.records import from_us, to_us
from studykit.srs.scheduler import State
from studykit.srs.siblings import Day
from studykit.srs.store import Store
from studykit.study.card import StudyCard
from studykit.study.decks import LoadedDecks

__all__ = ["LEARN_AHEAD", "DeckCounts", "Today"]

# As in Anki: when nothing else is left, a learning card due this soon is shown now.
LEARN_AHEAD = timedelta(minutes=20)
_LEARN_AHEAD_US = LEARN_AHEAD // timedelta(microseconds=1)


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


class Today:
    """Today's queue over the loaded decks, within their daily limits."""

    def __init__(
        self,
        store: Store,
        decks: LoadedDecks,
        settings: Settings,
        *,
        now: Callable[[], datetime],
        day_bounds: Callable[[datetime], tuple[datetime, datetime]],
    ) -> None:
        self._store = store
        self._decks = decks
        self._settings = settings
        self._now = now
        self._day_bounds = day_bounds
        self.tally = DailyTally()
        """Today's answers per deck, recounted from the log on a new day or after an undo."""

    def window(self) -> tuple[datetime, int, int]:
        """(now, now in epoch µs, end of today in µs); recounts today's answers on a new day
        (and after an undo), and settles each card's siblings for them."""
        now = self._now()
        start, end = self._day_bounds(now)
        if self.tally.refresh(self._store, start):
            day = Day(to_us(start), to_us(end))
            answered = self.tally.answered
            for index in self._decks.all():
                index.start_day(day, answered.get(index.deck.id, {}))
        return now, to_us(now), to_us(end)

    def record_answer(self, card: StudyCard, before: State | None) -> None:
        """Count an answer to `card` (which was in state `before`) and bury its siblings."""
        deck_id, card_id, ordinal = card.deck.id, card.card.id, card.ordinal
        self.tally.record(deck_id, before, card_id, ordinal)
        found = self._decks.find(deck_id, card_id, ordinal)
        if found is not None:
            found[0].answered(found[1])

    def is_buried(self, card: StudyCard) -> bool:
        """True while a schedule is buried, by hand or by a sibling's answer today."""
        _, now_us, _ = self.window()  # siblings settled for today
        found = self._decks.find(card.deck.id, card.card.id, card.ordinal)
        return found is not None and found[0].is_buried(found[1], now_us)

    def sibling_buried(self, deck_ids: Sequence[str]) -> list[tuple[str, str, int]]:
        """(deck, card, ordinal) of the schedules of these decks buried by a sibling's answer."""
        self.window()
        found = []
        for deck_id in deck_ids:
            index = self._decks.indexes.get(deck_id)
            if index is not None:
                for pos in sorted(index.sibling_buried):
                    found.append((deck_id, index.card(pos).id, index.ordinal_at[pos]))
        return found

    def _counts(self, index: DeckIndex, now_us: int, end_us: int) -> tuple[int, int, int]:
        """What one deck has available today (limits not applied); learning as Anki counts
        it, what is due within the learn-ahead limit."""
        learn_until = min(end_us, now_us + _LEARN_AHEAD_US)
        return index.counts(now_us=now_us, end_us=end_us, learn_until_us=learn_until)

    def limits(self, indexes: Sequence[DeckIndex]) -> ScopeLimits:
        """The limits over a scope; build after `window`, which keeps today's tally current."""
        scope = {index.deck.id for index in indexes}
        decks = self._decks
        return ScopeLimits(self.tally, self._settings, decks.outlines, decks.tree, scope)

    def deck_counts(self) -> list[DeckCounts]:
        """Every loaded deck, by name, with what is available today of its own cards."""
        _, now_us, end_us = self.window()
        result = []
        for index in self._decks.all():
            new, learning, due = self.limits([index]).total(
                {index.deck.id: self._counts(index, now_us, end_us)}
            )
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

    def scope_remaining(self, deck_ids: Sequence[str] | None) -> tuple[int, int, int]:
        """(new, learning, due) that studying these decks together serves today (None: all)."""
        _, now_us, end_us = self.window()
        indexes = self._decks.scope(deck_ids)
        available = {i.deck.id: self._counts(i, now_us, end_us) for i in indexes}
        return self.limits(indexes).total(available)

    def next_card(self, deck_id: str | None, scope: Sequence[str] | None) -> StudyCard | None:
        """The card to study now: learning due now, then reviews due today, then new cards."""
        decks = self._decks
        in_scope = decks.scope(scope if scope is not None or deck_id is None else (deck_id,))
        indexes = in_scope if deck_id is None else [decks.index(deck_id)]
        now, now_us, end_us = self.window()
        limits = self.limits(in_scope)
        found = earliest(indexes, "learning", until_us=now_us, now_us=now_us)
        if found is None:
            with_reviews = [i for i in indexes if limits.allows_review(i.deck.id)]
            found = earliest(with_reviews, "review", until_us=end_us - 1, now_us=now_us)
        if found is None:
            for index in indexes:
                if limits.allows_new(index.deck.id):
                    pos = index.first_new(now_us)
                    if pos is not None:
                        found = (index, pos)
                        break
        if found is None:
            ahead_us = to_us(now + LEARN_AHEAD)
            found = earliest(indexes, "learning", until_us=ahead_us, now_us=now_us)
        return None if found is None else decks.card(*found)

    def next_due(self, deck_id: str | None) -> datetime | None:
        """The earliest due time after now of a scheduled card (UTC), if any."""
        now_us = to_us(self._now())
        times = [t for i in self._decks.of(deck_id) if (t := i.next_due_us(now_us)) is not None]
        return from_us(min(times)) if times else None

    def is_due(self, card: StudyCard) -> bool:
        """True when a scheduled card is due before today's rollover (new cards are not due)."""
        found = self._decks.find(card.deck.id, card.card.id, card.ordinal)
        if found is None:
            return False
        index, pos = found
        slot = index.slots[pos]
        _, now_us, end_us = self.window()
        if slot.state is None or slot.suspended or slot.due_us is None:
            return False
        return slot.due_us < end_us and not index.is_buried(pos, now_us)

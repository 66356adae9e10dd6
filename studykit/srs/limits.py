"""Daily limits: today's answers per deck, and the new cards and reviews they leave."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping
from datetime import datetime

from studykit.core.config import Settings
from studykit.srs.decks import ScheduledDeck
from studykit.srs.hierarchy import DeckHierarchy
from studykit.srs.records import DayCount, to_us
from studykit.srs.scheduler import State
from studykit.srs.store import Store

__all__ = ["Counts", "DailyTally", "ScopeLimits"]

Counts = tuple[int, int, int]  # (new, learning, review)

# As in Anki (v3 scheduler): the limits of every deck in a review's scope cap that deck's cards
# and those of its sub-decks in the scope together, and an answer counts against the limits of
# its deck and of every parent deck. Parents outside the scope do not cap it, and a name that is
# only a parent (no deck of its own) has no limits. Unless `new_cards_ignore_review_limit` (as
# Anki's collection option of that name), a new card counts against the review limit too, and
# new cards come only while the reviews due leave room under it.


class DailyTally:
    """Answers per deck since the study day began; recounted from the log when the day changes."""

    def __init__(self) -> None:
        self._start_us: int | None = None
        self._done: dict[str, DayCount] = {}
        self.answered: dict[str, dict[str, set[int]]] = {}
        """deck id -> card id -> the ordinals answered today (their siblings wait)."""

    def refresh(self, store: Store, start: datetime) -> bool:
        """Recount from the log if the study day starting at `start` is not the one counted;
        True when it recounted."""
        start_us = to_us(start)
        if start_us == self._start_us:
            return False
        self._done = store.day_counts(start)
        self.answered = {}
        for deck_id, card_id, ordinal in store.answered_since(start):
            self.answered.setdefault(deck_id, {}).setdefault(card_id, set()).add(ordinal)
        self._start_us = start_us
        return True

    def forget(self) -> None:
        """Make the next `refresh` recount (the log changed behind the tally)."""
        self._start_us = None

    def record(
        self, deck_id: str, before: State | None, card_id: str | None = None, ordinal: int = 1
    ) -> None:
        """Count one answer to a schedule that was in state `before` (None: new)."""
        if card_id is not None:
            self.answered.setdefault(deck_id, {}).setdefault(card_id, set()).add(ordinal)
        done = self._done.get(deck_id, DayCount())
        self._done[deck_id] = DayCount(
            answers=done.answers + 1,
            new=done.new + int(before is None),
            reviews=done.reviews + int(before == State.Review),
        )

    @property
    def answers(self) -> int:
        """Answers today in every deck."""
        return sum(count.answers for count in self._done.values())

    def left(
        self, deck: ScheduledDeck, settings: Settings, under: Collection[str]
    ) -> tuple[int, int]:
        """(new, reviews) the limits of `deck` still allow; `under`: it and its sub-decks."""
        done = [self._done.get(deck_id, DayCount()) for deck_id in under]
        new_limit = deck.new_per_day if deck.new_per_day is not None else settings.new_per_day
        review_limit = (
            deck.reviews_per_day if deck.reviews_per_day is not None else settings.reviews_per_day
        )
        new_done = sum(d.new for d in done)
        review_left = review_limit - sum(d.reviews for d in done)
        new_left = new_limit - new_done
        if not settings.new_cards_ignore_review_limit:  # Anki's v3: new cards count as reviews
            review_left -= new_done
            new_left = min(new_left, review_left)
        return max(0, new_left), max(0, review_left)


class ScopeLimits:
    """What the limits allow in one review scope: a deck's own and its parent decks' in scope."""

    def __init__(
        self,
        tally: DailyTally,
        settings: Settings,
        decks: Mapping[str, ScheduledDeck],
        tree: DeckHierarchy,
        scope: Collection[str],
    ) -> None:
        self._tally = tally
        self._settings = settings
        self._decks = decks
        self._tree = tree
        self._scope = scope
        self._own: dict[str, tuple[int, int]] = {}

    def _own_left(self, deck_id: str) -> tuple[int, int]:
        left = self._own.get(deck_id)
        if left is None:
            deck = self._decks[deck_id]
            left = self._tally.left(deck, self._settings, self._tree.subtree(deck_id))
            self._own[deck_id] = left
        return left

    def _chain(self, deck_id: str) -> list[str]:
        """The deck and its parent decks in scope: every limit its next card must fit."""
        return [deck_id, *(p for p in self._tree.ancestors(deck_id) if p in self._scope)]

    def allows_new(self, deck_id: str) -> bool:
        """True while one more new card of this deck fits every limit over it."""
        return all(self._own_left(d)[0] > 0 for d in self._chain(deck_id))

    def allows_review(self, deck_id: str) -> bool:
        """True while one more review of this deck fits every limit over it."""
        return all(self._own_left(d)[1] > 0 for d in self._chain(deck_id))

    def total(self, available: Mapping[str, Counts]) -> Counts:
        """What studying the scope serves today, from what each deck in it has available."""
        # Deepest decks first, so that a parent adds sub-decks already capped by their limits.
        order = sorted(available, key=lambda d: len(self._tree.ancestors(d)), reverse=True)
        below: defaultdict[str | None, list[int]] = defaultdict(lambda: [0, 0, 0])
        for deck_id in order:
            sub = below[deck_id]
            new, learning, review = (a + b for a, b in zip(available[deck_id], sub, strict=True))
            new_left, review_left = self._own_left(deck_id)
            reviews = min(review, review_left)
            if not self._settings.new_cards_ignore_review_limit:
                new_left = min(new_left, review_left - reviews)  # reviews come first
            into = below[self._tree.parent_in(deck_id, self._scope)]
            into[0] += min(new, new_left)
            into[1] += learning
            into[2] += reviews
        top = below[None]
        return top[0], top[1], top[2]

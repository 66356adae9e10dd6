"""Daily limits: today's answers per deck, and the new cards and reviews they leave."""

from __future__ import annotations

from datetime import datetime

from studykit.config import Settings
from studykit.model import Deck
from studykit.srs.records import DayCount, to_us
from studykit.srs.scheduler import State
from studykit.srs.store import Store

__all__ = ["DailyTally"]


class DailyTally:
    """Answers per deck since the study day began; recounted from the log when the day changes."""

    def __init__(self) -> None:
        self._start_us: int | None = None
        self._done: dict[str, DayCount] = {}

    def refresh(self, store: Store, start: datetime) -> None:
        """Recount from the log if the study day starting at `start` is not the one counted."""
        start_us = to_us(start)
        if start_us != self._start_us:
            self._done = store.day_counts(start)
            self._start_us = start_us

    def forget(self) -> None:
        """Make the next `refresh` recount (the log changed behind the tally)."""
        self._start_us = None

    def record(self, deck_id: str, before: State | None) -> None:
        """Count one answer to a card that was in state `before` (None: new)."""
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

    def left(self, deck: Deck, settings: Settings) -> tuple[int, int]:
        """(new, reviews) this deck may still show today."""
        done = self._done.get(deck.id, DayCount())
        new_limit = deck.new_per_day if deck.new_per_day is not None else settings.new_per_day
        review_limit = (
            deck.reviews_per_day if deck.reviews_per_day is not None else settings.reviews_per_day
        )
        return max(0, new_limit - done.new), max(0, review_limit - done.reviews)

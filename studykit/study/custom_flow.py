"""The study flow of a custom study: the review flow over a `CustomQueue` instead of today's."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from studykit.quiz.variants import new_seed
from studykit.study.custom import CustomQueue
from studykit.study.flow import Clock, Counts, Shown, StudyFlow
from studykit.study.session import Rating, StudyCard, StudySession

__all__ = ["CustomFlow"]


class CustomFlow(StudyFlow):
    """Serves the queue's cards; answers, bury, suspend and undo are the review's."""

    def __init__(
        self,
        session: StudySession,
        queue: CustomQueue,
        deck_ids: Sequence[str] | None = None,
        *,
        clock: Clock = time.monotonic,
        seeds: Callable[[], int] = new_seed,
    ) -> None:
        super().__init__(session, deck_ids, clock=clock, seeds=seeds)
        self.queue = queue

    def _pick(self) -> StudyCard | None:
        return self.session.custom.next_card(self.queue)

    def remaining(self) -> Counts:
        """(new, learning, due) left in this custom study."""
        return self.session.custom.remaining(self.queue)

    def show(self, card: StudyCard, note: str = "", *, undoable: bool = False) -> Shown:
        """Show `card` (one brought back by an undo is unanswered in this study again)."""
        self.queue.answered.discard((card.deck.id, card.card.id, card.ordinal))
        return super().show(card, note, undoable=undoable)

    def _commit(self, card: StudyCard, rating: Rating) -> None:
        """Commit a rating through the deck's scheduler; then the card is answered here."""
        super()._commit(card, rating)
        self.queue.answered.add((card.deck.id, card.card.id, card.ordinal))

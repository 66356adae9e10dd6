"""Our review log as fsrs-rs training items, converted the way Anki converts its revlog.

Anki (rslib `scheduler/fsrs/params.rs`: `fsrs_items_for_training`, `reviews_for_fsrs`) turns
each card's revlog into items, one per review a day or more after the previous one, each
holding the card's whole history up to that review as (rating, days since the previous
review). The rules followed here:

- A card is a schedule key: each sibling (direction, cloze deletion) is its own card.
- Days are whole days counted back from the next day boundary (`next_day_at`, the coming
  rollover), in steps of 86,400 s, as Anki's `days_elapsed` does; two answers on one study
  day are 0 days apart, however many hours lie between them.
- History starts at the card's last run of learning answers (a new card's first answer and
  its learning steps); anything before it, and everything before a forget ("reset to new"),
  is dropped. A card with no learning answer in what is left (an imported schedule answered
  since) is not trained on, as Anki skips cards without learning steps.
- Same-day answers (learning and relearning steps) stay in the history with 0 days but make
  no item; the first answer makes none either.
- Items are in time order of their last review; each knows its card (schedule key).

Nothing here imports fsrs-rs: `engine.py` turns these plain items into its objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from fsrs import State

__all__ = [
    "DAY_SECONDS",
    "MAX_SEQ_LEN",
    "Entry",
    "Item",
    "card_history",
    "training_items",
]

DAY_SECONDS = 86_400
# fsrs-rs trains only on items of at most this many reviews (its TrainingConfig.max_seq_len);
# longer ones are not made at all, which also bounds the memory a long history takes.
MAX_SEQ_LEN = 256
_LEARNING = (None, int(State.Learning))


class Entry(NamedTuple):
    """One answer of the log: schedule key, rating 1-4, time, the card's state before it."""

    key: int
    rating: int
    at_us: int
    state_before: int | None  # None: a new card; else fsrs State (1 learning, 2, 3)
    duration_ms: int = 0

    @property
    def learning(self) -> bool:
        """A new card's first answer or a learning step (Anki's review kind "Learning")."""
        return self.state_before in _LEARNING


class Item(NamedTuple):
    """A card's history up to one review a day or more after the previous one."""

    key: int
    at_us: int  # when its last review was given (items are sorted by it)
    history: tuple[tuple[int, int], ...]  # the card's (rating, days since previous answer)
    length: int  # this item is history[:length], shared with the card's other items

    @property
    def reviews(self) -> tuple[tuple[int, int], ...]:
        """(rating, whole days since the previous answer), first answer to this review."""
        return self.history[: self.length]

    @property
    def rating(self) -> int:
        """The rating of the review this item predicts."""
        return self.history[self.length - 1][0]

    @property
    def elapsed(self) -> int:
        """Days between the predicted review and the answer before it."""
        return self.history[self.length - 1][1]


def card_history(entries: Sequence[Entry], forgets: Sequence[int] = ()) -> list[Entry] | None:
    """The answers of one card (time order) that training uses; None if it uses none.

    `forgets` are the times (µs) the card was reset to new.
    """
    if forgets:  # Anki stops at the latest reset: nothing before it counts
        last = max(forgets)
        entries = [entry for entry in entries if entry.at_us > last]
    start = None
    # Working back from the latest answer, as Anki does: the start of the last learning run.
    for index in range(len(entries) - 1, -1, -1):
        if entries[index].learning:
            start = index
        elif start is not None:
            break
    return None if start is None else list(entries[start:])


def _card_items(history: Sequence[Entry], boundary: int) -> list[Item]:
    reviews = []
    previous = None
    for entry in history:
        # Whole days from the answer to the coming boundary: Anki's `days_elapsed`.
        days = max(0, (boundary - entry.at_us // 1_000_000) // DAY_SECONDS)
        reviews.append((entry.rating, 0 if previous is None else previous - days))
        previous = days
    shared = tuple(reviews)
    return [
        Item(entry.key, entry.at_us, shared, index + 1)
        for index, entry in enumerate(history[:MAX_SEQ_LEN])
        if index and shared[index][1] > 0
    ]


def training_items(
    entries: Iterable[Entry], *, next_day_at: int, forgets: Iterable[tuple[int, int]] = ()
) -> list[Item]:
    """Items of every card, ordered by their last review's time.

    `entries` in time order; `next_day_at` is the coming day boundary in epoch seconds;
    `forgets` are (key, time µs) of resets to new.
    """
    cards: dict[int, list[Entry]] = {}
    for entry in entries:
        cards.setdefault(entry.key, []).append(entry)
    resets: dict[int, list[int]] = {}
    for key, at_us in forgets:
        resets.setdefault(key, []).append(at_us)
    items: list[Item] = []
    for key, answers in cards.items():
        history = card_history(answers, resets.get(key, ()))
        if history is not None:
            items += _card_items(history, next_day_at)
    items.sort(key=lambda item: item.at_us)  # stable: a card's items stay in order
    return items

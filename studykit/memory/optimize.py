"""Fit FSRS parameters to the earlier reviews (fsrs-rs); score them on the later ones."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from fsrs.scheduler import DEFAULT_PARAMETERS

from studykit.core.errors import StudykitError
from studykit.memory import engine
from studykit.memory.items import Entry, Item, training_items
from studykit.memory.metrics import Score

__all__ = [
    "MAX_FIT_ITEMS",
    "MIN_REVIEWS",
    "MIN_TRAIN_REVIEWS",
    "TRAIN_SHARE",
    "Fit",
    "NotEnoughReviews",
    "Split",
    "fit",
    "items_of",
    "split",
]

# Reviews here are fsrs-rs items: answers a day or more after the card's previous one (see
# items.py). The earlier part we fit on must hold one of fsrs-rs's batches (512), and the
# later part the remaining 20 % to check the fit. The same number gates the Stats advice.
MIN_TRAIN_REVIEWS = 512
TRAIN_SHARE = 0.8
MIN_REVIEWS = math.ceil(MIN_TRAIN_REVIEWS / TRAIN_SHARE)  # 640
# fsrs-rs fits about 400,000 items a CPU second; past this many, it fits on a sample of whole
# cards (the scoring still uses every later review), so a fit stays within seconds.
MAX_FIT_ITEMS = 1_000_000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

# (key, rating, reviewed_at_us, state_before, duration_ms), as Store.training_log gives them
Answer = tuple[int, int, int, int | None, int]


class NotEnoughReviews(StudykitError):
    """Too few reviews a day or more apart to fit parameters."""

    def __init__(self, have: int, need: int) -> None:
        super().__init__(
            f"{have} reviews a day or more after the card's previous answer; fitting needs "
            f"{need} ({MIN_TRAIN_REVIEWS} to fit on, the rest to check the fit)"
        )
        self.have = have
        self.need = need


@dataclass(frozen=True)
class Split:
    """A log's items cut in time: fit on `train`, score on `test` (each whole history)."""

    train: list[Item]
    test: list[Item]
    split_us: int  # items from here on are the held-out part


@dataclass(frozen=True)
class Fit:
    """Fitted parameters and how they and the current ones predict the later reviews."""

    parameters: list[float]
    current: list[float]
    before: Score
    after: Score
    reviews: int  # every answer in the log given
    cards: int
    train_reviews: int  # items (reviews a day or more apart) fitted on
    test_reviews: int  # items scored
    split_at: datetime  # reviews from here on are the held-out part
    train_cards: int  # cards with an item before the split
    fit_cards: int  # of them, the ones fitted on (fewer when over the budget: a sample)


def items_of(
    answers: Iterable[Answer], forgets: Iterable[tuple[int, int]], *, next_day_at: int
) -> list[Item]:
    """The log's fsrs-rs items, converted as Anki converts its revlog (items.py)."""
    return training_items(
        (Entry(*row) for row in answers), next_day_at=next_day_at, forgets=forgets
    )


def split(items: Sequence[Item]) -> Split:
    """The first TRAIN_SHARE of items (by time) to fit on, the rest to score on.

    NotEnoughReviews when there are fewer than MIN_REVIEWS.
    """
    if len(items) < MIN_REVIEWS:
        raise NotEnoughReviews(len(items), MIN_REVIEWS)
    split_us = items[math.floor(len(items) * TRAIN_SHARE)].at_us
    train = [item for item in items if item.at_us < split_us]
    test = [item for item in items if item.at_us >= split_us]
    return Split(train, test, split_us)


def _sample(items: list[Item], budget: int, *, seed: int = 0) -> list[Item]:
    """`items` within `budget`, else those of whole cards drawn until it is reached."""
    if len(items) <= budget:
        return items
    per_card: dict[int, int] = {}
    for item in items:
        per_card[item.key] = per_card.get(item.key, 0) + 1
    keys = sorted(per_card)
    random.Random(seed).shuffle(keys)
    chosen, filled = set(), 0
    for key in keys:
        if filled + per_card[key] <= budget:
            chosen.add(key)
            filled += per_card[key]
    return [item for item in items if item.key in chosen]


def fit(
    answers: Sequence[Answer],
    *,
    next_day_at: int,
    forgets: Iterable[tuple[int, int]] = (),
    current: Sequence[float] | None = None,
    relearning_steps: int = 1,
    budget: int = MAX_FIT_ITEMS,
) -> Fit:
    """Fit on the earlier reviews, score current and fitted parameters on the later ones.

    `answers` and `forgets` as `StudySession.training_log` gives them; `next_day_at` is the
    coming day boundary (epoch s). The split is in time (see `split`). EngineMissing when
    fsrs-rs-python is not installed, NotEnoughReviews when too few reviews count.
    """
    if not engine.available():
        raise engine.EngineMissing("`studykit optimize`")
    parts = split(items_of(answers, forgets, next_day_at=next_day_at))
    current_params = list(current) if current is not None else list(DEFAULT_PARAMETERS)
    sample = _sample(parts.train, budget)
    fitted = engine.fit(sample, relearning_steps=relearning_steps)
    return Fit(
        parameters=fitted,
        current=current_params,
        before=engine.evaluate(current_params, parts.test),
        after=engine.evaluate(fitted, parts.test),
        reviews=len(answers),
        cards=len({row[0] for row in answers}),
        train_reviews=len(sample),
        test_reviews=len(parts.test),
        split_at=_EPOCH + timedelta(microseconds=parts.split_us),
        train_cards=len({item.key for item in parts.train}),
        fit_cards=len({item.key for item in sample}),
    )

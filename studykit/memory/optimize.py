"""Fit FSRS parameters to the earlier reviews (torch); score them on the later ones."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from fsrs.scheduler import DEFAULT_PARAMETERS

from studykit.core.errors import StudykitError
from studykit.memory.metrics import Prediction, Score, predict, score

__all__ = [
    "MIN_REVIEWS",
    "MIN_TRAIN_REVIEWS",
    "TRAIN_SHARE",
    "Fit",
    "NotEnoughReviews",
    "counted_reviews",
    "fit",
    "optimizer_available",
]

# The fit learns only from reviews a day or more after the card's previous one, in mini-batches
# of about 512 (as fsrs's optimizer, which returns its defaults unchanged below one batch). So
# the earlier part we fit on must hold 512 of them, and the later part the remaining 20 %.
MIN_TRAIN_REVIEWS = 512
TRAIN_SHARE = 0.8
MIN_REVIEWS = math.ceil(MIN_TRAIN_REVIEWS / TRAIN_SHARE)  # 640
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

Row = tuple[int, int, int, int]  # (card key, rating, reviewed_at_us, duration_ms)


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
class Fit:
    """Fitted parameters and how they and the current ones predict the later reviews."""

    parameters: list[float]
    current: list[float]
    before: Score
    after: Score
    reviews: int  # every answer used (both parts)
    cards: int
    train_reviews: int  # counted reviews (a day or more apart) fitted on
    test_reviews: int  # counted reviews evaluated on
    split_at: datetime  # reviews from here on are the held-out part
    train_cards: int  # cards answered before the split
    fit_cards: int  # of them, the ones fitted on (fewer when over the budget: a sample)


def optimizer_available() -> bool:
    """True when torch can be imported."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def counted_reviews(rows: Sequence[Row]) -> list[Prediction]:
    """The reviews the optimizer learns from (a day or more apart), predicted with defaults."""
    return predict(rows, None)


def fit(
    rows: Sequence[Row],
    *,
    current: Sequence[float] | None = None,
    progress: Callable[[int, int], None] | None = None,
    budget: int | None = None,
) -> Fit:
    """Fit on the earlier reviews, score current and fitted parameters on the later ones.

    The split is in time: the first 80 % of counted reviews (and every answer before the
    last of them) are fitted on; the later ones are only predicted, with each card's whole
    earlier history replayed. NotEnoughReviews when fewer than MIN_REVIEWS are counted.
    `progress(done, total)` is called after each mini-batch. Past `budget` counted reviews
    (MAX_FIT_REVIEWS) the fit runs on a sample of whole cards; the scoring still uses all.
    """
    import torch

    from studykit.memory.fsrs_fit import MAX_FIT_REVIEWS, fit_parameters, histories, sample_cards

    current_params = list(current) if current is not None else list(DEFAULT_PARAMETERS)
    before_all = predict(rows, current_params)
    if len(before_all) < MIN_REVIEWS:
        raise NotEnoughReviews(len(before_all), MIN_REVIEWS)
    cut = math.floor(len(before_all) * TRAIN_SHARE)
    split_us = before_all[cut].reviewed_at_us
    train = [row for row in rows if row[2] < split_us]
    threads = torch.get_num_threads()
    # The tensors are a few thousand numbers: a second thread costs more than it saves.
    torch.set_num_threads(1)
    earlier = histories(train)
    sample = sample_cards(earlier, MAX_FIT_REVIEWS if budget is None else budget)
    try:
        fitted = fit_parameters(sample, DEFAULT_PARAMETERS, progress=progress)
    finally:
        torch.set_num_threads(threads)
    after_all = predict(rows, fitted)
    return Fit(
        parameters=fitted,
        current=current_params,
        before=score([p for p in before_all if p.reviewed_at_us >= split_us]),
        after=score([p for p in after_all if p.reviewed_at_us >= split_us]),
        reviews=len(rows),
        cards=len({row[0] for row in rows}),
        train_reviews=sample.reviews,
        test_reviews=len(before_all) - cut,
        split_at=_EPOCH + timedelta(microseconds=split_us),
        train_cards=earlier.cards,
        fit_cards=sample.cards,
    )

"""Fit FSRS parameters to the review log with fsrs's optimizer; evaluate on later reviews."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import fsrs
from fsrs import Rating
from fsrs.scheduler import DEFAULT_PARAMETERS

from studykit.errors import StudykitError
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

# fsrs's optimizer learns only from reviews a day or more after the card's previous one, in
# mini-batches of 512; with fewer such reviews it returns its defaults unchanged. So the earlier
# part we fit on must hold 512 of them, and the later part we evaluate on the remaining 20 %.
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


def optimizer_available() -> bool:
    """True when fsrs's optimizer can be imported (torch, pandas and tqdm installed)."""
    try:
        from fsrs.optimizer import LOWER_BOUNDS_PARAMETERS_TENSORS  # noqa: F401
    except ImportError:
        return False
    return True


def counted_reviews(rows: Sequence[Row]) -> list[Prediction]:
    """The reviews the optimizer learns from (a day or more apart), predicted with defaults."""
    return predict(rows, None)


def _logs(rows: Sequence[Row]) -> list[fsrs.ReviewLog]:
    return [
        fsrs.ReviewLog(
            card_id=key,
            rating=Rating(rating),
            review_datetime=_EPOCH + timedelta(microseconds=at_us),
            review_duration=duration,
        )
        for key, rating, at_us, duration in rows
    ]


def fit(
    rows: Sequence[Row], *, current: Sequence[float] | None = None, progress: bool = False
) -> Fit:
    """Fit on the earlier reviews, score current and fitted parameters on the later ones.

    The split is in time: the first 80 % of counted reviews (and every answer before the
    last of them) are fitted on; the later ones are only predicted, with each card's whole
    earlier history replayed. NotEnoughReviews when fewer than MIN_REVIEWS are counted.
    """
    from fsrs import Optimizer

    current_params = list(current) if current is not None else list(DEFAULT_PARAMETERS)
    before_all = predict(rows, current_params)
    if len(before_all) < MIN_REVIEWS:
        raise NotEnoughReviews(len(before_all), MIN_REVIEWS)
    cut = math.floor(len(before_all) * TRAIN_SHARE)
    split_us = before_all[cut].reviewed_at_us
    train = [row for row in rows if row[2] < split_us]
    fitted = Optimizer(_logs(train)).compute_optimal_parameters(verbose=progress)
    fitted = [float(w) for w in fitted]
    after_all = predict(rows, fitted)
    return Fit(
        parameters=fitted,
        current=current_params,
        before=score([p for p in before_all if p.reviewed_at_us >= split_us]),
        after=score([p for p in after_all if p.reviewed_at_us >= split_us]),
        reviews=len(rows),
        cards=len({row[0] for row in rows}),
        train_reviews=cut,
        test_reviews=len(before_all) - cut,
        split_at=_EPOCH + timedelta(microseconds=split_us),
    )

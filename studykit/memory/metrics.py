"""Predicted against actual recall, replayed through the fsrs scheduler: the Stats calibration.

The fit's log loss and RMSE (bins) come from fsrs-rs (engine.evaluate); `Score` holds them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import fsrs
from fsrs import Rating
from fsrs.scheduler import DEFAULT_PARAMETERS

__all__ = ["Prediction", "Score", "calibration", "predict"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Prediction:
    """One review a day or more after the card's previous one: predicted and actual recall."""

    p: float
    y: int
    elapsed_days: int
    index: int  # the review's number: 1 + the card's earlier answers a day or more apart
    lapses: int  # Again answers among those
    reviewed_at_us: int


@dataclass(frozen=True, slots=True)
class Score:
    """Log loss and RMSE (bins) of a model over `n` predicted reviews."""

    log_loss: float
    rmse: float
    n: int


def predict(
    rows: Iterable[tuple[int, int, int, int]], parameters: Sequence[float] | None
) -> list[Prediction]:
    """Replay every card's history with `parameters` and predict each review a day or more later.

    `rows` are (card key, rating, reviewed_at_us, duration_ms), in time order.
    As in the fsrs optimizer, only reviews at least 24 hours after the previous one count.
    """
    weights = DEFAULT_PARAMETERS if parameters is None else tuple(parameters)
    scheduler = fsrs.Scheduler(parameters=weights, enable_fuzzing=False)
    cards: dict[int, tuple[fsrs.Card, int, int]] = {}
    out = []
    for key, rating, at_us, _ in rows:
        moment = _EPOCH + timedelta(microseconds=at_us)
        entry = cards.get(key)
        if entry is None:
            card, index, lapses = fsrs.Card(card_id=key, due=moment), 1, 0
        else:
            card, index, lapses = entry
        if card.last_review is not None and (moment - card.last_review).days > 0:
            p = float(scheduler.get_card_retrievability(card, current_datetime=moment))
            recalled = int(rating != Rating.Again)
            days = (moment - card.last_review).days
            index += 1
            out.append(Prediction(p, recalled, days, index, lapses, at_us))
            lapses += 1 - recalled
        card, _ = scheduler.review_card(card, Rating(rating), review_datetime=moment)
        cards[key] = (card, index, lapses)
    return out


def calibration(
    predictions: Sequence[Prediction], *, bins: int = 10
) -> list[tuple[float, float, int]]:
    """(mean predicted, actual recall rate, count) per tenth of predicted recall, non-empty only."""
    sums = [[0.0, 0.0, 0] for _ in range(bins)]
    for pred in predictions:
        acc = sums[min(bins - 1, int(pred.p * bins))]
        acc[0] += pred.p
        acc[1] += pred.y
        acc[2] += 1
    return [(p / n, y / n, int(n)) for p, y, n in sums if n]

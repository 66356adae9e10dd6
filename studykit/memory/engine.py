"""fsrs-rs-python, the optimizer Anki uses: fit parameters, score them, recommend a retention.

The `memory` extra installs it (wheels for Linux, macOS and Windows). It is imported only
inside these functions, never at start-up; without it `available()` is False and every
function raises EngineMissing, whose message says how to install it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

from studykit.core.errors import StudykitError
from studykit.memory.items import Item
from studykit.memory.metrics import Score

__all__ = [
    "EPOCHS",
    "INSTALL_HINT",
    "RETENTION_RANGE",
    "EngineMissing",
    "Habits",
    "available",
    "evaluate",
    "fit",
    "optimal_retention",
    "within_bounds",
]

INSTALL_HINT = "pip install 'studykit[memory]' (or: pip install fsrs-rs-python)"
EPOCHS = 8  # as Anki's "Optimize" (fsrs-rs's own default is 5)
RETENTION_RANGE = (0.70, 0.95)  # Anki clamps the optimal retention to this range


class EngineMissing(StudykitError):
    """fsrs-rs-python is not installed."""

    def __init__(self, doing: str) -> None:
        super().__init__(f"{doing} needs fsrs-rs-python, Anki's FSRS optimizer: {INSTALL_HINT}")


def available() -> bool:
    """Whether fsrs-rs-python can be imported, found without importing it."""
    try:
        return importlib.util.find_spec("fsrs_rs_python") is not None
    except (ImportError, ValueError):
        return False


def _engine(doing: str) -> ModuleType:
    try:
        import fsrs_rs_python
    except ImportError as error:
        raise EngineMissing(doing) from error
    return fsrs_rs_python


def _fsrs_items(rs: ModuleType, items: Sequence[Item], *, history_only: bool) -> list[Any]:
    """fsrs-rs items; with `history_only`, each without the review it predicts."""
    reviews: dict[int, list[Any]] = {}  # one FSRSReview list per card history, sliced per item
    out = []
    for item in items:
        made = reviews.get(id(item.history))
        if made is None:
            made = reviews[id(item.history)] = [rs.FSRSReview(g, t) for g, t in item.history]
        out.append(rs.FSRSItem(made[: item.length - history_only]))
    return out


def within_bounds(parameters: Sequence[float]) -> list[float]:
    """fsrs-rs's float32 parameters inside the fsrs package's bounds (0.8f32 > 0.8)."""
    return [
        min(max(float(w), low), high)
        for w, low, high in zip(
            parameters, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS, strict=True
        )
    ]


def fit(items: Sequence[Item], *, relearning_steps: int) -> list[float]:
    """FSRS-6 parameters fitted to `items` (time order) as Anki's Optimize fits them."""
    rs = _engine("fitting FSRS parameters")
    model = rs.FSRS(rs.DEFAULT_PARAMETERS)
    fitted = model.compute_parameters(
        _fsrs_items(rs, items, history_only=False),
        [item.key for item in items],
        enable_short_term=True,
        num_relearning_steps=relearning_steps,
        training_config=rs.TrainingConfig(num_epochs=EPOCHS),
    )
    return within_bounds(fitted)


def evaluate(parameters: Sequence[float], items: Sequence[Item]) -> Score:
    """fsrs-rs's log loss and RMSE (bins) of `parameters` predicting `items` (NaN if none)."""
    rs = _engine("scoring FSRS parameters")
    if not items:
        return Score(float("nan"), float("nan"), 0)
    result = rs.FSRS(list(parameters)).evaluate(_fsrs_items(rs, items, history_only=False))
    return Score(float(result.log_loss), float(result.rmse_bins), len(items))


@dataclass(frozen=True)
class Habits:
    """How the student answers, for the simulator: rating shares and seconds per answer.

    `first` shares Again..Easy of a new card's first answer; `review` Hard, Good, Easy
    among passed reviews; `seconds` per state (learning, review, relearning) and rating.
    """

    first: tuple[float, float, float, float] = (0.24, 0.094, 0.495, 0.171)
    review: tuple[float, float, float] = (0.224, 0.631, 0.145)
    seconds: tuple[tuple[float, ...], ...] = (
        (19.58, 18.79, 13.78, 10.71),
        (19.38, 17.59, 12.38, 8.94),
        (16.44, 15.25, 12.32, 8.03),
    )


def optimal_retention(
    parameters: Sequence[float],
    *,
    cards: int,
    new_per_day: int,
    reviews_per_day: int,
    days: int,
    habits: Habits = Habits(),
    learning_steps: int = 2,
    relearning_steps: int = 1,
) -> float:
    """The desired retention with the least time per card remembered (fsrs-rs, as Anki).

    fsrs-rs simulates learning `cards` cards from scratch at `new_per_day` for `days` days
    with these parameters and habits, for the retentions its search tries; the result is
    clamped to RETENTION_RANGE as Anki clamps it.
    """
    rs = _engine("recommending a desired retention")
    if cards < 1 or new_per_day < 1:
        raise ValueError("a recommendation needs cards to learn and a new-card limit above 0")
    w = rs.check_and_fill_parameters(list(parameters))
    config = rs.default_simulator_config()
    config.deck_size = cards
    config.learn_span = days
    config.learn_limit = new_per_day
    config.review_limit = reviews_per_day
    config.max_cost_perday = float("inf")
    config.first_rating_prob = list(habits.first)
    config.review_rating_prob = list(habits.review)
    config.state_rating_costs = [list(row) for row in habits.seconds]
    config.learning_step_count = learning_steps
    config.relearning_step_count = relearning_steps
    best = float(rs.optimal_retention(config, w))
    low, high = RETENTION_RANGE
    return round(min(max(best, low), high), 2)

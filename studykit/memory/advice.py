"""Advice from the student's own reviews only: are there enough, and which retention to use.

A fitted model and a recommended desired retention are shown only past MIN_REVIEWS reviews
a day or more apart (fsrs-rs items); below it, the screens say how many more it takes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from studykit.memory.engine import Habits, optimal_retention
from studykit.memory.optimize import MIN_REVIEWS, Answer, items_of

if TYPE_CHECKING:
    from studykit.study.session import StudySession

__all__ = ["HABIT_PRIOR", "Readiness", "habits", "readiness", "recommend"]

# Pseudo-answers at fsrs-rs's defaults added to each count, so that a handful of answers of
# one kind (a rare relearning Easy) moves its share or time only a little.
HABIT_PRIOR = 10
_MAX_SECONDS = 600.0  # a longer answer is the student away from the screen


@dataclass(frozen=True)
class Readiness:
    """How many reviews a day or more apart the log holds, against what advice needs."""

    have: int
    need: int = MIN_REVIEWS
    fitted: bool = False  # a fitted model is stored (`studykit optimize --apply`)

    @property
    def enough(self) -> bool:
        return self.have >= self.need

    @property
    def more(self) -> int:
        """Reviews still to go."""
        return max(0, self.need - self.have)

    def waiting(self) -> str:
        """Why there is no advice yet, for a user (empty when there is)."""
        if not self.enough:
            return (
                f"Your own model and a recommended retention need {self.need:,} reviews a day "
                f"or more apart; you have {self.have:,} ({self.more:,} more to go)."
            )
        if not self.fitted:
            return (
                f"You have {self.have:,} reviews a day or more apart: fit your own model "
                "with `studykit optimize --apply` for a recommended retention."
            )
        return ""


def readiness(session: StudySession) -> Readiness:
    """The session's whole log counted as the optimizer counts it."""
    answers, forgets, next_day_at = session.training_log()
    have = len(items_of(answers, forgets, next_day_at=next_day_at))
    return Readiness(have, MIN_REVIEWS, session.memory_model() is not None)


def _blend(counts: Sequence[float], default: Sequence[float]) -> tuple[float, ...]:
    total = sum(counts) + HABIT_PRIOR
    return tuple((c + HABIT_PRIOR * d) / total for c, d in zip(counts, default, strict=True))


def habits(answers: Iterable[Answer]) -> Habits:
    """Rating shares and seconds per answer from the log, blended with fsrs-rs's defaults."""
    default = Habits()
    first = [0.0] * 4
    review = [0.0] * 3
    spent = [[0.0] * 4 for _ in range(3)]
    counted = [[0] * 4 for _ in range(3)]
    for _, rating, _, state, duration_ms in answers:
        kind = 0 if state is None or state == 1 else state - 1  # learning, review, relearning
        if state is None:
            first[rating - 1] += 1
        elif state == 2 and rating > 1:
            review[rating - 2] += 1
        spent[kind][rating - 1] += min(duration_ms / 1000, _MAX_SECONDS)
        counted[kind][rating - 1] += 1
    seconds = tuple(
        tuple(
            (spent[k][g] + HABIT_PRIOR * default.seconds[k][g]) / (counted[k][g] + HABIT_PRIOR)
            for g in range(4)
        )
        for k in range(3)
    )
    f = _blend(first, default.first)
    r = _blend(review, default.review)
    return Habits((f[0], f[1], f[2], f[3]), (r[0], r[1], r[2]), seconds)


def recommend(session: StudySession, parameters: Sequence[float], *, days: int = 365) -> float:
    """fsrs-rs's optimal desired retention for learning the session's cards, with the
    student's parameters, habits and daily limits.

    EngineMissing without fsrs-rs-python; ValueError with no cards or no new-card limit.
    """
    inputs = session.workload_inputs()
    answers, _, _ = session.training_log()
    settings = session.settings
    return optimal_retention(
        parameters,
        cards=inputs["new"] + len(inputs["stability"]),
        new_per_day=settings.new_per_day,
        reviews_per_day=settings.reviews_per_day,
        days=days,
        habits=habits(answers),
        learning_steps=len(settings.learning_steps),
        relearning_steps=len(settings.relearning_steps),
    )

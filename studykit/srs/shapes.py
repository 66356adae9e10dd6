"""What the scheduling side hands to the layers above: a stored memory model, and the cards
the workload simulation starts from (TypedDicts, as py-fsrs's `CardDict`)."""

from __future__ import annotations

from datetime import datetime
from typing import TypedDict


class MemoryModel(TypedDict):
    """One `memory_model` row: the fitted FSRS parameters of a scope, and how they were fitted."""

    parameters: list[float]
    fitted_at: datetime
    reviews: int
    cards: int
    log_loss: float | None
    rmse: float | None


class WorkloadInputs(TypedDict):
    """Loaded, unsuspended cards: how many are new; stability, difficulty, days since review,
    days to due (negative when overdue) and lapses of the rest; today's weekday (Monday 0)."""

    new: int
    stability: list[float]
    difficulty: list[float]
    elapsed: list[float]
    due_in: list[float]
    lapses: list[int]
    weekday: int

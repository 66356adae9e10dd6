"""Computed cards: seeded variants, grading typed answers, and picking quiz questions.

Imports neither textual nor torch; sympy is imported by `studykit.expressions` only when an
expression is first parsed.
"""

from __future__ import annotations

from studykit.quiz.grading import DEFAULT_TOLERANCE, Grade, grade
from studykit.quiz.picking import QuizAnswer, pick_questions
from studykit.quiz.variants import (
    Variant,
    VariantError,
    check_points,
    draw_variant,
    format_number,
    new_seed,
    placeholders,
)

__all__ = [
    "DEFAULT_TOLERANCE",
    "Grade",
    "QuizAnswer",
    "Variant",
    "VariantError",
    "check_points",
    "draw_variant",
    "format_number",
    "grade",
    "new_seed",
    "pick_questions",
    "placeholders",
]

"""Computed cards: seeded variants and grading typed answers.

Picking a quiz's questions from the session's cards is the study layer's
(`studykit.study.quiz_questions`).

Imports neither textual nor torch; sympy is imported by `studykit.expressions` only when an
expression is first parsed.
"""

from __future__ import annotations

from studykit.quiz.grading import DEFAULT_TOLERANCE, Grade, grade
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
    "Variant",
    "VariantError",
    "check_points",
    "draw_variant",
    "format_number",
    "grade",
    "new_seed",
    "placeholders",
]

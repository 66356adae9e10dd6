"""The measured value an experiment gives for a computed card, shown beside the formula's."""

from __future__ import annotations

from dataclasses import dataclass

from studykit.quiz.variants import Variant


@dataclass(frozen=True)
class Measured:
    """A value an experiment measured for a variant, and what measured it."""

    value: float
    experiment: str
    note: str = ""


def measured_value(variant: Variant) -> Measured | None:
    """The linked experiment's measured answer for this variant, or None when there is none.

    The experiments do not yet say which of their answers corresponds to a card's closed
    form, so nothing is measured here and the review screen shows the formula's value alone.
    This is the one place to connect them (through the experiment cache, never a fresh run on
    the UI thread).
    """
    return None

"""The measured value an experiment gives for a computed card, shown beside the formula's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from studykit.experiments.installed import torch_installed
from studykit.quiz.variants import Variant

if TYPE_CHECKING:
    from studykit.experiments.base import CancelFn, ProgressFn, Result
    from studykit.experiments.budget import Budget
    from studykit.experiments.cache import ExperimentCache

DEVICE = "cpu"


@dataclass(frozen=True)
class Measured:
    """A value an experiment measured for a variant, and what measured it."""

    value: float
    experiment: str
    note: str = ""
    device: str = DEVICE

    def text(self) -> str:
        """`measured: X (experiment NAME, cpu)`, X written as the expected value beside it
        (`2.65614 × 10⁻⁵`, never `2.65614e-05`)."""
        from studykit.quiz.variants import number_latex
        from studykit.text.unicodemath import latex_to_unicode

        shown = latex_to_unicode(number_latex(self.value))
        return f"measured: {shown} (experiment {self.experiment}, {self.device})"


def measurable(variant: Variant) -> bool:
    """The card links an experiment answer, and torch is there to run it."""
    ref = variant.card.experiment
    if ref is None or ref.answer is None:
        return False
    return torch_installed()


def _from_result(variant: Variant, result: Result | None) -> Measured | None:
    ref = variant.card.experiment
    if result is None or ref is None or ref.answer is None:
        return None
    try:
        value = result.answer(ref.answer).value
    except KeyError:
        return None
    if isinstance(value, str):
        return None
    return Measured(float(value), ref.name, device=result.device)


def measured_value(variant: Variant, cache: ExperimentCache) -> Measured | None:
    """The linked experiment's cached answer for this variant, or None (never runs anything)."""
    from studykit.experiments.base import ExperimentError
    from studykit.experiments.cards import answer_for

    ref = variant.card.experiment
    if ref is None or ref.answer is None:
        return None
    try:
        result = answer_for(ref, variant.values, cache=cache, device=DEVICE)
    except ExperimentError:
        return None  # parameters the experiment refuses: `studykit check` reports them
    return _from_result(variant, result)


def measure(
    variant: Variant,
    cache: ExperimentCache,
    *,
    progress: ProgressFn | None = None,
    cancelled: CancelFn | None = None,
    budget: Budget | None = None,
) -> Measured | None:
    """The cached answer, or run the experiment on cpu (within `budget`), cache and return it.

    Blocking: call it from a worker thread. Raises ExperimentError (TorchMissing, Cancelled, …).
    """
    from studykit.experiments.cache import run_cached
    from studykit.experiments.cards import resolved_params

    ref = variant.card.experiment
    if ref is None or ref.answer is None:
        return None
    params = resolved_params(ref, variant.values)
    result = run_cached(
        cache,
        ref.name,
        params,
        device=DEVICE,
        progress=progress,
        cancelled=cancelled,
        budget=budget,
    )
    return _from_result(variant, result)

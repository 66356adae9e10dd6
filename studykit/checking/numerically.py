"""Formulas sympy cannot read, recognised in their TeX and checked with torch.

torch is optional: without it, a recognised formula is skipped as "needs torch" with the
command that installs it. Nothing here imports torch at module import.
"""

from __future__ import annotations

from collections.abc import Mapping

from studykit.checking.autograd import check_bound, check_cell_gradient, check_jacobian
from studykit.checking.references import (
    check_attention,
    check_encoding,
    check_encoding_norm,
    check_softmax,
)
from studykit.checking.relations import Outcome
from studykit.checking.skips import SkipCategory
from studykit.checking.texforms import (
    CellGradient,
    Encoding,
    EncodingNorm,
    Form,
    Jacobian,
    NormBound,
    Softmax,
    recognise,
)


def check_form(form: Form, known: Mapping[str, float]) -> Outcome | None:
    """The verdict on a recognised form (None when its formula cannot be read after all)."""
    if isinstance(form, Jacobian):
        return check_jacobian(form)
    if isinstance(form, NormBound):
        return check_bound(form)
    if isinstance(form, Encoding):
        return check_encoding(form)
    if isinstance(form, EncodingNorm):
        return check_encoding_norm(form, known)
    if isinstance(form, CellGradient):
        return check_cell_gradient(form, known)
    if isinstance(form, Softmax):
        return check_softmax(form)
    return check_attention(form)


def check_numerically(
    left: str,
    relation: str,
    right: str,
    written: Mapping[str, str],
    known: Mapping[str, float] = {},
) -> Outcome | None:
    """A formula sympy cannot read, checked with torch; None when it is not a known form."""
    form = recognise(left, relation, right, written)
    if form is None:
        return None
    try:
        import torch  # noqa: F401
    except ImportError:
        return Outcome(
            "skipped",
            "checked numerically with torch, which is not installed "
            "(pip install 'studykit[torch]')",
            category=SkipCategory.NEEDS_TORCH.value,
        )
    return check_form(form, known)

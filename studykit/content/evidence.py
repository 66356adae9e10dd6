"""What a computed card draws and the evidence it gives: parameters, worked examples, agreement
with a claim, and the tolerance each is compared at."""

from __future__ import annotations

from typing import Self

from pydantic import Field, model_validator

from studykit.content.modelbase import Ident, Number, Strict


class Tolerance(Strict):
    """How close a typed numeric answer must be."""

    abs: float | None = Field(default=None, ge=0)
    rel: float | None = Field(default=None, ge=0)
    sig_figs: int | None = Field(default=None, ge=1, le=15)

    @model_validator(mode="after")
    def _exactly_one(self) -> Self:
        if (self.abs is not None) + (self.rel is not None) + (self.sig_figs is not None) != 1:
            raise ValueError("give exactly one of `abs`, `rel` or `sig_figs`")
        return self


class ParamSpec(Strict):
    """How a computed card draws one parameter: from choices or from a range."""

    choices: tuple[float | int | str, ...] | None = Field(default=None, min_length=1)
    min: float | None = Field(default=None, description="Lower bound of a range (inclusive).")
    max: float | None = Field(default=None, description="Upper bound of a range (inclusive).")
    step: float | None = Field(default=None, gt=0, description="Grid step within the range.")

    @model_validator(mode="after")
    def _choices_or_range(self) -> Self:
        has_range = self.min is not None or self.max is not None
        if (self.choices is None) == (not has_range):
            raise ValueError("give either `choices` or `min` and `max`")
        if has_range and (self.min is None or self.max is None or self.min > self.max):
            raise ValueError("a range needs `min` <= `max`")
        return self


class Example(Strict):
    """A case worked by hand: values for the names, and what the card's answer gives there."""

    params: dict[str, Number] = Field(
        default_factory=dict,
        description=(
            "A value for each card parameter (numeric cards: every one); a symbolic card may "
            "also give values to its answer's own names, e.g. `z`."
        ),
    )
    value: float | None = Field(
        default=None,
        allow_inf_nan=False,
        description=(
            "The expected number, compared to the digits written: `44` within ±0.5, `0.366` "
            "within ±0.0005 (not at the card's tolerance)."
        ),
    )
    expr: str | None = Field(
        default=None,
        description="Symbolic cards: the expected expression there, compared by sympy.",
    )
    tolerance: Tolerance | None = Field(
        default=None,
        description="How close the answer must be to `value` (default: its written digits).",
    )

    @model_validator(mode="after")
    def _value_or_expr(self) -> Self:
        if (self.value is None) == (self.expr is None):
            raise ValueError("give exactly one of `value` or `expr`")
        if self.tolerance is not None and self.value is None:
            raise ValueError("`tolerance` compares `value`; an `expr` is compared by sympy")
        return self


class Agreement(Strict):
    """The card's answer must reproduce a verified claim of the deck's note."""

    claim: Ident = Field(description="Id of a claim (with `approx` or `equals`) in the note.")
    params: dict[str, Number] = Field(
        default_factory=dict,
        description="The parameter values the claim is about, e.g. `{gamma: 0.95}`.",
    )
    tolerance: Tolerance | None = Field(
        default=None,
        description=(
            "How close the answer must be to the claim's value (default: relative 1e-9, as "
            "both compute the same number)."
        ),
    )

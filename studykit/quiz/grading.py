"""Grading a typed answer: numbers within a tolerance, expressions by sympy equivalence."""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Final

from studykit.content.model import Tolerance
from studykit.expressions import ExpressionError, ExpressionTimeout, parse
from studykit.quiz.variants import Variant, number_latex

# A numeric card without `tolerance` accepts its answer to three significant figures.
DEFAULT_TOLERANCE: Final = Tolerance(sig_figs=3)
MAX_ANSWER_LENGTH: Final = 300
_TYPED: Final = {"−": "-", "×": "*", "·": "*", "^": "**", "÷": "/"}
# A whole answer of digits with commas: `0,26` (a decimal comma), `4,096`, `1,234,567`.
_COMMA_NUMBER: Final = re.compile(r"([-+]?)(\d+)((?:,\d+)+)")
_GROUPED: Final = re.compile(r"[1-9]\d{0,2}(?:,\d{3}){2,}")
# A number left with a comma and nothing after it: `4,` (a decimal comma half typed).
_TRAILING_COMMA: Final = re.compile(r"([-+]?\d+)(\.\d+)?,")


@dataclass(frozen=True)
class Grade:
    """The verdict on one typed answer."""

    correct: bool | None  # None: the answer could not be read; `message` says why
    message: str
    given_latex: str = ""
    expected_latex: str = ""

    @property
    def readable(self) -> bool:
        return self.correct is not None


def within(given: float, expected: float, tolerance: Tolerance) -> bool:
    """Whether `given` is close enough to `expected` (edges included)."""
    slack = 1e-12 * max(1.0, abs(expected))  # float noise exactly at the edge
    error = abs(given - expected)
    if tolerance.abs is not None:
        return error <= tolerance.abs + slack
    if tolerance.rel is not None:
        return error <= tolerance.rel * abs(expected) + slack
    assert tolerance.sig_figs is not None
    if expected == 0:
        return error <= slack
    # Within half a unit of the last significant figure asked for: the rounded value passes.
    unit = 10.0 ** (math.floor(math.log10(abs(expected))) - tolerance.sig_figs + 1)
    return error <= unit / 2 + slack


def same_expression(
    left: str, right: str, *, names: Collection[str], values: Mapping[str, float]
) -> bool:
    """Whether two valid expressions are equal for every value of their open names (sympy)."""
    try:
        return parse(f"({left}) == ({right})", names=names).holds(values)
    except ExpressionTimeout:
        raise
    except ExpressionError:
        return False  # both parse, but no point gives both a real value: not the same expression


def describe_tolerance(tolerance: Tolerance) -> str:
    if tolerance.abs is not None:
        return f"±{tolerance.abs:g}"
    if tolerance.rel is not None:
        return f"±{tolerance.rel * 100:g}%"
    return f"{tolerance.sig_figs} significant figures"


def _typed(text: str) -> str:
    cleaned = text.strip()
    for typed, meant in _TYPED.items():
        cleaned = cleaned.replace(typed, meant)
    return cleaned


def read_commas(text: str) -> tuple[str, str] | Grade:
    """A number typed with commas as (text to parse, note); Grade(None) when it is ambiguous.

    `0,26` is a decimal comma (noted); `1,234,567` groups thousands; `4,096` could be either,
    so it is refused rather than guessed. Commas inside a longer expression are left alone.
    """
    trailing = _TRAILING_COMMA.fullmatch(text)
    if trailing is not None:
        whole, decimals = trailing.groups()
        if decimals:
            said = f"`{text}` is not a number: write {whole}{decimals} (no comma at the end)."
            return Grade(None, said)
        return Grade(
            None,
            f"`{text}` is not a number: write {whole} or {whole}.5 "
            "(a decimal comma needs digits after it).",
        )
    match = _COMMA_NUMBER.fullmatch(text)
    if match is None:
        return text, ""
    sign, whole, rest = match.groups()
    if _GROUPED.fullmatch(whole + rest):
        return text.replace(",", ""), ""
    fraction = rest[1:]
    if "," in fraction:
        return Grade(None, f"Could not read `{text}`: too many commas for one number.")
    if len(fraction) == 3 and whole != "0":
        plain, decimal = f"{sign}{whole}{fraction}", f"{sign}{whole}.{fraction}"
        return Grade(None, f"`{text}` could mean {plain} or {decimal}: type it without a comma.")
    number = f"{sign}{whole}.{fraction}"
    return number, f"read {text} as {number}"


def _unreadable(error: ExpressionError, hint: str, *, comma: str = "") -> Grade:
    """Why the answer could not be read; `comma`: what to say for `4, 5` (a "tuple")."""
    if comma and error.construct is ast.Tuple:
        return Grade(None, f"`{error.fragment}` {comma}")
    return Grade(None, f"Could not read your answer: {error.message}. {hint}")


def grade(variant: Variant, text: str) -> Grade:
    """Grade `text` against the variant's answer; a typo gives correct=None, not a wrong."""
    if not text.strip():
        return Grade(None, "Type an answer first.")
    if len(text) > MAX_ANSWER_LENGTH or "#" in text or "\n" in text:
        return Grade(None, f"An answer is one line of at most {MAX_ANSWER_LENGTH} characters.")
    if variant.card.kind == "numeric":
        read = read_commas(_typed(text))
        if isinstance(read, Grade):
            return read
        verdict = _grade_number(variant, read[0])
        if read[1] and verdict.readable:
            return replace(verdict, message=f"{verdict.message}; {read[1]}")
        return verdict
    return _grade_expression(variant, _typed(text))


def _grade_number(variant: Variant, text: str) -> Grade:
    hint = "Type a number, e.g. 0.95, 2.7e-7 or 16384 (arithmetic like 512*32 works too)."
    try:
        given = parse(text).evaluate()
    except ExpressionError as error:
        return _unreadable(
            error, hint, comma="is more than one number: type one (a decimal: 4.5 or 4,5)."
        )
    expected = variant.expected()
    tolerance = variant.card.tolerance or DEFAULT_TOLERANCE
    ok = within(given, expected, tolerance)
    shown = number_latex(expected, 8)
    return Grade(
        ok,
        f"{'Right' if ok else 'Not quite'} (accepted: {describe_tolerance(tolerance)})",
        given_latex=number_latex(given, 8),
        expected_latex=shown,
    )


def _grade_expression(variant: Variant, text: str) -> Grade:
    names = sorted(variant.symbols | set(variant.card.params))
    listed = ", ".join(f"`{name}`" for name in sorted(variant.symbols)) or "no names"
    hint = f"Write it like Python maths (use {listed}; ** for powers)."
    try:
        given = parse(text, names=names)
    except ExpressionError as error:
        comma = (
            "is more than one expression: type one (a comma goes only between a function's "
            "arguments, as in log(8, 2))."
        )
        return _unreadable(error, hint, comma=comma)
    try:
        ok = same_expression(given.text, variant.answer.text, names=names, values=variant.values)
    except ExpressionTimeout:
        return Grade(None, "Your answer took too long to check; try a simpler form.")
    expected = variant.expected_latex()
    mine = given.substituted_latex(variant.values)
    return Grade(
        ok,
        "Right (same expression)" if ok else "Not quite (a different expression)",
        given_latex=mine,
        expected_latex=expected,
    )

"""Checking one computed card: placeholders declared, an answer for every parameter choice."""

from __future__ import annotations

from typing import Final

from studykit.checking.findings import Finding
from studykit.content.model import COMPUTED_KINDS, Card
from studykit.expressions import Expression, ExpressionError, ExpressionTimeout
from studykit.quiz.variants import (
    SYMBOL_SAMPLES,
    Value,
    VariantError,
    answer_expression,
    combinations,
    format_number,
    placeholders,
)

# Past this many failing parameter choices, one line says how many more there are.
MAX_REPORTED_POINTS: Final = 3


def check_card(card: Card) -> tuple[list[Finding], int]:
    """What is wrong with a computed card, and how many parameter choices were tried."""
    if card.kind not in COMPUTED_KINDS:
        return [], 0
    findings = _placeholder_findings(card)
    try:
        answer = answer_expression(card)
    except ExpressionError as error:
        return [*findings, Finding(f"bad `answer` expression: {error.message}")], 0
    failures: list[Finding] = []
    tried = 0
    try:
        for values in combinations(card):
            tried += 1
            failure = _try_point(card, answer, values)
            if failure is not None:
                failures.append(failure)
    except VariantError as error:
        return [*findings, Finding(error.args[0])], tried
    findings += failures[:MAX_REPORTED_POINTS]
    if len(failures) > MAX_REPORTED_POINTS:
        more = len(failures) - MAX_REPORTED_POINTS
        findings.append(Finding(f"... and {more} more parameter choices without a value"))
    return findings, tried


def _placeholder_findings(card: Card) -> list[Finding]:
    declared = sorted(card.params)
    listed = ", ".join(f"`{name}`" for name in declared) or "none"
    findings = []
    texts = [("front", card.front), ("back", card.back)]
    if card.experiment is not None:
        texts += [
            (f"experiment parameter `{key}`", value)
            for key, value in card.experiment.params.items()
            if isinstance(value, str)
        ]
    for where, text in texts:
        for name in dict.fromkeys(placeholders(text)):
            if name not in card.params:
                findings.append(
                    Finding(
                        f"`{{{name}}}` in the {where} is not a declared parameter "
                        f"(declared: {listed})"
                    )
                )
    return findings


def _shown(values: dict[str, Value]) -> str:
    return ", ".join(f"{name}={format_number(value)}" for name, value in values.items())


def _try_point(card: Card, answer: Expression, values: dict[str, Value]) -> Finding | None:
    """None when the answer has a finite real value at `values`."""
    symbols = sorted(answer.names - values.keys())
    if not symbols:
        try:
            answer.evaluate(values)
        except ExpressionTimeout as error:
            return Finding(
                f"answer could not be evaluated in time for {_shown(values)}: {error.message}"
            )
        except ExpressionError as error:
            reason = error.message.removeprefix(f"`{answer.text}` has no value: ")
            return Finding(f"answer has no value for {_shown(values)}: {reason}", None, reason)
        return None
    last: ExpressionError | None = None
    for sample in SYMBOL_SAMPLES:
        point = {**values, **{name: sample for name in symbols}}
        try:
            answer.evaluate(point)
            return None
        except ExpressionError as error:
            last = error
    reason = last.message if last is not None else "no value"
    where = f" for {_shown(values)}" if values else ""
    return Finding(f"symbolic answer has no value at any sample point{where}: {reason}")

"""The equations of a library's prose, checked and put in the report at file:line."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

from studykit.checking.context import Context
from studykit.checking.equations import Equation, check_says, check_text, without_cloze
from studykit.checking.findings import Problem, Report, SkippedEquation
from studykit.checking.orders import order_equations
from studykit.checking.skips import classify
from studykit.content.citations import CLAIM_VALUES, render_citations
from studykit.content.loading import Library
from studykit.content.model import Card, Claim, Note, Section, Strict


class Recorder:
    """Counts each equation and turns the wrong and skipped ones into located entries."""

    def __init__(self, library: Library, report: Report, shown: Callable[[Path, str], str]) -> None:
        self.root = library.root
        self.report = report
        self.shown = shown
        self.on_line: Counter[tuple[str, int]] = Counter()  # equations so far per file:line

    def add(self, holder: Strict, field: str, text: str, where: str, found: list[Equation]) -> None:
        origin = holder.origin
        text_origin = holder.text_origin(field)
        path = self.shown(self.root, origin.path) if origin else os.fspath(self.root)
        for equation in found:
            if text_origin is not None:
                line, column = text_origin.line_at(text, equation.index), text_origin.column
            else:
                line, column = (origin.line, origin.column) if origin else (0, 0)
            rel = origin.path if origin else ""
            self.on_line[rel, line] += 1
            count = self.on_line[rel, line]
            name = f"equation:{line}" + (f"#{count}" if count > 1 else "")
            with self.report.checking(rel, line, name) as item:
                self._count(equation, text, path, line, column, where)
                if equation.verdict == "skipped":
                    item.skipped = equation.reason

    def _count(
        self, equation: Equation, text: str, path: str, line: int, column: int, where: str
    ) -> None:
        """Count one equation; a skipped or wrong one is also listed at file:line."""
        counts = self.report.equations
        if equation.verdict == "verified":
            counts.verified += 1
        elif equation.verdict == "skipped":
            counts.skipped += 1
            category = equation.category or classify(equation.tex, text, equation.index).value
            self.report.skipped_equations.append(
                SkippedEquation(path, line, where, equation.tex, equation.reason, category)
            )
        else:
            counts.wrong += 1
            self.report.problems.append(
                Problem(
                    path=path,
                    line=line,
                    column=column,
                    kind="equation",
                    subject=f"`{equation.tex}` ({where})",
                    message=equation.reason,
                    expected=equation.expected,
                    computed=equation.computed,
                )
            )


def _claim_value(claim: Claim) -> float | None:
    """The claim's computed value, when it claims a number (the value citations show)."""
    if claim.approx is None and claim.equals is None:
        return None
    return CLAIM_VALUES.value(claim.expr)


def check_section_body(
    recorder: Recorder,
    section: Section,
    note: Note,
    orders: Mapping[str, str],
    declared: Context,
) -> None:
    """The equations of a section's body, with its citations rendered as the reader sees them,
    starting from the note's `declared` definitions; its `O(·)` against `orders` (its note's)."""
    body = _cited(section.body, note)
    found = _by_place(check_text(body, declared.copy()) + order_equations(body, orders))
    recorder.add(section, "body", body, f"section {section.id}", found)


def check_claim_says(recorder: Recorder, claim: Claim, orders: Mapping[str, str]) -> None:
    """A claim's `says` (only when its own check passed: one problem per claim); its `O(·)`
    against `orders`, its note's, or a complexity claim's against its own order alone."""
    if claim.order is not None:
        found = order_equations(claim.says, {claim.id: claim.order}, all_maths=True)
        if not found:
            found = [
                Equation(claim.says, 0, "wrong", f"`says` writes no `O(…)`: say O({claim.order})")
            ]
    else:
        found = check_says(claim.says, _claim_value(claim))
        found += order_equations(claim.says, orders, all_maths=True)
    recorder.add(claim, "says", claim.says, f"claim {claim.id} says", _by_place(found))


def check_card_text(
    recorder: Recorder,
    card: Card,
    note: Note | None,
    orders: Mapping[str, str],
    declared: Context,
) -> None:
    """Front (cloze answers filled in) then back, sharing what they define and starting from
    the note's and deck's `declared` definitions; their `O(·)` against `orders` (the note's)."""
    context = declared.copy()
    front = _cited(without_cloze(card.front) if card.kind == "cloze" else card.front, note)
    where = f"card {card.id}"
    found = check_text(front, context, params=card.params) + order_equations(front, orders)
    recorder.add(card, "front", front, f"{where} front", _by_place(found))
    if card.back:
        back = _cited(card.back, note)
        found = check_text(back, context, params=card.params) + order_equations(back, orders)
        recorder.add(card, "back", back, f"{where} back", _by_place(found))


def _by_place(found: list[Equation]) -> list[Equation]:
    """Equations and `O(·)`s in the order they stand in the text (items are named by it)."""
    return sorted(found, key=lambda equation: equation.index)


def _cited(text: str, note: Note | None) -> str:
    """`text` with its citations rendered; each stays on its line, so lines still match."""
    return render_citations(text, note)

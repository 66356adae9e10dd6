"""Declared definitions: a note's and a deck's `definitions:`, shared by every text they hold.

A note's sections and its decks' cards all start from the note's declarations (and a deck's
cards also from the deck's), so `$k^* = 91$` on a card back is checked against the note's
`k^* = \\lceil … \\rceil` instead of defining k* itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from studykit.checking.context import Context, declare
from studykit.checking.findings import Problem, Report
from studykit.checking.scope import shown_path
from studykit.content.citations import number_tex
from studykit.content.model import Definition, Fact

Declaration = Definition | Fact


def says(declaration: Declaration) -> str | None:
    """The `symbol = value` a definition, or a fact with a `symbol`, declares."""
    if isinstance(declaration, Definition):
        return declaration.says
    if declaration.symbol is None:
        return None
    return f"{declaration.symbol} = {number_tex(declaration.value, None)}"


def declared_context(
    definitions: Iterable[Declaration], base: Context | None = None
) -> tuple[Context, list[tuple[Declaration, str]]]:
    """`base` (or nothing) with `definitions` (and facts' symbols) declared; the ones that are
    not declarations."""
    context = base.copy() if base is not None else Context()
    wrong: list[tuple[Declaration, str]] = []
    for definition in definitions:
        declared = says(definition)
        if declared is None:
            continue
        why = declare(declared, context)
        if why is not None:
            wrong.append((definition, why))
    return context, wrong


def report_declarations(
    root: Path,
    definitions: Iterable[Declaration],
    wrong: list[tuple[Declaration, str]],
    report: Report,
) -> None:
    """Each declaration a checked item at its line; one that is not a declaration a problem."""
    why = {id(definition): message for definition, message in wrong}
    for definition in definitions:
        if says(definition) is None:
            continue
        origin = definition.origin
        rel, line = (origin.path, origin.line) if origin is not None else ("", 0)
        with report.checking(rel, line, f"definition:{line}"):
            if id(definition) in why:
                report.problems.append(
                    Problem(
                        path=shown_path(root, rel) if origin is not None else str(root),
                        line=line,
                        column=origin.column if origin is not None else 0,
                        kind="equation",
                        subject="definition",
                        message=f"{why[id(definition)]}; write `symbol = expression`, once",
                    )
                )

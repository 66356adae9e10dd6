"""`--run-experiments`: linked experiments exist, and those with a closed form agree with it."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator
from typing import TYPE_CHECKING

from studykit.checking.findings import ExperimentSummary, Problem, Report
from studykit.loading import Library
from studykit.model import ExperimentRef, Origin

if TYPE_CHECKING:
    from studykit.checking.runner import Scope

REGISTRY = "studykit.experiments.registry"
NOT_YET = "no experiments are registered yet; nothing to run"
NO_CLOSED_FORM = (
    "{count} experiments registered; none declares a closed form to compare with, "
    "so none was run (linked names checked)"
)


def _links(library: Library, scope: Scope) -> Iterator[tuple[Origin | None, str, ExperimentRef]]:
    """(where, what links it, the link) for every experiment link in scope."""
    for note in library.notes.values():
        if note.origin is not None and scope.covers(note.origin.path):
            for section in note.sections:
                if section.experiment is not None:
                    yield section.origin, f"section {section.id}", section.experiment
    for deck in library.decks.values():
        if deck.origin is not None and scope.covers(deck.origin.path):
            for card in deck.cards:
                if card.experiment is not None:
                    yield card.origin, f"card {card.id}", card.experiment


def check_experiments(library: Library, scope: Scope, report: Report) -> None:
    """Every linked experiment name must be registered; say plainly what was (not) run."""
    if importlib.util.find_spec(REGISTRY) is None:
        report.experiments = ExperimentSummary(ran=0, note=NOT_YET)
        return
    registered = tuple(importlib.import_module(REGISTRY).names())
    if not registered:
        report.experiments = ExperimentSummary(ran=0, note=NOT_YET)
        return
    from studykit.checking.runner import shown_path

    known = ", ".join(registered)
    for origin, holder, link in _links(library, scope):
        if link.name in registered:
            continue
        kind, subject = holder.split(" ", 1)
        report.problems.append(
            Problem(
                path=shown_path(library.root, origin.path) if origin else str(library.root),
                line=origin.line if origin else 0,
                column=origin.column if origin else 0,
                kind="experiment",
                subject=f"{link.name} ({kind} {subject})",
                message=f"no experiment is registered under this name; known: {known}",
            )
        )
    report.experiments = ExperimentSummary(ran=0, note=NO_CLOSED_FORM.format(count=len(registered)))

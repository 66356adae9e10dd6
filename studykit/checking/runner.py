"""`studykit check`: which files to check, loading them, and checking each claim and card."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from studykit.checking.barenumbers import bare_numbers
from studykit.checking.cards import check_card
from studykit.checking.claims import check_claim
from studykit.checking.declared import Declaration, declared_context, report_declarations
from studykit.checking.evidence import check_evidence, evidence_kinds
from studykit.checking.findings import Finding, Problem, ProblemKind, Report
from studykit.checking.links import check_link
from studykit.checking.measured import check_measured, measured_runs
from studykit.checking.numbered import numbered_findings
from studykit.checking.orders import note_orders
from studykit.checking.prose import (
    Recorder,
    check_card_text,
    check_claim_says,
    check_section_body,
)
from studykit.checking.scope import Scope, shown_path
from studykit.content.loading import Library, load_library
from studykit.content.model import (
    COMPUTED_KINDS,
    Card,
    Claim,
    Deck,
    ExperimentRef,
    Note,
    Origin,
    Section,
    Strict,
)
from studykit.core.errors import StudykitError
from studykit.expressions.scripts import mixed_scripts, names_in

if TYPE_CHECKING:
    from studykit.experiments.cache import Runner

FOLDERS = ("content", "decks")


class CheckInputError(StudykitError):
    """A path to check that does not exist or lies outside any content/ or decks/ folder."""


def _is_root(path: Path) -> bool:
    return path.is_dir() and any((path / folder).is_dir() for folder in FOLDERS)


def _scope_of(path: Path) -> tuple[Path, str | None]:
    """(root, file or folder relative to it; None for the whole root)."""
    if not path.exists():
        raise CheckInputError(f"{path}: no such file or folder")
    if _is_root(path):
        return path, None
    resolved = path.resolve()
    for parent in resolved.parents:
        for folder in FOLDERS:
            if resolved.is_relative_to(parent / folder):
                return parent, resolved.relative_to(parent).as_posix()
    raise CheckInputError(
        f"{path}: not a folder holding content/ or decks/, nor a file or folder inside one"
    )


def scopes(paths: Sequence[Path], default_root: Path) -> list[Scope]:
    """Group the paths by the root they belong to (the default root when there are none)."""
    if not paths:
        if not default_root.is_dir():
            raise CheckInputError(f"{default_root}: no such folder")
        return [Scope(default_root, None)]
    grouped: dict[Path, list[str] | None] = {}
    for path in paths:
        root, rel = _scope_of(path)
        key = root.resolve()
        if rel is None or grouped.get(key, []) is None:
            grouped[key] = None
        else:
            parts = grouped.setdefault(key, [])
            assert parts is not None
            parts.append(rel)
    return [Scope(root, None if only is None else tuple(only)) for root, only in grouped.items()]


def _problem(
    root: Path, origin: Origin | None, kind: ProblemKind, subject: str, finding: Finding
) -> Problem:
    path = shown_path(root, origin.path) if origin is not None else os.fspath(root)
    return Problem(
        path=path,
        line=origin.line if origin is not None else 0,
        column=origin.column if origin is not None else 0,
        kind=kind,
        subject=subject,
        message=finding.message,
        expected=finding.expected,
        computed=finding.computed,
    )


def _check_link(
    root: Path, origin: Origin | None, subject: str, link: ExperimentRef, report: Report
) -> None:
    finding = check_link(link)
    if finding is not None:
        report.problems.append(
            _problem(root, origin, "experiment", f"{link.name} ({subject})", finding)
        )


def _warn_scripts(
    root: Path,
    origin: Origin | None,
    kind: ProblemKind,
    subject: str,
    texts: tuple[str | None, ...],
    report: Report,
) -> None:
    """Warn (without failing) when an expression's names mix look-alike writing systems."""
    names = [name for text in texts if text for name in names_in(text)]
    warning = mixed_scripts(names)
    if warning is not None:
        report.warnings.append(_problem(root, origin, kind, subject, Finding(warning)))


def _at(holder: Strict, field: str, text: str, index: int) -> Origin | None:
    """Where character `index` of the holder's `field` (whose value is `text`) is written."""
    origin, text_origin = holder.origin, holder.text_origin(field)
    if origin is None or text_origin is None:
        return origin
    return Origin(origin.path, text_origin.line_at(text, index), text_origin.column)


def _check_numbered(root: Path, card: Card, note: Note | None, report: Report) -> None:
    """A card side's line that markdown makes a one-item numbered list, at that line."""
    for field, text, index, finding in numbered_findings(card, note):
        report.problems.append(
            _problem(root, _at(card, field, text, index), "card", card.id, finding)
        )


def _check_bare_numbers(
    root: Path, holder: Section | Card, subject: str, labels: tuple[str, ...], report: Report
) -> None:
    """Each number a text shows that is not cited, not maths in a relation, not a label."""
    fields = ("title", "body") if isinstance(holder, Section) else ("front", "back")
    for field in fields:
        text = getattr(holder, field) or ""
        report.number_texts += 1
        for bare in bare_numbers(text, labels):
            finding = Finding(bare.message(field))
            at = _at(holder, field, text, bare.index)
            report.problems.append(_problem(root, at, "number", subject, finding))


def _deck_labels(deck: Deck, note: Note | None) -> tuple[str, ...]:
    return (*(note.labels if note is not None else ()), *deck.labels)


def _where(origin: Origin | None) -> tuple[str, int]:
    return (origin.path, origin.line) if origin is not None else ("", 0)


def check_library(library: Library, scope: Scope, report: Report) -> None:
    """Add the load problems, claims and computed cards of `scope` to `report`."""
    root = library.root
    for load in library.problems:
        if scope.covers(load.path):
            report.unreadable = True
            message = f"{load.message}; {load.hint}" if load.hint else load.message
            with report.checking(load.path, load.line, f"load:{load.line}"):
                report.problems.append(
                    Problem(
                        shown_path(root, load.path), load.line, load.column, "load", None, message
                    )
                )
    recorder = Recorder(library, report, shown_path)
    for note in library.notes.values():
        if note.origin is None or not scope.covers(note.origin.path):
            continue
        orders = note_orders(note)
        declarations: tuple[Declaration, ...] = (*note.definitions, *note.facts)
        declared, wrong = declared_context(declarations)
        report_declarations(root, declarations, wrong, report)
        for section in note.sections:
            with report.checking(*_where(section.origin), f"section:{section.id}"):
                _check_bare_numbers(root, section, section.id, note.labels, report)
            check_section_body(recorder, section, note, orders, declared)
            for claim in section.claims:
                _check_claim(root, claim, recorder, report, orders, note)
        for section in note.sections:
            if section.experiment is not None:
                with report.checking(*_where(section.origin), f"experiment:{section.id}"):
                    _check_link(root, section.origin, section.id, section.experiment, report)
    for deck in library.decks.values():
        if deck.origin is None or not scope.covers(deck.origin.path):
            continue
        cited = library.note_for(deck)
        orders = note_orders(cited)
        from_note, _ = declared_context((*cited.definitions, *cited.facts) if cited else ())
        declared, wrong = declared_context(deck.definitions, from_note)
        report_declarations(root, deck.definitions, wrong, report)
        labels = _deck_labels(deck, cited)
        if cited is None:  # no note to declare facts in: its numbers cannot be cited
            report.numbers_unchecked.append(deck.name)
        for card in deck.cards:
            check_card_text(recorder, card, cited, orders, declared)
            with report.checking(*_where(card.origin), f"card:{card.id}"):
                if cited is not None:
                    _check_bare_numbers(root, card, card.id, labels, report)
                _check_card(root, card, cited, report)


def _check_claim(
    root: Path,
    claim: Claim,
    recorder: Recorder,
    report: Report,
    orders: Mapping[str, str],
    note: Note,
) -> None:
    """The claim (an item), then the equations of its `says` (items of their own)."""
    with report.checking(*_where(claim.origin), f"claim:{claim.id}"):
        _warn_scripts(root, claim.origin, "claim", claim.id, (claim.expr, claim.equals), report)
        report.claims += 1
        finding = check_claim(claim)
        if finding is None and claim.growth is not None:
            finding = _measured_growth(claim, note)
        if finding is not None:
            report.problems.append(_problem(root, claim.origin, "claim", claim.id, finding))
    if finding is None:
        check_claim_says(recorder, claim, orders)


def _measured_growth(claim: Claim, note: Note) -> Finding | None:
    """The claim's order against the growth exponent its named measured entry holds."""
    from studykit.checking.growth import check_measured_growth

    assert claim.growth is not None
    entries = {entry.id: entry for section in note.sections for entry in section.measured}
    entry = entries.get(claim.growth.measured)
    if entry is None:
        known = ", ".join(entries) or "none"
        return Finding(
            f"`growth` names no measured entry `{claim.growth.measured}`; known: {known}"
        )
    return check_measured_growth(claim, entry.value)


def _check_card(root: Path, card: Card, note: Note | None, report: Report) -> None:
    _check_numbered(root, card, note, report)
    if card.experiment is not None:
        _check_link(root, card.origin, card.id, card.experiment, report)
    if card.kind not in COMPUTED_KINDS:
        return
    _warn_scripts(root, card.origin, "card", card.id, (card.answer, card.defines), report)
    report.cards += 1
    findings, tried = check_card(card)
    report.variants += tried
    for finding in findings:
        report.problems.append(_problem(root, card.origin, "card", card.id, finding))
    report.count_evidence(evidence_kinds(card))
    if findings:
        return  # evidence is compared with an answer that works; fix that first
    for origin, finding in check_evidence(card, note):
        report.problems.append(_problem(root, origin, "card", card.id, finding))


def check_scope(
    library: Library,
    scope: Scope,
    report: Report,
    *,
    run_experiments: bool = False,
    runner: Runner | None = None,
    recorded: Path | None = None,
) -> None:
    """Everything `check` does for one scope of a loaded library (the pytest plugin's too).

    `recorded`: the cache folder whose recorded runs plain check compares measured entries
    with (None: plain check compares none). With `run_experiments`, every run the links and
    measured entries need is made first, side by side (`runs.run_all`).
    """
    from studykit.checking.runs import Runs

    check_library(library, scope, report)
    if runner is None:
        from studykit.experiments.runner import run_experiment

        runner = run_experiment
    runs = Runs(runner)
    if run_experiments:
        from studykit.checking.experiments import check_experiments, planned_runs

        runs.make([*planned_runs(library, scope), *measured_runs(library, scope)])
        check_experiments(library, scope, report, runs=runs)
    check_measured(library, scope, report, run=run_experiments, runs=runs, recorded=recorded)
    if runs.made:
        report.note_experiments(f"{len(runs.made)} runs made in {runs.seconds:.1f} s")


def run_check(
    paths: Sequence[Path],
    default_root: Path,
    *,
    run_experiments: bool = False,
    runner: Runner | None = None,
    recorded: Path | None = None,
) -> Report:
    """Check the given files or folders (default: the whole default root).

    `runner` runs each experiment (default `run_experiment`: a child process within budget);
    `recorded` is the cache folder of recorded runs (see `check_scope`).
    """
    report = Report()
    for scope in scopes(paths, default_root):
        library = load_library(scope.root)
        check_scope(
            library,
            scope,
            report,
            run_experiments=run_experiments,
            runner=runner,
            recorded=recorded,
        )
    report.problems.sort(key=lambda p: (p.path, p.line, p.column, p.kind))
    report.warnings.sort(key=lambda p: (p.path, p.line, p.column, p.kind))
    return report

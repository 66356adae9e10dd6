"""`measured:` entries: re-run the deterministic ones and flag drift beyond their tolerance.

Timings and other machine-dependent numbers (`deterministic: false`) are shown as measured
on their named machine and never compared. Each deterministic entry is re-run with its own
experiment, parameters, seed and device; the entry's `answer` must be one of the run's
answers, and the value must land within `tolerance`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from studykit.checking.findings import Checked, Problem, Report
from studykit.checking.scope import Scope, shown_path
from studykit.content.loading import Library
from studykit.content.model import ExperimentRef, Measurement
from studykit.core.errors import StudykitError
from studykit.experiments.installed import torch_installed

if TYPE_CHECKING:
    from studykit.experiments.cache import Runner


def _entries(library: Library, scope: Scope) -> Iterator[Measurement]:
    for note in library.notes.values():
        if note.origin is not None and scope.covers(note.origin.path):
            for section in note.sections:
                yield from section.measured


def _problem(library: Library, entry: Measurement, message: str, **extra: str) -> Problem:
    origin = entry.origin
    return Problem(
        path=shown_path(library.root, origin.path) if origin else str(library.root),
        line=origin.line if origin else 0,
        column=origin.column if origin else 0,
        kind="experiment",
        subject=f"measured {entry.id}",
        message=message,
        expected=extra.get("expected"),
        computed=extra.get("computed"),
    )


def drift(entry: Measurement, measured: float) -> str | None:
    """What is wrong when a re-run's `measured` value is outside the entry's tolerance."""
    from studykit.quiz.grading import describe_tolerance, within
    from studykit.quiz.variants import format_number

    assert entry.tolerance is not None
    if within(measured, entry.value, entry.tolerance):
        return None
    return (
        f"`{entry.experiment}` now measures {entry.answer} = {format_number(measured)}, "
        f"but the entry says {format_number(entry.value)} "
        f"(tolerance {describe_tolerance(entry.tolerance)}); update `value` or find the change"
    )


def check_measured(
    library: Library, scope: Scope, report: Report, *, run: bool, runner: Runner | None = None
) -> None:
    """Entries name a registered experiment and valid params; `run` re-runs and flags drift.

    Each re-run goes through `runner` (default `run_experiment`, in a child process).
    """
    entries = list(_entries(library, scope))
    for entry in entries:
        with _checking(report, entry):
            wrong = _static(entry)
            if wrong is not None:
                report.problems.append(_problem(library, entry, wrong))
    if run and torch_installed():
        if runner is None:
            from studykit.experiments.runner import run_experiment

            runner = run_experiment
        _rerun(library, entries, report, runner)


def _checking(report: Report, entry: Measurement) -> AbstractContextManager[Checked]:
    origin = entry.origin
    rel, line = (origin.path, origin.line) if origin is not None else ("", 0)
    return report.checking(rel, line, f"measured:{entry.id}")


def _static(entry: Measurement) -> str | None:
    """What is wrong with the entry's experiment name or parameters, without running it."""
    from studykit.checking.links import check_link
    from studykit.experiments.registry import names

    known = names()
    if entry.experiment not in known:
        return f"no experiment is registered as `{entry.experiment}`; known: {', '.join(known)}"
    finding = check_link(ExperimentRef(name=entry.experiment, params=entry.params))
    return None if finding is None else finding.message


def _rerun(library: Library, entries: list[Measurement], report: Report, runner: Runner) -> None:
    """Re-run each deterministic entry (one run per experiment, parameters, seed and device)."""
    results: dict[str, dict[str, float] | str] = {}
    compared = shown = 0
    for entry in entries:
        if not entry.deterministic:
            shown += 1
            continue
        compared += 1
        with _checking(report, entry):
            _compare(library, entry, report, runner, results)
    _summarise(report, compared, shown, len(results))


def _compare(
    library: Library,
    entry: Measurement,
    report: Report,
    runner: Runner,
    results: dict[str, dict[str, float] | str],
) -> None:
    """One deterministic entry against its run (a run already made for its key is reused)."""
    key = json.dumps([entry.experiment, entry.params, entry.seed, entry.device], sort_keys=True)
    if key not in results:
        try:
            result = runner(entry.experiment, entry.params, device=entry.device, seed=entry.seed)
            numbers = [a for a in result.outcome.answers if not isinstance(a.value, str)]
            results[key] = {a.key: float(a.value) for a in numbers}
        except StudykitError as error:
            results[key] = str(error)
    answers = results[key]
    if isinstance(answers, str):
        report.problems.append(_problem(library, entry, f"the run failed: {answers}"))
    elif entry.answer not in answers:
        known = ", ".join(answers)
        message = f"`answer: {entry.answer}` is not one of its answers: {known}"
        report.problems.append(_problem(library, entry, message))
    elif (wrong := drift(entry, answers[entry.answer])) is not None:
        report.problems.append(
            _problem(
                library,
                entry,
                wrong,
                expected=str(entry.value),
                computed=str(answers[entry.answer]),
            )
        )


def _summarise(report: Report, compared: int, shown: int, runs: int) -> None:
    """Add what was re-run to the `experiments:` line of the report."""
    if report.experiments is None or not compared + shown:
        return
    said = (
        f"{compared} measured entries re-run ({runs} runs); "
        f"{shown} machine-dependent ones shown, not compared"
    )
    note = f"{report.experiments.note}; {said}" if report.experiments.note else said
    report.experiments = dataclasses.replace(report.experiments, note=note)

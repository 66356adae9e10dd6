"""`measured:` entries: each compared with a run of its experiment, parameters, seed and device.

A deterministic entry must land within its `tolerance`. Plain `check` compares it with the
recorded run (`recorded.py`) and re-runs only what has no record for today's code and torch;
`--run-experiments` re-runs everything. A non-deterministic entry (a timing, a training
success share) must land in its `band`, and is re-run only by `--run-experiments`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Final

from studykit.checking.findings import Checked, Problem, Report
from studykit.checking.recorded import Answers, RecordedRuns
from studykit.checking.runs import Run, Runs
from studykit.checking.scope import Scope, shown_path
from studykit.content.loading import Library
from studykit.content.model import ExperimentRef, Measurement
from studykit.core.errors import StudykitError
from studykit.experiments.installed import torch_installed

if TYPE_CHECKING:
    from studykit.experiments.base import Result

TIME_UNITS: Final = frozenset({"ns", "µs", "us", "ms", "s", "min"})


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
    """What is wrong when a run's `measured` value is outside the entry's tolerance or band."""
    from studykit.quiz.grading import describe_tolerance, within
    from studykit.quiz.variants import format_number

    unit = f" {entry.unit}" if entry.unit else ""
    now = f"`{entry.experiment}` now measures {entry.answer} = {format_number(measured)}{unit}"
    if entry.band is not None:
        low, high = entry.band
        if low <= measured <= high:
            return None
        return (
            f"{now}, outside the entry's band [{format_number(low)}, {format_number(high)}]"
            f"{unit}; widen `band` if this machine is allowed to, or find the change"
        )
    assert entry.tolerance is not None
    if within(measured, entry.value, entry.tolerance):
        return None
    return (
        f"{now}, but the entry says {format_number(entry.value)}{unit} "
        f"(tolerance {describe_tolerance(entry.tolerance)}); update `value` or find the change"
    )


def check_measured(
    library: Library,
    scope: Scope,
    report: Report,
    *,
    run: bool,
    runs: Runs | None = None,
    recorded: Path | None = None,
) -> None:
    """Entries name a registered experiment and valid params, and agree with their runs.

    `run` re-runs every entry; otherwise, with `recorded` (a cache folder), deterministic
    entries are compared with the runs recorded there, and what has no record is run and
    recorded. Runs are made through `runs` (default: child processes within budget).
    """
    entries: list[Measurement] = []
    for entry in _entries(library, scope):
        with _checking(report, entry):
            wrong = _static(entry)
            if wrong is not None:
                report.problems.append(_problem(library, entry, wrong))
            else:
                entries.append(entry)
    if not (run or recorded is not None) or not entries:
        return
    compared = [entry for entry in entries if run or entry.deterministic]
    if not torch_installed():
        said = f"{len(compared)} measured entries not compared (PyTorch is not installed)"
        report.note_experiments(said)
        return
    if runs is None:
        from studykit.experiments.runner import run_experiment

        runs = Runs(run_experiment)
    answers, made, reused = _answers(compared, runs, recorded, report, fresh=run)
    for entry in compared:
        with _checking(report, entry):
            _compare(library, entry, answers[_run_of(entry).key], report)
    _summarise(report, entries, compared, made=made, reused=reused, run=run)


def measured_runs(library: Library, scope: Scope) -> list[Run]:
    """The runs `--run-experiments` makes for the measured entries in `scope`."""
    return [_run_of(entry) for entry in _entries(library, scope) if _static(entry) is None]


def _run_of(entry: Measurement) -> Run:
    return Run(
        entry.experiment,
        entry.params,
        entry.seed,
        entry.device,
        alone=not entry.deterministic and entry.unit in TIME_UNITS,
    )


def _answers(
    entries: list[Measurement],
    runs: Runs,
    recorded: Path | None,
    report: Report,
    *,
    fresh: bool,
) -> tuple[dict[str, Answers | str], int, int]:
    """Each entry's run's numeric answers (or why it failed); how many were run and reused.

    `fresh`: every run is made again (and a deterministic one recorded), none reused.
    """
    wanted = {_run_of(entry).key: _run_of(entry) for entry in entries}
    deterministic = {_run_of(entry).key for entry in entries if entry.deterministic}
    if recorded is None:
        runs.make(wanted.values())
        return {key: _numbers(runs.made[key]) for key in wanted}, len(wanted), 0
    records = RecordedRuns(recorded)
    with records.locked():  # a second check waits here, then finds these runs recorded
        answers: dict[str, Answers | str] = {}
        for key, needed in wanted.items():
            found = None if fresh else records.get(needed)
            if found is not None:
                answers[key] = found
        missing = [needed for key, needed in wanted.items() if key not in answers]
        runs.make(missing)
        for needed in missing:
            numbers = answers[needed.key] = _numbers(runs.made[needed.key])
            if not isinstance(numbers, str) and needed.key in deterministic:
                records.put(needed, numbers)
        failed = records.write() if records.added else None
    for trouble in (records.damaged, failed):
        if trouble is not None:
            report.warnings.append(_cache_warning(recorded, trouble))
    return answers, len(missing), len(wanted) - len(missing)


def _numbers(outcome: Result | StudykitError) -> Answers | str:
    if isinstance(outcome, StudykitError):
        return str(outcome)
    numbers = [a for a in outcome.outcome.answers if not isinstance(a.value, str)]
    return {a.key: float(a.value) for a in numbers}


def _cache_warning(folder: Path, message: str) -> Problem:
    return Problem(
        path=str(folder), line=0, column=0, kind="experiment", subject="recorded runs",
        message=f"{message}; the runs are made again next time",
    )  # fmt: skip


def _compare(library: Library, entry: Measurement, answers: Answers | str, report: Report) -> None:
    """One entry against its run's answers."""
    if isinstance(answers, str):
        report.problems.append(_problem(library, entry, f"the run failed: {answers}"))
    elif entry.answer not in answers:
        known = ", ".join(answers)
        message = f"`answer: {entry.answer}` is not one of its answers: {known}"
        report.problems.append(_problem(library, entry, message))
    elif (wrong := drift(entry, answers[entry.answer])) is not None:
        expected = str(entry.value) if entry.band is None else f"[{entry.band[0]}, {entry.band[1]}]"
        report.problems.append(
            _problem(library, entry, wrong, expected=expected, computed=str(answers[entry.answer]))
        )


def _summarise(
    report: Report,
    entries: list[Measurement],
    compared: list[Measurement],
    *,
    made: int,
    reused: int,
    run: bool,
) -> None:
    """Add what was compared, and how, to the `experiments:` line of the report."""
    exact = sum(entry.deterministic for entry in compared)
    banded = len(compared) - exact
    if run:
        also = f" and {banded} banded ones" if banded else ""
        said = f"{exact} measured entries{also} re-run ({made} runs)"
    else:
        said = f"{exact} measured entries compared ({reused} runs recorded, {made} run now)"
        waiting = len(entries) - len(compared)
        if waiting:
            said += f"; {waiting} banded ones compared only with --run-experiments"
    report.note_experiments(said)


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

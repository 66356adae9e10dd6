"""`--run-experiments`: linked experiments exist, and those with a closed form agree with it."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from studykit.checking.findings import ExperimentSummary, Problem, ProblemKind, Report
from studykit.checking.runs import Run, Runs
from studykit.checking.scope import Scope, shown_path
from studykit.content.loading import Library
from studykit.content.model import COMPUTED_KINDS, Card, ExperimentRef, Origin
from studykit.core.errors import StudykitError
from studykit.experiments.base import DEFAULT_SEED
from studykit.experiments.installed import torch_installed

if TYPE_CHECKING:
    from studykit.experiments.base import Result
    from studykit.quiz.variants import Value

REGISTRY = "studykit.experiments.registry"
DEVICE = "cpu"
NOT_YET = "no experiments are registered yet; nothing to run"
NO_TORCH = "PyTorch is not installed, so no experiment was run (linked names checked)"


@dataclass(frozen=True)
class Link:
    """One `experiment:` link: where it is written, what holds it, and its drawn values."""

    origin: Origin | None
    holder: str
    ref: ExperimentRef
    values: Mapping[str, object]
    card: Card | None = None


def _points(card: Card) -> list[dict[str, Value]]:
    """A computed card's representative parameter choices (low corner first)."""
    from studykit.quiz.variants import representative

    try:
        return representative(card)
    except StudykitError:
        return [{}]  # the card check reports parameters that cannot be drawn


def _links(library: Library, scope: Scope) -> Iterator[Link]:
    """Every experiment link in scope, sections first."""
    for note in library.notes.values():
        if note.origin is not None and scope.covers(note.origin.path):
            for section in note.sections:
                if section.experiment is not None:
                    yield Link(section.origin, f"section {section.id}", section.experiment, {})
    for deck in library.decks.values():
        if deck.origin is not None and scope.covers(deck.origin.path):
            for card in deck.cards:
                if card.experiment is not None:
                    values = _points(card)[0]
                    yield Link(card.origin, f"card {card.id}", card.experiment, values, card)


class _Checker:
    """Runs each distinct (experiment, parameters) once and reports per link."""

    def __init__(self, library: Library, report: Report, runs: Runs) -> None:
        self.library = library
        self.report = report
        self.runs = runs
        self.used: set[str] = set()
        self.compared = 0
        self.without = 0
        self.measured = 0  # card answers compared with a measured value

    def problem(
        self,
        link: Link,
        subject: str,
        message: str,
        *,
        kind: ProblemKind = "experiment",
        expected: str | None = None,
        computed: str | None = None,
    ) -> None:
        origin = link.origin
        self.report.problems.append(
            Problem(
                path=shown_path(self.library.root, origin.path)
                if origin
                else str(self.library.root),
                line=origin.line if origin else 0,
                column=origin.column if origin else 0,
                kind=kind,
                subject=subject,
                message=message,
                expected=expected,
                computed=computed,
            )
        )

    def run(self, name: str, params: Mapping[str, object]) -> Result | StudykitError:
        run = _run(name, params)
        self.used.add(run.key)
        return self.runs.get(run)

    def check(self, link: Link) -> None:
        from studykit.experiments import registry
        from studykit.experiments.budget import Budget, OverBudget, check_budget
        from studykit.experiments.cards import resolved_params
        from studykit.experiments.closed_forms import applicable, compare, expression
        from studykit.experiments.params import validate

        experiment = registry.get(link.ref.name)
        try:
            params = validate(experiment, resolved_params(link.ref, link.values))
            forms = applicable(experiment, params)
            for form in forms:
                expression(experiment, form)
        except StudykitError as error:
            from studykit.checking.links import check_link

            if check_link(link.ref) is None:  # literal values are already checked there
                self.problem(link, link.ref.name, f"{error} ({link.holder})")
            return
        try:  # the default budget: what a student's reveal of this card gets unless raised
            check_budget(experiment, params, Budget())
        except OverBudget as error:
            self.problem(link, experiment.name, f"{error} ({link.holder})")
            return
        if not forms:
            self.without += 1
            if not _measures(link):
                return  # nothing to compare: the name and parameters are checked
        result = self.run(experiment.name, params)
        if isinstance(result, StudykitError):
            self.problem(link, experiment.name, f"the run failed: {result} ({link.holder})")
            return
        self.compared += bool(forms)
        keys = [answer.key for answer in result.outcome.answers]
        if link.ref.answer is not None and link.ref.answer not in keys:
            self.problem(
                link,
                experiment.name,
                f"`answer: {link.ref.answer}` is not one of its answers: {', '.join(keys)} "
                f"({link.holder})",
            )
        for comparison in compare(experiment, result):
            if not comparison.agrees:
                self.problem(
                    link,
                    experiment.name,
                    f"{comparison.describe()} (`{comparison.form.expr}`; {link.holder})",
                    expected=str(comparison.expected),
                    computed=str(comparison.measured),
                )

    def evidence(self, link: Link) -> None:
        """Run a computed card's experiment at a few of its choices; compare with its formula."""
        from studykit.checking.evidence import compare_measured
        from studykit.experiments import registry
        from studykit.experiments.cards import resolved_params
        from studykit.experiments.params import validate

        card, key = link.card, link.ref.answer
        assert card is not None and key is not None
        experiment = registry.get(link.ref.name)
        for index, values in enumerate(_points(card)):
            try:
                params = validate(experiment, resolved_params(link.ref, values))
            except StudykitError as error:
                if index:  # the first choice's parameters are reported by check()
                    self.problem(link, experiment.name, f"{error} ({link.holder})")
                return
            result = self.run(experiment.name, params)
            if isinstance(result, StudykitError):
                if index:
                    self.problem(link, experiment.name, f"the run failed: {result} ({link.holder})")
                return
            try:
                measured = result.answer(key).value
            except KeyError:
                return  # check() names the answers there are
            self.measured += 1
            finding = compare_measured(card, values, key, measured)
            if finding is not None:
                self.problem(
                    link,
                    card.id,
                    f"{finding.message} (`{experiment.name}`)",
                    kind="card",
                    expected=finding.expected,
                    computed=finding.computed,
                )


def _run(name: str, params: Mapping[str, object]) -> Run:
    return Run(name, params, DEFAULT_SEED, DEVICE)


def _planned(link: Link) -> list[Run]:
    """The runs `_Checker.check` and `evidence` will make for `link` (none for a link they
    would report without running; they report it)."""
    from studykit.experiments import registry
    from studykit.experiments.budget import Budget, check_budget
    from studykit.experiments.cards import resolved_params
    from studykit.experiments.closed_forms import applicable
    from studykit.experiments.params import validate

    try:
        experiment = registry.get(link.ref.name)
        params = validate(experiment, resolved_params(link.ref, link.values))
        check_budget(experiment, params, Budget())
        if not applicable(experiment, params) and not _measures(link):
            return []
        runs = [_run(experiment.name, params)]
        if _measures(link):
            assert link.card is not None
            for values in _points(link.card)[1:]:
                runs.append(
                    _run(experiment.name, validate(experiment, resolved_params(link.ref, values)))
                )
    except StudykitError:
        return []
    return runs


def _measures(link: Link) -> bool:
    """Whether the link's named answer measures a computed card's formula."""
    card = link.card
    return card is not None and card.kind in COMPUTED_KINDS and link.ref.answer is not None


def planned_runs(library: Library, scope: Scope) -> list[Run]:
    """The runs `check_experiments` will make, so that they can be made side by side first."""
    if not torch_installed() or importlib.util.find_spec(REGISTRY) is None:
        return []
    registered = set(importlib.import_module(REGISTRY).names())
    links = (link for link in _links(library, scope) if link.ref.name in registered)
    return [run for link in links for run in _planned(link)]


def check_experiments(library: Library, scope: Scope, report: Report, *, runs: Runs) -> None:
    """Linked names must be registered; links with a closed form are run on cpu and compared.

    Each distinct run is made once, through `runs`.
    """
    if importlib.util.find_spec(REGISTRY) is None:
        report.experiments = ExperimentSummary(ran=0, note=NOT_YET)
        return
    registered = tuple(importlib.import_module(REGISTRY).names())
    if not registered:
        report.experiments = ExperimentSummary(ran=0, note=NOT_YET)
        return
    known = ", ".join(registered)
    checker = _Checker(library, report, runs)
    torch = torch_installed()
    for link in _links(library, scope):
        kind, subject = link.holder.split(" ", 1)
        rel, line = (link.origin.path, link.origin.line) if link.origin else ("", 0)
        # The item the plain checks made: the card, or the section's experiment link.
        with report.checking(rel, line, f"{'card' if kind == 'card' else 'experiment'}:{subject}"):
            if link.ref.name not in registered:
                checker.problem(
                    link,
                    f"{link.ref.name} ({kind} {subject})",
                    f"no experiment is registered under this name; known: {known}",
                )
            elif torch:
                checker.check(link)
                if _measures(link):
                    checker.evidence(link)
    if not torch:
        report.experiments = ExperimentSummary(ran=0, note=NO_TORCH)
        return
    ran = len(checker.used)
    note = (
        f"{_count(checker.compared, 'link')} compared with their closed forms "
        f"({_count(ran, 'run')} on {DEVICE}); "
        f"{_count(checker.without, 'link')} without a closed form that applies (names checked); "
        f"{_count(checker.measured, 'card answer')} compared with measured values"
    )
    report.experiments = ExperimentSummary(ran=ran, note=note)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"

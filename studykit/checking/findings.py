"""What a check finds: one problem, located at file:line, and the report of a whole run."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Final, Literal

from studykit.core.jsontypes import JsonObject
from studykit.core.terminal import one_line

# The kinds of evidence a computed card can give beside its answer, in the order reported.
EVIDENCE_KINDS: Final = ("examples", "agrees_with", "defines", "experiment")
ProblemKind = Literal["load", "claim", "card", "experiment", "equation", "number"]


@dataclass(frozen=True)
class Finding:
    """A problem with one claim or card, before it is given a place."""

    message: str
    expected: str | None = None
    computed: str | None = None


@dataclass(frozen=True)
class Problem:
    """One problem at file:line (the path as the user can open it)."""

    path: str
    line: int
    column: int
    kind: ProblemKind
    subject: str | None
    message: str
    expected: str | None = None
    computed: str | None = None

    def __str__(self) -> str:
        if self.kind == "load" or self.subject is None:
            return one_line(f"{self.path}:{self.line}:{self.column}: {self.message}")
        return one_line(f"{self.path}:{self.line}: {self.kind} {self.subject}: {self.message}")

    def to_json(self) -> JsonObject:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "kind": self.kind,
            "id": self.subject,
            "message": self.message,
            "expected": self.expected,
            "computed": self.computed,
        }


@dataclass
class Checked:
    """One thing checked at file:line (claim, card, equation, measured entry, load error).

    `name` is unique in its file (`claim:ID`, `card:ID`, `equation:LINE`, …); the pytest
    plugin makes one item of each.
    """

    rel: str  # the file, relative to its root ("" when unknown)
    line: int
    name: str
    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    skipped: str | None = None  # why it was not checked (an equation that cannot be read)


@dataclass(frozen=True)
class ExperimentSummary:
    """What `--run-experiments` did: how many ran, or why none could."""

    ran: int = 0
    note: str | None = None


@dataclass(frozen=True)
class SkippedEquation:
    """An equation in prose that was not checked, at file:line, and why."""

    path: str
    line: int
    where: str
    tex: str
    reason: str
    category: str = "unclassified"  # a `checking.skips.SkipCategory` value

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}"
        what = f"skipped equation ({self.where}) [{self.category}]"
        return one_line(f"{where}: {what} `{self.tex}`: {self.reason}")

    def to_json(self) -> JsonObject:
        return {
            "path": self.path,
            "line": self.line,
            "where": self.where,
            "tex": self.tex,
            "category": self.category,
            "reason": self.reason,
        }


@dataclass
class EquationCounts:
    """How the equations in prose fared."""

    verified: int = 0
    skipped: int = 0
    wrong: int = 0

    @property
    def total(self) -> int:
        return self.verified + self.skipped + self.wrong


@dataclass
class Report:
    """Everything one `studykit check` found."""

    problems: list[Problem] = field(default_factory=list)
    claims: int = 0
    cards: int = 0
    variants: int = 0
    unreadable: bool = False
    experiments: ExperimentSummary | None = None
    cards_with_evidence: int = 0
    evidence: dict[str, int] = field(default_factory=dict)  # kind -> cards that give it
    experiment_only: int = 0  # cards whose one evidence needs `--run-experiments`
    warnings: list[Problem] = field(default_factory=list)  # shown; the exit status ignores them
    number_texts: int = 0  # texts searched for bare numbers
    numbers_unchecked: list[str] = field(default_factory=list)  # decks with no note for facts
    items: list[Checked] = field(default_factory=list)  # each thing checked, with its problems
    _named: dict[tuple[str, str], Checked] = field(default_factory=dict, init=False, repr=False)

    @contextmanager
    def checking(self, rel: str, line: int, name: str) -> Iterator[Checked]:
        """The problems and warnings added inside the block are `name`'s (a later block for
        the same file and name adds to it: an experiment run after the plain checks)."""
        item = self._named.get((rel, name))
        if item is None:
            item = self._named[rel, name] = Checked(rel, line, name)
            self.items.append(item)
        problems, warnings = len(self.problems), len(self.warnings)
        yield item
        item.problems += self.problems[problems:]
        item.warnings += self.warnings[warnings:]

    def note_experiments(self, said: str) -> None:
        """Add `said` to the `experiments:` line."""
        summary = self.experiments or ExperimentSummary()
        note = f"{summary.note}; {said}" if summary.note else said
        self.experiments = replace(summary, note=note)

    def count_evidence(self, kinds: tuple[str, ...]) -> None:
        """Count one computed card's kinds of evidence (none, one or several)."""
        if kinds:
            self.cards_with_evidence += 1
        for kind in kinds:
            self.evidence[kind] = self.evidence.get(kind, 0) + 1
        if kinds == ("experiment",):
            self.experiment_only += 1

    def evidence_line(self, *, ran_experiments: bool) -> str | None:
        """`evidence: 17 of 17 computed cards (examples 17, ...)`; None without computed cards."""
        if not self.cards:
            return None
        kinds = ", ".join(
            f"{kind} {self.evidence[kind]}" for kind in EVIDENCE_KINDS if kind in self.evidence
        )
        line = f"evidence: {self.cards_with_evidence} of {self.cards} computed cards"
        line += f" ({kinds})" if kinds else ""
        if self.experiment_only and not ran_experiments:
            line += (
                f"; {self.experiment_only} only through an experiment, "
                "compared by `check --run-experiments`"
            )
        return line

    def numbers_line(self) -> str:
        """`numbers: 212 texts, 0 bare`: numbers written without a fact, claim or maths."""
        bare = sum(1 for problem in self.problems if problem.kind == "number")
        line = f"numbers: {self.number_texts} texts, {bare} bare"
        if self.numbers_unchecked:
            decks = ", ".join(one_line(name) for name in self.numbers_unchecked[:3])
            more = len(self.numbers_unchecked) - 3
            decks += f" and {more} more" if more > 0 else ""
            line += (
                f"; not searched: {len(self.numbers_unchecked)} deck(s) with no `note:` to "
                f"declare their facts in ({decks})"
            )
        return line

    equations: EquationCounts = field(default_factory=EquationCounts)
    skipped_equations: list[SkippedEquation] = field(default_factory=list)

    def skip_categories(self) -> dict[str, int]:
        """How many skipped equations fall in each category, most first."""
        counts: dict[str, int] = {}
        for item in self.skipped_equations:
            counts[item.category] = counts.get(item.category, 0) + 1
        return dict(sorted(counts.items(), key=lambda pair: (-pair[1], pair[0])))

    @property
    def exit_code(self) -> int:
        """0 clean, 1 problems found (a file that did not load is one, as in every command)."""
        return 1 if self.problems else 0

    def summary(self) -> str:
        counts = self.equations
        return (
            f"{self.claims} claims, {self.cards} cards checked, "
            f"{counts.total} equations ({counts.verified} verified, {counts.skipped} skipped, "
            f"{counts.wrong} wrong), "
            f"{len(self.problems)} problem{'' if len(self.problems) == 1 else 's'}"
        )

    def text_lines(
        self, *, verbose: bool = False, ran_experiments: bool = False, limit: int | None = None
    ) -> list[str]:
        """The report as `studykit check` prints it: problems (at most `limit`, then how many
        more), skipped equations when verbose, warnings, the evidence and numbers lines, and the
        summary."""
        shown = self.problems if limit is None else self.problems[:limit]
        lines = [str(problem) for problem in shown]
        if len(self.problems) > len(shown):
            hidden = len(self.problems) - len(shown)
            lines.append(f"… and {hidden} more (run `studykit check` for all of them)")
        if verbose:
            lines += [str(skipped) for skipped in self.skipped_equations]
            categories = self.skip_categories()
            if categories:
                counts = ", ".join(f"{name} {count}" for name, count in categories.items())
                lines.append(f"skipped by category: {counts}")
        lines += [f"warning: {warning}" for warning in self.warnings]
        if self.experiments is not None and self.experiments.note:
            lines.append(f"experiments: {self.experiments.note}")
        evidence = self.evidence_line(ran_experiments=ran_experiments)
        if evidence is not None:
            lines.append(evidence)
        lines += [self.numbers_line(), self.summary()]
        return lines

    def to_json(self, *, verbose: bool = False) -> JsonObject:
        counts = self.equations
        document: JsonObject = {
            "ok": not self.problems,
            "claims": self.claims,
            "cards": self.cards,
            "variants": self.variants,
            "cards_with_evidence": self.cards_with_evidence,
            "evidence": dict(self.evidence),
            "experiment_only": self.experiment_only,
            "equations": {
                "verified": counts.verified,
                "skipped": counts.skipped,
                "wrong": counts.wrong,
            },
            "skipped_by_category": self.skip_categories(),
            "numbers": {
                "texts": self.number_texts,
                "bare": sum(1 for problem in self.problems if problem.kind == "number"),
                "unchecked_decks": list(self.numbers_unchecked),
            },
            "problems": [problem.to_json() for problem in self.problems],
            "warnings": [warning.to_json() for warning in self.warnings],
        }
        if verbose:
            document["skipped_equations"] = [item.to_json() for item in self.skipped_equations]
        if self.experiments is not None:
            document["experiments"] = {
                "ran": self.experiments.ran,
                "note": self.experiments.note,
            }
        return document

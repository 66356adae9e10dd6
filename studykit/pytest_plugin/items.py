"""A content file as a pytest collector, and each thing `check` checks in it as an item.

The file's checks run when it is collected (the same `check_scope` that `studykit check`
runs, for this one file); each item then reports what was found at its file:line.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator

    from _pytest._code.code import ExceptionInfo, TerminalRepr

    from studykit.checking.findings import Checked, Problem
    from studykit.content.loading import Library

LIBRARIES = pytest.StashKey[dict[Path, "Library"]]()


class ContentWarning(UserWarning):
    """What `check` prints as `warning:` (the run still passes)."""


class ContentProblems(Exception):
    """The problems `check` found with one item."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(problem) for problem in problems))
        self.problems = problems


def _library(config: pytest.Config, root: Path) -> Library:
    """The root's library, loaded once per run (its files refer to each other)."""
    from studykit.content.loading import load_library

    loaded = config.stash.setdefault(LIBRARIES, {})
    if root not in loaded:
        loaded[root] = load_library(root)
    return loaded[root]


def _recorded(config: pytest.Config) -> Path | None:
    """Where the run's recorded experiment runs live: pytest's cache (`--cache-clear` empties
    it), else studykit's own cache folder."""
    cache = getattr(config, "cache", None)
    if cache is not None:
        folder: Path = cache.mkdir("studykit")
        return folder
    from studykit.core.config import resolve_settings
    from studykit.core.errors import StudykitError

    try:
        return resolve_settings().cache_dir
    except StudykitError:
        return None


class ContentFile(pytest.File):
    """A note or deck YAML file: one item per claim, card, equation, measured entry."""

    def __init__(self, *, root: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.root = root

    def collect(self) -> Iterator[ContentItem]:
        from studykit.checking.findings import Checked, Report
        from studykit.checking.runner import check_scope
        from studykit.checking.scope import Scope

        rel = self.path.resolve().relative_to(self.root).as_posix()
        report = Report()
        run = bool(self.config.getoption("studykit_run_experiments"))
        check_scope(
            _library(self.config, self.root),
            Scope(self.root, (rel,)),
            report,
            run_experiments=run,
            recorded=_recorded(self.config),
        )
        if report.experiments is not None and report.experiments.note:
            from studykit.pytest_plugin import EXPERIMENT_NOTES

            self.config.stash.setdefault(EXPERIMENT_NOTES, {})[rel] = report.experiments.note
        items = [checked for checked in report.items if checked.rel in (rel, "")]
        placed = {id(problem) for checked in report.items for problem in checked.problems}
        unplaced = [problem for problem in report.problems if id(problem) not in placed]
        if unplaced:  # a check that names no item still fails the run, at its file
            items.append(Checked(rel, 0, "check", unplaced))
        for checked in sorted(items, key=lambda item: item.line):
            yield ContentItem.from_parent(self, name=checked.name, checked=checked)


class ContentItem(pytest.Item):
    """One claim, card, equation, measured entry or load error, and what `check` found."""

    def __init__(self, *, checked: Checked, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.checked = checked

    def runtest(self) -> None:
        for warning in self.checked.warnings:
            warnings.warn(ContentWarning(str(warning)), stacklevel=1)
        problems = self.checked.problems
        if problems:
            raise ContentProblems(sorted(problems, key=lambda p: (p.path, p.line, p.column)))
        if self.checked.skipped is not None:
            raise pytest.skip.Exception(self.checked.skipped, _use_item_location=True)

    def repr_failure(
        self, excinfo: ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, ContentProblems):
            return str(excinfo.value)  # exactly the lines `studykit check` prints
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = self.checked.line
        return self.path, line - 1 if line else None, f"{self.name} (line {line})"

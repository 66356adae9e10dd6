"""`LoadProblem`, and the wording helpers that every check shares."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from studykit.core.terminal import one_line, shorten

__all__ = ["LoadProblem", "problem_at", "shorten", "too_deep"]


@dataclass(frozen=True)
class LoadProblem:
    """One thing wrong in one file, and where."""

    path: str
    line: int
    column: int
    message: str
    hint: str | None = None

    def __str__(self) -> str:
        text = f"{self.path}:{self.line}:{self.column}: {self.message}"
        return one_line(f"{text}; {self.hint}" if self.hint else text)


def problem_at(rel: str, mark: Any, message: str, hint: str | None = None) -> LoadProblem:
    """A problem at a YAML mark (0-based line and column) in the file `rel`."""
    return LoadProblem(rel, mark.line + 1, mark.column + 1, message, hint)


def too_deep(rel: str) -> LoadProblem:
    return LoadProblem(rel, 1, 1, "the YAML is nested too deeply")

"""Load checks: each `{claim:ID}` / `{measured:ID}` names something of the note (file:line)."""

from __future__ import annotations

from collections.abc import Sequence

from yaml.nodes import Node, ScalarNode

from studykit.content.citations import citation_problem, citations
from studykit.content.loading.positions import LINE_BREAK, locate, problem_along
from studykit.content.loading.problems import LoadProblem
from studykit.content.model import Deck, Measurement, Note


def source_lines(text: str) -> list[str]:
    """The file's lines, split where YAML counts line breaks."""
    return LINE_BREAK.split(text)


def scalar_place(node: ScalarNode, index: int, lines: Sequence[str]) -> tuple[int, int]:
    """1-based line and column in the file of character `index` of a scalar's value."""
    value = node.value
    row = value.count("\n", 0, index)
    column = index - (value.rfind("\n", 0, index) + 1)
    mark = node.start_mark
    if node.style == "|":  # literal block: value lines are the file's lines after the `|`
        number = mark.line + 1 + row
        written = value.split("\n")[row]
        if number < len(lines) and lines[number].endswith(written):
            return number + 1, len(lines[number]) - len(written) + column + 1
        return number + 1, 1
    if row == 0:
        quote = 1 if node.style in ("'", '"') else 0
        return mark.line + 1, mark.column + quote + column + 1
    return mark.line + 1 + row, 1  # folded or multi-line flow text: the line is close enough


def _text_problems(
    rel: str,
    root: Node,
    loc: tuple[str | int, ...],
    text: str,
    note: Note | None,
    lines: Sequence[str],
) -> list[LoadProblem]:
    problems: list[LoadProblem] = []
    for citation in citations(text):
        wrong = citation_problem(citation, note)
        if wrong is None:
            continue
        _, node = locate(root, loc)
        if isinstance(node, ScalarNode):
            line, column = scalar_place(node, citation.start, lines)
            problems.append(LoadProblem(rel, line, column, wrong[0], wrong[1]))
        else:
            problems.append(problem_along(rel, root, loc, wrong[0], wrong[1]))
    return problems


def note_citation_problems(
    rel: str, root: Node, note: Note, lines: Sequence[str]
) -> list[LoadProblem]:
    """Measurement ids unique in the note; every citation in a body names one of its own."""
    problems: list[LoadProblem] = []
    seen: dict[str, Measurement] = {}
    for s_index, section in enumerate(note.sections):
        for m_index, measurement in enumerate(section.measured):
            first = seen.setdefault(measurement.id, measurement)
            if first is not measurement:
                line = first.origin.line if first.origin is not None else 0
                problems.append(
                    problem_along(
                        rel,
                        root,
                        ("sections", s_index, "measured", m_index, "id"),
                        f"duplicate measurement id `{measurement.id}` in note `{note.id}`: "
                        f"the entry on line {line} already has it",
                        "give each measurement in the note its own id",
                    )
                )
        loc = ("sections", s_index, "body")
        problems += _text_problems(rel, root, loc, section.body, note, lines)
    return problems


def deck_citation_problems(
    rel: str, root: Node, deck: Deck, note: Note | None, lines: Sequence[str]
) -> list[LoadProblem]:
    """Every citation on a card's front or back names a claim or measurement of the deck's note."""
    problems: list[LoadProblem] = []
    for index, card in enumerate(deck.cards):
        for field in ("front", "back"):
            text = getattr(card, field)
            if text:
                loc = ("cards", index, field)
                problems += _text_problems(rel, root, loc, text, note, lines)
    return problems

"""Rewriting the plugin's `<!--SR:…-->` comments in a note's text, and nothing else.

A card's comment sits on one of its own lines, or alone on the line after its last (where
the plugin puts it); a card with none gets one: at the end of a one-line card (before its
block id `^id`, which Obsidian reads only at the end of the line), else on a new line after
it. Every other character of the file stays as it was, line endings included.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from studykit.importers.srschedule import Schedule, format_schedule

__all__ = ["CardSpan", "rewrite"]

_COMMENT = re.compile(r"<!--SR:.*?-->")
_BLOCK_ID = re.compile(r" \^[A-Za-z0-9-]+[ \t]*$")


@dataclass(frozen=True)
class CardSpan:
    """A card's lines in the note (1-based, inclusive)."""

    line: int
    end: int


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def _own_line(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith("<!--SR:") and stripped.endswith("-->")


def _find(lines: Sequence[str], span: CardSpan) -> tuple[int, re.Match[str]] | None:
    """Where the card's comment is: (line index, match), if it has one."""
    for index in range(span.line - 1, min(span.end, len(lines))):
        match = _COMMENT.search(lines[index])
        if match is not None:
            return index, match
    after = span.end  # the line after the card, when it holds the comment alone
    if after < len(lines) and _own_line(lines[after]):
        match = _COMMENT.search(lines[after])
        if match is not None:
            return after, match
    return None


def rewrite(text: str, edits: Sequence[tuple[CardSpan, Sequence[Schedule]]]) -> str:
    """`text` with each card's comment holding the schedules given (cards in any order)."""
    lines = text.splitlines(keepends=True)
    inserts: list[tuple[int, str]] = []
    newline = next((_ending(line) for line in lines if _ending(line)), "\n")
    for span, schedules in edits:
        comment = format_schedule(schedules)
        found = _find(lines, span)
        if found is not None:
            index, match = found
            line = lines[index]
            lines[index] = line[: match.start()] + comment + line[match.end() :]
        elif span.line == span.end and span.line <= len(lines):
            index = span.line - 1
            body = lines[index].rstrip("\r\n")
            block = _BLOCK_ID.search(body)
            cut = block.start() if block else len(body)
            lines[index] = f"{body[:cut]} {comment}{body[cut:]}{_ending(lines[index])}"
        else:
            inserts.append((min(span.end, len(lines)), comment))
    for at, comment in sorted(inserts, reverse=True):
        if at > 0 and not _ending(lines[at - 1]):
            lines[at - 1] += newline
        lines.insert(at, comment + newline)
    return "".join(lines)

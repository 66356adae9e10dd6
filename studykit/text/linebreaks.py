"""A card side's single newlines as line breaks: what the author wrote on a line stays a line.

Anki fields and Obsidian treat every newline as a break; CommonMark treats a single newline
inside a paragraph as a space. Card sides (fronts and backs) follow Anki: `hard_breaks` turns
each newline that continues a paragraph into a markdown hard break, before any renderer sees
the text. Note sections are documents and keep CommonMark's soft wrap.

Where a paragraph is comes from markdown-it's block parser (the one the terminal's Markdown
widget uses; cmark follows the same spec), so nothing changes in code blocks, lists' item
starts, headings, quotes' starts, tables or after a blank line. Newlines inside `$…$` and
`$$…$$` maths are TeX whitespace and stay; so do those next to display maths, which is a
block of its own on every screen.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

from studykit.text.mathscan import Maths, placed_pieces

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


HARD_BREAK = "  "
"""Two trailing spaces, not a backslash: a `\\` inside inline maths that spans lines is TeX."""
# A line already ending in a break: two spaces, a backslash, or an allowed `<br>` tag.
_ENDS_IN_BREAK = re.compile(r"(?: {2,}|\\|<br\s*/?>[ \t]*)\Z", re.IGNORECASE)
# Prose that only paragraphs can hold, so that no parser is needed: each line blank or starting
# with a character that opens no block (no indent, list marker, quote, heading, fence, rule,
# setext underline, HTML, link definition or table delimiter row).
_PROSE_LINE = re.compile(r"[ \t]*|(?:[^\s\-+*>#|=_~`<\[:\d]|\d(?!\d{0,8}[.)]))[^\n]*")


@lru_cache(maxsize=1)
def _blocks() -> MarkdownIt:
    """markdown-it with tables (as both renderers have), parsing blocks only."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    md.disable("inline")  # only paragraphs' line ranges are needed
    return md


def parsed_paragraph_lines(markdown: str) -> Iterator[int]:
    """Each line that a paragraph continues past (every paragraph line but its last)."""
    for token in _blocks().parse(markdown):
        if token.type == "paragraph_open" and token.map is not None:
            start, end = token.map
            yield from range(start, end - 1)


def only_paragraphs(lines: list[str]) -> bool:
    """Whether these lines can hold nothing but paragraphs: no line opens another block."""
    return all(_PROSE_LINE.fullmatch(line) for line in lines)


def _paragraph_lines(markdown: str, lines: list[str]) -> Iterator[int]:
    if only_paragraphs(lines):  # most sides: their paragraphs are runs of lines
        for number in range(len(lines) - 1):
            if lines[number].strip() and lines[number + 1].strip():
                yield number
    else:
        yield from parsed_paragraph_lines(markdown)


def _maths_spans(markdown: str) -> list[tuple[int, int, bool]]:
    """(start, end, is display) of the maths in `markdown`, by the renderers' own scanner."""
    return [
        (start, end, piece.display)
        for start, end, piece in placed_pieces(markdown)
        if isinstance(piece, Maths)
    ]


def _kept(newline: int, markdown: str, spans: list[tuple[int, int, bool]]) -> bool:
    """Whether the newline at `newline` stays as it is: inside maths or next to display maths."""
    for start, end, display in spans:
        if start < newline < end:
            return True
        if not display:
            continue
        if end <= newline and not markdown[end:newline].strip(" \t"):
            return True  # the line ends with display maths
        if newline < start and not markdown[newline + 1 : start].strip(" \t>"):
            return True  # the next line starts with it
    return False


@lru_cache(maxsize=4096)  # screens render the same side again and again
def hard_breaks(markdown: str) -> str:
    """`markdown` with every newline that continues a paragraph made a hard break."""
    if "\n" not in markdown.rstrip():  # one line (a `|` block's newline at its end too)
        return markdown
    lines = markdown.split("\n")
    continued = set(_paragraph_lines(markdown, lines))
    if not continued:
        return markdown
    spans = _maths_spans(markdown) if "$" in markdown else []
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    for number in sorted(continued):
        line = lines[number]
        newline = starts[number] + len(line)
        if _ENDS_IN_BREAK.search(line) or _kept(newline, markdown, spans):
            continue
        lines[number] = line.rstrip(" \t") + HARD_BREAK
    return "\n".join(lines)

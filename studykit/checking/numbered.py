"""A number at the start of a card side's line that markdown reads as a numbered list.

`512. 32 sequences…` on a back is meant as the answer 512, but CommonMark makes it item 512 of
an ordered list: the terminal shows `512.` as a list marker and the Anki export writes
`<ol start="512">`. A list of one item is almost always such a number, so `check` reports it
at its line with a way to write it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Final

from studykit.checking.findings import Finding
from studykit.content.citations import render_citations
from studykit.content.model import Card, Note

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

_MARKER: Final = re.compile(r"\s*(\d{1,9})([.)])")


@lru_cache(maxsize=1)
def _blocks() -> MarkdownIt:
    """markdown-it as both renderers parse card sides (CommonMark with tables), blocks only."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    md.disable("inline")
    return md


def one_item_lists(markdown: str) -> Iterator[int]:
    """The 0-based line of each ordered list in `markdown` that holds a single item."""
    tokens = _blocks().parse(markdown)
    for index, token in enumerate(tokens):
        if token.type != "ordered_list_open" or token.map is None:
            continue
        items, depth = 0, 0
        for inner in tokens[index + 1 :]:
            if inner.type == "ordered_list_close" and depth == 0:
                break
            if inner.type.endswith("_list_open"):
                depth += 1
            elif inner.type.endswith("_list_close"):
                depth -= 1
            elif inner.type == "list_item_open" and depth == 0:
                items += 1
        if items == 1:
            yield token.map[0]


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for line in text.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    return starts


def numbered_findings(
    card: Card, note: Note | None = None
) -> Iterator[tuple[str, str, int, Finding]]:
    """(field, rendered side, character index in it, finding) for each one-item numbered list
    on a card side, its citations rendered first (`{measured:steps}. …` reads `512. …`); a
    citation never spans lines, so the index's line is the written one."""
    for field, written in (("front", card.front), ("back", card.back or "")):
        text = render_citations(written, note)
        starts = _line_starts(text)
        for line in one_item_lists(text):
            start = starts[line]
            marker = _MARKER.match(text, start)
            if marker is None:  # markdown-it found a list where the pattern sees none
                continue
            number, dot = marker.groups()
            yield (
                field,
                text,
                start,
                Finding(
                    f"the {field}'s line starting `{number}{dot} ` is a numbered list in markdown "
                    f"(item {number} of a list of one, shown as a list marker on screen and as "
                    f"`<ol>` in Anki), not the number {number}: write `{number} —` or "
                    f"`{number} steps.`, or escape the mark as `{number}\\{dot}`"
                ),
            )

"""Rich's markdown of a text, parsed once per text and drawn once per width.

Textual draws a Static's renderable once to measure its height and again to show it, and
again when a scrollbar takes a column; a note's fourteen sections cost ~80 ms a drawing
here, and their parse ~45 ms. A `DrawnMarkdown` keeps its parse (which the start-up
warm-up does off the UI thread, `prepared_markdown`) and the segments of its last few
drawings.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown
from rich.segment import Segment

TEXTS_KEPT = 64
"""Parsed texts kept (the sections of a few notes)."""
DRAWINGS_KEPT = 2
"""Drawings kept per text: the width it is shown at, and the one before a resize. A section's
drawing is some 75 KiB of segments (the bundled note's, at 100 columns): all of them together
stay under ~10 MB."""


class DrawnMarkdown:
    """A markdown renderable that draws each set of console options once."""

    def __init__(self, text: str) -> None:
        self.markdown = Markdown(text, hyperlinks=False)
        self._drawn: dict[Hashable, list[Segment]] = {}

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # Everything of the options that Rich's markdown reads (it sets no height itself).
        key = (
            id(console),
            options.max_width,
            options.min_width,
            options.justify,
            options.overflow,
            options.no_wrap,
            options.highlight,
            options.markup,
            options.encoding,
            options.legacy_windows,
            options.is_terminal,
        )
        drawn = self._drawn.get(key)
        if drawn is None:
            if len(self._drawn) >= DRAWINGS_KEPT:
                self._drawn.clear()
            drawn = self._drawn[key] = list(console.render(self.markdown, options))
        yield from drawn


@lru_cache(maxsize=TEXTS_KEPT)
def prepared_markdown(text: str) -> DrawnMarkdown:
    """The one `DrawnMarkdown` of `text` (thread-safe: the warm-up parses in a worker)."""
    return DrawnMarkdown(text)

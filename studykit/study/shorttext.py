"""A card's text on one plain line, for lists: the browser, `studykit cards`, quiz misses."""

from __future__ import annotations

import re

from studykit.content.citations import render_citations
from studykit.content.model import Note
from studykit.text.mathscan import split_code_fences, split_maths
from studykit.text.unicodemath import latex_to_unicode

# In prose: a markdown escape (`\$` reads `$`) or a code span (its text kept as written).
_ESCAPE_OR_CODE = re.compile(r"\\([!-/:-@\[-`{-~])|(`+)(.+?)(?<!`)\2(?!`)", re.DOTALL)
_FENCE_LINE = re.compile(r"^[ \t>]*(?:`{3,}|~{3,}).*$", re.MULTILINE)


def _plain_prose(prose: str) -> str:
    """Prose without maths as plain text: escapes as their character, code spans as written."""
    parts: list[str] = []
    at = 0
    for match in _ESCAPE_OR_CODE.finditer(prose):
        parts += [prose[at : match.start()].replace("**", ""), match.group(1) or match.group(3)]
        at = match.end()
    parts.append(prose[at:].replace("**", ""))
    return "".join(parts)


def short_text(source: str, limit: int = 90, *, note: Note | None = None) -> str:
    """Card text on one plain line: citations filled in, maths as Unicode, no markdown marks.

    Maths is what the renderers take for maths (the shared scanner): `\\$5` and `$` in
    code stay dollars.
    """
    parts: list[str] = []
    for code, run in split_code_fences(render_citations(source, note)):
        if code:
            parts.append(_FENCE_LINE.sub("", run))
            continue
        for piece in split_maths(run):
            parts.append(
                _plain_prose(piece) if isinstance(piece, str) else latex_to_unicode(piece.tex)
            )
    text = " ".join("".join(parts).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"

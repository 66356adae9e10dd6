"""Find the maths in markdown: fenced code runs, then `$…$` and `$$…$$` in the prose between.

One scanner serves both renderers (the terminal's Unicode and Anki's MathJax), so the two
always agree on where maths starts and ends.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

# Container markers at the start of a line: indentation, `>` quotes, list bullets and numbers.
_PREFIX = re.compile(r"(?:[ \t]*(?:>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t])))*[ \t]*")
_FENCE = re.compile(r"(`{3,}|~{3,})(.*)")
_SPECIAL = re.compile(r"[\\`$]")
_TICKS = re.compile(r"`+")
# What can end maths: an escape (skipped), `$`, and for inline maths a code span or a
# paragraph break (which mean it never closes).
_DISPLAY_STOP = re.compile(r"\\.|\$\$", re.DOTALL)
_INLINE_STOP = re.compile(r"\\.|`|\n[ \t>]*\n|\$", re.DOTALL)
# For prose with no backtick and no `$$` (most prose), one pattern finds what the scanner
# below would: an escape (text), or inline maths: a `$` before a character that is neither
# space nor `$`, then escapes, newlines that break no paragraph and any other character, up
# to the first `$` that hugs the maths and is not before a digit.
_ESCAPE_OR_INLINE = re.compile(
    r"\\[\s\S]|\$(?=[^\s$])((?:\\[\s\S]|[^\\$\n]|\n(?![ \t>]*\n)|\$)*?)(?<![ \t\n$])\$(?!\d)"
)


class Maths(NamedTuple):  # a tuple: made for every formula of every field, cheaply
    """Maths found in prose: its TeX, whether it is `$$` display, and where it ends."""

    tex: str
    display: bool
    end: int  # index in the prose just past the closing `$` or `$$`


def prefix_end(text: str, start: int) -> int:
    """End of the container markers (indent, `>`, list bullet) of the line at `start`."""
    match = _PREFIX.match(text, start)
    return match.end() if match else start


def split_code_fences(md: str) -> list[tuple[bool, str]]:
    """Split markdown into (is_fenced_code, text) runs of whole lines."""
    if "```" not in md and "~~~" not in md:  # no fence can open: one run (most fields)
        return [(False, md)] if md else []
    runs: list[tuple[bool, str]] = []
    current: list[str] = []
    fence = ""
    for line in md.splitlines(keepends=True):
        match = _FENCE.fullmatch(line.rstrip("\r\n"), prefix_end(line, 0))
        if fence:
            current.append(line)
            closing = match and not match.group(2).strip() and match.group(1)[0] == fence[0]
            if closing and match and len(match.group(1)) >= len(fence):
                runs.append((True, "".join(current)))
                current, fence = [], ""
        elif match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
            runs.append((False, "".join(current)))
            current, fence = [line], match.group(1)
        else:
            current.append(line)
    runs.append((bool(fence), "".join(current)))
    return [run for run in runs if run[1]]


def closing(text: str, start: int, display: bool) -> int:
    """Index of the `$`/`$$` that closes maths opened just before `start`, or -1."""
    pattern = _DISPLAY_STOP if display else _INLINE_STOP
    for match in pattern.finditer(text, start):
        token = match.group()
        if token.startswith("\\"):
            continue
        if display:
            return match.start()
        if token != "$":
            return -1
        k = match.start()
        # A closing `$` hugs the maths and is not followed by a digit, so "$5 and $10" stays
        # text, as in pandoc.
        after = text[k + 1 : k + 2]
        if k > start and text[k - 1] not in " \t\n$" and not (after.isdigit() or after == "$"):
            return k
    return -1


def _needs_scanner(prose: str) -> bool:
    """Whether `prose` has what `_ESCAPE_OR_INLINE` cannot read: a code span or `$$`."""
    return "`" in prose or "$$" in prose


def split_maths(prose: str) -> list[str | Maths]:
    """Split prose (no fenced code) into text and maths; `\\` escapes and code spans are text."""
    if _needs_scanner(prose):
        return scan_maths(prose)
    pieces: list[str | Maths] = []
    at = 0
    for match in _ESCAPE_OR_INLINE.finditer(prose):
        tex = match.group(1)
        if tex is not None:
            if match.start() > at:
                pieces.append(prose[at : match.start()])
            pieces.append(Maths(tex, False, match.end()))
            at = match.end()
    if at < len(prose):
        pieces.append(prose[at:])
    return pieces


def replace_maths(prose: str, replace: Callable[[Maths], str]) -> str:
    """`prose` with each of its maths (as `split_maths` finds it) replaced by `replace(maths)`."""
    if _needs_scanner(prose):
        pieces = scan_maths(prose)
        return "".join(piece if isinstance(piece, str) else replace(piece) for piece in pieces)

    def one(match: re.Match[str]) -> str:
        tex = match.group(1)
        return match.group() if tex is None else replace(Maths(tex, False, match.end()))

    return _ESCAPE_OR_INLINE.sub(one, prose)


def replace_tex(prose: str, replace: Callable[[str, bool], str]) -> str:
    """As `replace_maths`, `replace` given each one's TeX and whether it is display maths
    (an export calls it for every field: most prose takes one pattern and makes no Maths)."""
    if _needs_scanner(prose):
        return "".join(
            piece if isinstance(piece, str) else replace(piece.tex, piece.display)
            for piece in scan_maths(prose)
        )

    def one(match: re.Match[str]) -> str:
        tex = match.group(1)
        return match.group() if tex is None else replace(tex, False)

    return _ESCAPE_OR_INLINE.sub(one, prose)


def scan_maths(prose: str) -> list[str | Maths]:
    """`split_maths` for any prose, code spans and display maths included."""
    pieces: list[str | Maths] = []
    text: list[str] = []  # text since the last maths
    i = 0
    while (special := _SPECIAL.search(prose, i)) is not None:
        text.append(prose[i : special.start()])
        i = special.start()
        if prose[i] == "\\":
            text.append(prose[i : i + 2])
            i += 2
        elif prose[i] == "`":
            ticks = _TICKS.match(prose, i)
            run = ticks.group() if ticks else "`"
            close = re.compile(rf"(?<!`){run}(?!`)").search(prose, i + len(run))
            end = close.end() if close else i + len(run)
            text.append(prose[i:end])
            i = end
        elif prose.startswith("$$", i) and (k := closing(prose, i + 2, True)) >= 0:
            pieces += ["".join(text), Maths(prose[i + 2 : k], True, k + 2)]
            text, i = [], k + 2
        elif (
            prose[i + 1 : i + 2].strip()
            and prose[i + 1] != "$"
            and (k := closing(prose, i + 1, False)) >= 0
        ):
            pieces += ["".join(text), Maths(prose[i + 1 : k], False, k + 1)]
            text, i = [], k + 1
        else:  # a `$` that opens no maths
            text.append("$")
            i += 1
    text.append(prose[i:])
    pieces.append("".join(text))
    return [piece for piece in pieces if piece != ""]


def placed_pieces(markdown: str) -> Iterator[tuple[int, int, str | Maths]]:
    """(start, end, piece) of each prose run and maths outside fenced code, by offsets in
    `markdown` (a maths piece's span takes in its `$` or `$$` fences)."""
    at = 0
    for code, run in split_code_fences(markdown):
        if not code:
            offset = at
            for piece in split_maths(run):
                end = at + piece.end if isinstance(piece, Maths) else offset + len(piece)
                yield offset, end, piece
                offset = end
        at += len(run)

"""Text from content made safe to print on a terminal: controls escaped, long names shortened."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence

# C0 and C1 controls, DEL, and the invisible bidi and line-separator characters that can
# reorder or hide what a terminal shows (the "Trojan Source" set); and lone surrogates (a
# file name that is not UTF-8), which no terminal encoding can write.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
NAME_LIMIT = 60
"""A quoted name in a message longer than this is cut (ids are at most 80; raw input may not be)."""
LINE_LIMIT = 1000
"""No error line is longer than this."""
_LONG_QUOTED = re.compile(f"`([^`\\s]{{{NAME_LIMIT + 1},}})`")  # a quoted name has no spaces


def _escaped(char: str) -> str:
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}")


def terminal_safe(text: str, *, multiline: bool = False) -> str:
    """`text` with control, escape and bidi characters shown escaped (`\\x1b`, `\\u202e`).

    With `multiline`, line breaks and tabs are kept as they are (card and note text).
    """

    def replace(match: re.Match[str]) -> str:
        char = match.group()
        return char if multiline and char in "\n\t" else _escaped(char)

    return _UNSAFE.sub(replace, text)


def json_text(document: object) -> str:
    """`document` as indented JSON for a terminal or a program: the same value, non-ASCII text
    kept readable, and every character `terminal_safe` escapes written as a `\\u` escape
    (`json` itself leaves DEL, C1 and bidi characters raw)."""
    import json

    text = json.dumps(document, indent=2, ensure_ascii=False)
    # Every newline left is JSON's own layout: a newline in a string is written `\\n`.
    return _UNSAFE.sub(
        lambda m: m.group() if m.group() == "\n" else f"\\u{ord(m.group()):04x}", text
    )


def shorten(text: str, limit: int = 40) -> str:
    """`text` cut to `limit` characters, ending in `…` when it was longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def one_line(message: str) -> str:
    """A message for one terminal line: controls escaped, long `quoted` names and the line cut."""
    safe = terminal_safe(message)
    safe = _LONG_QUOTED.sub(lambda match: f"`{shorten(match.group(1), NAME_LIMIT)}`", safe)
    return shorten(safe, LINE_LIMIT)


def table_lines(
    headers: Sequence[str], rows: Iterable[Sequence[object]], *, right: Collection[int] = ()
) -> list[str]:
    """Rows as aligned text columns, cells made terminal-safe; columns in `right` right-aligned."""
    cells = [tuple(headers), *(tuple(terminal_safe(str(cell)) for cell in row) for row in rows)]
    widths = [max(len(line[i]) for line in cells) for i in range(len(headers))]
    return [
        "  ".join(
            f"{cell:>{widths[i]}}" if i in right else f"{cell:<{widths[i]}}"
            for i, cell in enumerate(line)
        ).rstrip()
        for line in cells
    ]

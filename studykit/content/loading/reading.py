"""Reading a file's bytes within the limits, and wording the YAML parser's syntax errors."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from studykit.content.loading.positions import LINE_BREAK, position
from studykit.content.loading.problems import LoadProblem
from studykit.core.files import FileRefused, FileTooLarge, read_regular

# Characters YAML refuses anywhere in a stream (its "printable" set, inverted).
_NOT_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)


def read(path: Path, rel: str) -> bytes | LoadProblem:
    """The file's UTF-8 bytes without a BOM, or the problem that stops it being read."""
    try:
        data = read_regular(path)
    except FileTooLarge as refused:
        return LoadProblem(rel, 1, 1, str(refused), "split it into smaller notes or decks")
    except FileRefused as refused:
        return LoadProblem(rel, 1, 1, str(refused), refused.hint)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = data[: error.start].decode("utf-8", errors="replace")
        line, column = position(before, len(before))
        utf16 = data.startswith((b"\xff\xfe", b"\xfe\xff"))
        return LoadProblem(
            rel,
            line,
            column,
            f"the file is not valid UTF-8 (byte 0x{data[error.start]:02x})",
            "it looks like UTF-16; save it as UTF-8"
            if utf16
            else "save the file as UTF-8 (your editor's encoding setting)",
        )
    return data


_SYNTAX_HINTS: tuple[tuple[str, str], ...] = (
    ("tab", "YAML indents with spaces; replace the tab with spaces"),
    (
        "mapping values are not allowed",
        'text that contains ": " must be in quotes, e.g. front: "ratio: 2"',
    ),
    (
        "unknown escape",
        "inside double quotes a backslash starts an escape; for LaTeX use single quotes "
        "or a `|` block, or write each backslash twice",
    ),
    ("undefined alias", "define the anchor (`&name`) before the alias (`*name`) that uses it"),
    ("single document", "keep one YAML document per file (remove the extra `---`)"),
    ("end of stream", "a quote or bracket opened here is never closed"),
    ("nesting depth", "nest fewer levels deep"),
    ("expected ',' or", "close the bracket, or put text with commas in quotes"),
    ("expected key", "check this line's indentation against the lines above it"),
    ("expected '-'", "check this line's indentation against the lines above it"),
    ("document start", "check this line's indentation; the first key starts in column 1"),
)


def syntax_problem(error: yaml.YAMLError, text: str, rel: str) -> LoadProblem:
    bad = _NOT_PRINTABLE.search(text) if isinstance(error, yaml.reader.ReaderError) else None
    if bad is not None:
        line, column = position(text, bad.start())
        return LoadProblem(
            rel,
            line,
            column,
            f"YAML does not allow the control character U+{ord(bad.group()):04X}",
            "delete it (it is invisible in most editors)",
        )
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    problem = getattr(error, "problem", None) or str(error)
    context = getattr(error, "context", None)
    context_mark = getattr(error, "context_mark", None)
    if context and problem.startswith("but "):  # the composer's "expected X, but found Y"
        message = f"YAML syntax error: {context}, {problem}"
    else:
        message = f"YAML syntax error: {problem}"
        if context and context_mark is not None and context_mark.line + 1 != line:
            message += f" ({context} that starts on line {context_mark.line + 1})"
    lines = LINE_BREAK.split(text)
    here = lines[line - 1][column - 1 : column] if line <= len(lines) else ""
    hint = None
    if here == "\t":
        hint = _SYNTAX_HINTS[0][1]
    elif here in ("@", "`"):
        hint = f"a value cannot start with `{here}`; put it in quotes"
    else:
        hint = next((h for key, h in _SYNTAX_HINTS if key in message), None)
    return LoadProblem(rel, line, column, message, hint)

"""Markdown with `$…$` maths to markdown for the terminal: maths as Unicode, code untouched."""

from __future__ import annotations

import re

from studykit.core.terminal import terminal_safe
from studykit.text.htmlrule import html_for_terminal
from studykit.text.mathscan import prefix_end, split_code_fences, split_maths
from studykit.text.symbols import SUBSCRIPTS
from studykit.text.unicodemath import latex_to_unicode, superscript

_ENDS_PARAGRAPH = re.compile(r"(?:\A|\n)[ \t>]*\n\Z")
_TRAILING_PUNCTUATION = re.compile(r"[ \t]*([.,;:]*)[ \t]*\n?")
# CommonMark lets any ASCII punctuation be backslash-escaped, and an escaped character is
# always literal; escaping them all is simpler and safer than guessing which would matter.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def _md_escape(text: str) -> str:
    return _PUNCTUATION.sub(r"\\\1", text)


def _display_block(before: str, tex: str, rest: str) -> tuple[str, int]:
    """Put display maths in a paragraph of its own; return the text and chars of `rest` used.

    The paragraph is a block quote: Textual's Markdown widget draws a quote with a bar and a
    tinted background, which sets a formula apart as a centred display does on paper. An
    indented line would instead become a code block (raw text, escapes shown).
    """
    line_start = before.rfind("\n") + 1
    prefix = before[line_start : prefix_end(before, line_start)]
    if ">" in prefix:  # in a quote, every line of the maths starts with the quote markers
        tex = re.sub(r"\n[ \t>]*", "\n", tex)
    rendered = latex_to_unicode(tex)
    if not rendered:
        return before, 0
    # Inside a list item or a quote, the display stays there: markers become indentation.
    continuation = re.sub(r"[-*+]|\d+[.)]", lambda m: " " * len(m.group()), prefix)
    blank = continuation.rstrip()
    if before[line_start + len(prefix) :].strip():
        before = before.rstrip(" \t") + "\n"
    else:
        before = before[:line_start]
    if before.strip() and not _ENDS_PARAGRAPH.search(before):
        before += blank + "\n"
    tail = _TRAILING_PUNCTUATION.match(rest)
    lines = [_md_escape(line) for line in rendered.split("\n")]
    lines[-1] += _md_escape(tail.group(1)) if tail else ""
    block = "\\\n".join(f"{continuation}> {line}" for line in lines)  # `\` + newline: hard break
    used = tail.end() if tail else 0
    # The rest of the line (if any) is a new paragraph in the same container.
    after = "" if rest[:used].endswith("\n") or used == len(rest) else continuation
    return f"{before}{block}\n{blank}\n{after}", used


def _prose_subscript(text: str) -> str:
    """`<sub>…</sub>` in prose: Unicode where every character has one, else `_(…)`."""
    if text and all(ch in SUBSCRIPTS for ch in text):
        return "".join(SUBSCRIPTS[ch] for ch in text)
    return f"_({text})"


def _convert_prose(text: str) -> str:
    done = ""  # converted text so far (display maths rewrites its tail)
    out: list[str] = []
    skip = 0  # characters after display maths that its block took in
    for piece in split_maths(text):
        if isinstance(piece, str):
            out.append(html_for_terminal(piece[skip:], _prose_subscript, superscript))
            skip = 0
        elif piece.display:
            done, skip = _display_block(done + "".join(out), piece.tex, text[piece.end :])
            out = []
        else:
            out.append(_md_escape(latex_to_unicode(piece.tex).replace("\n", " ")))
    return done + "".join(out)


def markdown_to_terminal(md: str) -> str:
    """Replace `$...$` and `$$...$$` maths in markdown with Unicode, leaving code untouched.

    Inline HTML follows `htmlrule` (allowed tags as what they mean, the rest as text).

    Control characters (a terminal escape written as `\\e` in YAML) are shown escaped.
    """
    converted = (text if code else _convert_prose(text) for code, text in split_code_fences(md))
    return terminal_safe("".join(converted), multiline=True)

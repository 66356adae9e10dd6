"""LaTeX maths -> tokens, for the equation parser (`texparse`); sizing and spacing dropped."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

# Longest maths span the equation checker reads, and most tokens in one span.
MAX_TEX_LENGTH: Final = 1_000
MAX_TOKENS: Final = 400

_TOKEN: Final = re.compile(
    r"""
    (?P<space>\s+)
    | (?P<text>\\(?:text|textrm|textit)\s*\{(?P<body>[^{}]*)\})
    | (?P<styled>\\(?:mathrm|operatorname|mathit|mathbf|mathbb|mathcal|boldsymbol)\s*\{[^{}]*\})
    | (?P<number>\d+(?:\{,\}\d{3})*(?:\.\d+)?)
    | (?P<command>\\[A-Za-z]+|\\.)
    | (?P<letter>[A-Za-z])
    | (?P<punct>[-+*/^_()\[\]{}|=<>'!,;.:])
    """,
    re.VERBOSE | re.DOTALL,
)
# Commands that only size or space things out; `\left.` and `\right.` vanish with their dot.
_DROPPED: Final = frozenset(
    {
        *(r"\left", r"\right", r"\big", r"\Big", r"\bigg", r"\Bigg"),
        *(r"\bigl", r"\bigr", r"\Bigl", r"\Bigr", r"\biggl", r"\biggr"),
        *(r"\,", r"\;", r"\:", r"\!", r"\ ", r"\displaystyle", r"\textstyle"),
    }
)
_SIZERS: Final = frozenset({r"\left", r"\right", r"\bigl", r"\bigr", r"\Bigl", r"\Bigr"})


class TexError(Exception):
    """A span the equation parser cannot read; the message says why (shown as the skip reason)."""


@dataclass(frozen=True, slots=True)
class Token:
    """One token: its kind (number, command, letter, punct, text), text, and source span."""

    kind: str
    text: str
    start: int
    end: int


def tokenize(tex: str) -> list[Token]:
    """The tokens of `tex`; TexError when it is too long or holds a character we do not read."""
    if len(tex) > MAX_TEX_LENGTH:
        raise TexError(f"too long to check ({len(tex)} characters; at most {MAX_TEX_LENGTH})")
    tokens: list[Token] = []
    i = 0
    previous = ""
    while i < len(tex):
        match = _TOKEN.match(tex, i)
        if match is None:
            raise TexError(f"cannot read `{tex[i : i + 10]}`")
        kind = match.lastgroup or ""
        text = match.group()
        i = match.end()
        if kind == "space":
            continue
        if kind == "text":
            kind, text = "text", match.group("body")
        elif kind == "styled":
            kind, text = "command", re.sub(r"\s+", "", text)
        elif kind == "number":
            text = text.replace("{,}", "")
        if kind == "command" and text in _DROPPED:
            previous = text
            continue
        if text == "." and previous in _SIZERS:  # `\left.` / `\right.`: no delimiter
            previous = ""
            continue
        previous = text
        tokens.append(Token(kind, text, match.start(), match.end()))
        if len(tokens) > MAX_TOKENS:
            raise TexError(f"too long to check (more than {MAX_TOKENS} tokens)")
    return tokens

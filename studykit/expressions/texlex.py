"""LaTeX maths -> tokens, for the equation parser (`texparse`); sizing and spacing dropped.

Built on TeX's own tokens (`studykit.text.texread`), which the maths renderer reads as well.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import Final

from studykit.text.texread import is_command, tex_tokens

# Longest maths span the equation checker reads, and most tokens in one span.
MAX_TEX_LENGTH: Final = 1_000
MAX_TOKENS: Final = 400

# Read as one token from where their first TeX token starts: `\text{…}` (its body is the
# token's text), a styled name (`\mathrm{seq}`), a number with `{,}` thousands groups.
_TEXT: Final = re.compile(r"\\(?:text|textrm|textit)\s*\{(?P<body>[^{}]*)\}")
_STYLED: Final = re.compile(
    r"\\(?:mathrm|operatorname|mathit|mathbf|mathbb|mathcal|boldsymbol)\s*\{[^{}]*\}"
)
_NUMBER: Final = re.compile(r"\d+(?:\{,\}\d{3})*(?:\.\d+)?")
_TEXT_COMMANDS: Final = frozenset({r"\text", r"\textrm", r"\textit"})
_STYLE_COMMANDS: Final = frozenset(
    {r"\mathrm", r"\operatorname", r"\mathit", r"\mathbf", r"\mathbb", r"\mathcal"}
    | {r"\boldsymbol"}
)
# A TeX token that is a whole token of ours by itself.
_ONE_CHARACTER: Final = dict.fromkeys(string.ascii_letters, "letter") | dict.fromkeys(
    "-+*/^_()[]{}|=<>'!,;.:", "punct"
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
    pieces = tex_tokens(tex)
    tokens: list[Token] = []
    previous = ""
    end = k = 0
    while k < len(pieces):
        start = end
        kind = _ONE_CHARACTER.get(text := pieces[k], "")
        if kind:
            end += 1
            k += 1
        elif text.isspace():
            end += len(text)
            k += 1
            continue
        else:
            kind, text, end = _token(tex, text, start)
            covered = start
            while covered < end:  # the TeX tokens it takes in (they tile the source)
                covered += len(pieces[k])
                k += 1
        if kind == "command" and text in _DROPPED:
            previous = text
            continue
        if text == "." and previous in _SIZERS:  # `\left.` / `\right.`: no delimiter
            previous = ""
            continue
        previous = text
        tokens.append(Token(kind, text, start, end))
        if len(tokens) > MAX_TOKENS:
            raise TexError(f"too long to check (more than {MAX_TOKENS} tokens)")
    return tokens


def _token(tex: str, piece: str, start: int) -> tuple[str, str, int]:
    """(kind, text, end) of the token that begins with `piece` at `start` (not a space, not one
    character): a command, `\\text{…}`, a styled name or a number."""
    if is_command(piece):
        if piece in _TEXT_COMMANDS and (match := _TEXT.match(tex, start)):
            return "text", match.group("body"), match.end()
        if piece in _STYLE_COMMANDS and (match := _STYLED.match(tex, start)):
            return "command", re.sub(r"\s+", "", match.group()), match.end()
        return "command", piece, start + len(piece)
    if match := _NUMBER.match(tex, start):
        return "number", match.group().replace("{,}", ""), match.end()
    raise TexError(f"cannot read `{tex[start : start + 10]}`")

"""Numbers written bare in a text: each must be cited, checked as maths, or a declared label.

A number in prose cannot be checked: `512 tokens` on a card's back can disagree with `500`
on its front, with the note, or with the source, and nothing notices. So every number a
text shows comes from somewhere `check` sees: a `{fact:ID}` the note declares once with
its source, a `{claim:ID}` or `{measured:ID}`, or maths in a relation (`$T = 512$`), which
the equation checks compare with the note's definitions. What is left is reported at its
line. Numbers that are part of a name (`fp32`, `GPT-3`, `x86_64`, `Q3`), list markers,
code, links and the number after a declared label word (`Limitation 3`) are not quantities.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from studykit.text.mathscan import placed_pieces

# Possessive: `2.68e-7` is one number, never `2` before a `.` (and `e-7` is its exponent).
_NUMBER: Final = re.compile(r"(?<![\w.,])\d++(?:[.,]\d++)*+(?:[eE][-+]?\d++)?+(?:\s?%)?(?!\w)")
_NOT_QUANTITIES: Final = re.compile(
    r"`+[^`]*?`+"  # code spans
    r"|\{[A-Za-z_]\w*(?::[^{}\s:]*)?\}"  # citations and a computed card's `{param}`
    r"|\]\([^)\s]*\)"  # link and image targets
    r"|<?https?://[^\s>)]+>?"  # addresses
    r"|&#?\w+;"  # HTML entities
    r"|(?m:^[ \t>]*(?:[-*+][ \t]+)?\d{1,9}[.)](?=[ \t]|$))"  # ordered list markers
)
_LONE_NUMBER: Final = re.compile(r"\s*-?\d+(?:(?:\.|\{,\}|,)\d+)*\s*(?:\\%)?\s*")


@dataclass(frozen=True, slots=True)
class BareNumber:
    """A number a text shows that nothing checks, and where it starts in the text."""

    index: int
    number: str
    in_maths: bool  # a number alone in `$…$`: maths, but no relation to check

    def message(self, field: str) -> str:
        """What is wrong and how to write it, for the report."""
        shown = (
            f"`${self.number}$`, a number alone in maths,"
            if self.in_maths
            else (f"`{self.number}` in plain text,")
        )
        return (
            f"the {field} shows {shown} which nothing checks: cite it as `{{fact:ID}}` (declared "
            "once under the note's `facts:` with its source), `{claim:ID}` or `{measured:ID}`; "
            "or state it in maths in a relation; or, if it names a thing (`Limitation 3`), "
            "list the word under `labels:`"
        )


def _masked(prose: str, labels: Iterable[str]) -> str:
    """`prose` with what holds no quantity blanked out (same length, so offsets hold)."""
    blank = _NOT_QUANTITIES.sub(lambda m: " " * len(m.group()), prose)
    words = sorted({word.strip() for word in labels if word.strip()}, key=len, reverse=True)
    if words:
        named = "|".join(re.escape(word) for word in words)
        label = re.compile(rf"(?i)(?<!\w)(?:{named})(?:s|es)?[ \t]+(\d+)(?!\w)")
        chars = list(blank)
        for match in label.finditer(blank):
            chars[match.start(1) : match.end(1)] = " " * (match.end(1) - match.start(1))
        blank = "".join(chars)
    return blank


def _in_prose(prose: str, offset: int, labels: Iterable[str]) -> Iterator[BareNumber]:
    masked = _masked(prose, labels)
    for match in _NUMBER.finditer(masked):
        start = match.start()
        if start >= 2 and masked[start - 1] == "-" and masked[start - 2].isalpha():
            continue  # in a name: `GPT-3`, `Llama-2`
        yield BareNumber(offset + match.start(), match.group().strip(), in_maths=False)


def bare_numbers(text: str, labels: Iterable[str] = ()) -> list[BareNumber]:
    """Each number `text` shows that is not cited, not in a relation, and not a label."""
    if not any(char.isdigit() for char in text):
        return []
    labels = tuple(labels)
    found: list[BareNumber] = []
    for start, _, piece in placed_pieces(text):
        if isinstance(piece, str):
            found += _in_prose(piece, start, labels)
        elif _LONE_NUMBER.fullmatch(piece.tex):
            number = piece.tex.strip().replace("{,}", ",").replace("\\%", "%")
            found.append(BareNumber(start, number, in_maths=True))
    return found

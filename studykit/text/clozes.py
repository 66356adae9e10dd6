"""Cloze deletions `{{cN::text::hint}}`: the pattern, and the numbers Anki gives a card each."""

from __future__ import annotations

import re

CLOZE_PATTERN = re.compile(r"\{\{c(\d+)::(.+?)(?:::(.+?))?\}\}", re.DOTALL)
LAST_CLOZE_NUMBER = 500
"""Anki gives `{{c1::` to `{{c500::` a card each; `{{c0::` none, and c501 up share c500's."""


def cloze_number_problem(text: str, field: str | None = None) -> str | None:
    """What is wrong with a deletion number Anki would make no card of (c0) or merge (c501+).

    With `field`, the message names it (so that a deck's problem points at that field).
    """
    for match in CLOZE_PATTERN.finditer(text):
        digits = match.group(1).lstrip("0")
        if not digits or len(digits) > 3 or int(digits) > LAST_CLOZE_NUMBER:
            shown = match.group(1) if len(match.group(1)) <= 8 else match.group(1)[:8] + "…"
            where = f" in `{field}`" if field else ""
            return (
                f"cloze number c{shown}{where} is out of range: number deletions from c1 to "
                f"c{LAST_CLOZE_NUMBER} (Anki makes one card per number)"
            )
    return None


_CLOZE_TOKEN = re.compile(r"\{\{c([0-9]+)::|\}\}")
_LARGEST_CLOZE = 65535
"""Anki reads `{{cN::` with a larger N as text."""


def cloze_numbers(text: str) -> list[int]:
    """The deletion numbers Anki makes a card of in `text`, sorted; nested deletions count.

    As Anki's card generation reads a cloze field: a deletion counts when it and every
    deletion around it are closed; `{{c0::` gives no card, and `{{c500::` and above all give
    the 500th (so they count as 500).
    """
    if "{{c" not in text:
        return []
    found: set[int] = set()
    open_: list[list[int]] = []  # each open deletion: its number and those closed inside it
    for match in _CLOZE_TOKEN.finditer(text):
        number = match.group(1)
        if number is None:
            if open_:
                closed = open_.pop()
                if open_:
                    open_[-1] += closed
                else:
                    found.update(closed)
        elif int(number) <= _LARGEST_CLOZE:
            open_.append([int(number)])
    return sorted({min(n, LAST_CLOZE_NUMBER) for n in found if n > 0})

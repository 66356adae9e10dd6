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

"""A card's ordinals: the schedules it has, one per card Anki would make of it.

A schedule belongs to (deck id, card id, ordinal), and ordinal n is Anki's card ord n - 1:
a basic or computed card has ordinal 1; a reversed card 1 (front to back) and 2 (back to
front); a cloze card one ordinal per deletion number, `{{c2::` being ordinal 2, with Anki's
reading of nested and unclosed deletions (`cloze_numbers`). The queue, the export and the
importers all ask here, so that one studykit schedule is one Anki card.

No pydantic here: the first screen's outlines are built from the cache's JSON with this.
"""

from __future__ import annotations

from studykit.text.clozes import cloze_numbers

__all__ = ["MAX_ORDINAL", "card_ordinals", "ordinal_label", "parse_ordinal"]

MAX_ORDINAL = 500
"""The largest ordinal a card can have (a cloze's `{{c500::`)."""

_SINGLE = (1,)
_BOTH_WAYS = (1, 2)


def card_ordinals(kind: str, front: str) -> tuple[int, ...]:
    """The ordinals of a card of `kind` whose front is `front`, ascending."""
    if kind == "reversed":
        return _BOTH_WAYS
    if kind == "cloze":
        # As Anki gives every note at least one card, a cloze without a deletion it can
        # read (the loader refuses those) keeps ordinal 1.
        return tuple(cloze_numbers(front)) or _SINGLE
    return _SINGLE


def ordinal_label(kind: str, ordinal: int) -> str:
    """How a schedule's ordinal reads beside its card: `c2`, `back → front`, or ``."""
    if kind == "cloze":
        return f"c{ordinal}"
    if kind == "reversed":
        return "back → front" if ordinal == 2 else "front → back"
    return "" if ordinal == 1 else f"#{ordinal}"


def parse_ordinal(text: str) -> int | None:
    """`2` as an ordinal; None for anything that is not a whole number 1..MAX_ORDINAL."""
    if not text.isascii() or not text.isdigit() or len(text) > 3:
        return None
    value = int(text)
    return value if 1 <= value <= MAX_ORDINAL else None

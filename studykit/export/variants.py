"""Baked variants of computed cards, drawn by `studykit.quiz` with stable per-card seeds."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from studykit.content.model import Card, Deck, Tolerance
from studykit.core.errors import StudykitError
from studykit.export.computed import TypeInVariant, symbolic_accepted, typein_check
from studykit.export.plan import VariantSource

# Draws repeat values (few choices); this many tries per wanted variant find distinct ones.
_ATTEMPTS = 8


def variant_seed(deck_id: str, card_id: str, index: int) -> int:
    """The seed of a card's `index`-th exported variant: the same in every export."""
    digest = hashlib.sha256(f"studykit-variant:{deck_id}/{card_id}/{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 2**31


def _typed(card: Card, answer_text: str, values: dict[str, float]) -> str:
    """What to type: a numeric answer's value; a symbolic one with the values put in."""
    from studykit.quiz import format_number

    for name, value in values.items():
        answer_text = re.sub(rf"\b{re.escape(name)}\b", format_number(value), answer_text)
    return answer_text


def _tolerance(card: Card) -> Tolerance:
    from studykit.quiz import DEFAULT_TOLERANCE

    return card.tolerance or DEFAULT_TOLERANCE


def baked_variants(deck: Deck, card: Card, count: int) -> Sequence[TypeInVariant] | None:
    """Up to `count` distinct variants with their answers; None if none can be drawn."""
    from studykit.quiz import draw_variant, format_number
    from studykit.quiz.grading import describe_tolerance

    baked: list[TypeInVariant] = []
    seen: set[tuple[tuple[str, float], ...]] = set()
    for index in range(count * _ATTEMPTS):
        if len(baked) == count:
            break
        seed = variant_seed(deck.id, card.id, index)
        try:
            variant = draw_variant(card, seed)
            key = tuple(sorted(variant.values.items()))
            if key in seen:
                continue
            if card.kind == "numeric":
                expected = variant.expected()
                typed = format_number(expected)
                check = typein_check("numeric", value=expected, tolerance=_tolerance(card))
            else:
                typed = _typed(card, card.answer or "", dict(variant.values))
                check = typein_check("symbolic", forms=[typed])
            steps = variant.steps_latex()
            back = variant.back()
        except StudykitError:
            continue  # a draw without an answer (e.g. outside the formula's domain): skip it
        seen.add(key)
        text = f"$${steps}$$"
        if card.kind == "numeric":  # the template's script checks this; say it for the reader
            text += f"\n\nAccepted: {describe_tolerance(_tolerance(card))}."
        else:
            defines = _typed(card, card.defines, dict(variant.values)) if card.defines else None
            text += "\n\n" + symbolic_accepted([typed], defines)
        text += f"\n\n{back}" if back and back.strip() else ""
        baked.append(
            TypeInVariant(
                seed=seed,
                front=variant.front(),
                answer=typed,
                back=text,
                values=tuple(variant.values.items()),
                check=check,
            )
        )
    return baked or None


def variant_source() -> VariantSource:
    """The function `plan_export` calls for a computed card's variants."""
    return baked_variants

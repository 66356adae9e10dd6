"""Choosing a quiz's questions: a seeded mix of computed and ordinary cards."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from studykit.defaults import QUIZ_QUESTIONS
from studykit.model import COMPUTED_KINDS

if TYPE_CHECKING:
    from studykit.session import StudyCard, StudySession


def pick_questions(
    session: StudySession,
    deck_ids: Sequence[str] | None = None,
    *,
    count: int = QUIZ_QUESTIONS,
    seed: int | None = None,
) -> list[StudyCard]:
    """Up to `count` unsuspended cards, about half computed where the decks have them."""
    library = session.library
    decks = [library.decks[d] for d in deck_ids] if deck_ids is not None else library.decks.values()
    cards = [session.study_card(deck.id, card.id) for deck in decks for card in deck.cards]
    cards = [card for card in cards if not card.suspended]
    rng = random.Random(seed)
    computed = [card for card in cards if card.card.kind in COMPUTED_KINDS]
    ordinary = [card for card in cards if card.card.kind not in COMPUTED_KINDS]
    rng.shuffle(computed)
    rng.shuffle(ordinary)
    take = min(len(computed), (count + 1) // 2)
    chosen = computed[:take] + ordinary[: count - take]
    chosen += computed[take : take + count - len(chosen)]
    rng.shuffle(chosen)
    return chosen


@dataclass(frozen=True)
class QuizAnswer:
    """One answered question: right or not, and what to show in the list of misses."""

    card: StudyCard
    correct: bool
    question: str
    expected: str
    given: str = ""

"""Choosing a quiz's questions: a seeded mix of computed and ordinary cards."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from studykit.content.model import COMPUTED_KINDS, Card, Note
from studykit.core.defaults import QUIZ_QUESTIONS
from studykit.study.shorttext import short_text
from studykit.text.clozes import CLOZE_PATTERN
from studykit.text.unicodemath import latex_to_unicode

if TYPE_CHECKING:
    from studykit.quiz.grading import Grade
    from studykit.quiz.variants import Variant
    from studykit.study.card import StudyCard
    from studykit.study.session import StudySession


def pick_questions(
    session: StudySession,
    deck_ids: Sequence[str] | None = None,
    *,
    count: int = QUIZ_QUESTIONS,
    seed: int | None = None,
) -> list[StudyCard]:
    """Up to `count` unsuspended cards, about half computed where the decks have them.

    A card with several ordinals (a cloze's deletions, both directions) is asked once, in
    one of its unsuspended ordinals, drawn with the rest.
    """
    library = session.library
    decks = [library.decks[d] for d in deck_ids] if deck_ids is not None else library.decks.values()
    sides = random.Random(seed)  # apart from `rng`: a quiz's picks stay what they were
    cards = []
    for deck in decks:
        for card in deck.cards:
            shown = [one for one in session.schedules(deck.id, card.id) if not one.suspended]
            if shown:
                cards.append(shown[0] if len(shown) == 1 else sides.choice(shown))
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


def _plain_question(card: Card, note: Note | None, ordinal: int = 1) -> tuple[str, str]:
    """(question, answer) of one ordinal of an ordinary card as plain text for the list of
    misses: a cloze's own deletion asked (the others filled in), a reversed card's back."""
    if card.kind == "cloze":
        question = CLOZE_PATTERN.sub(
            lambda m: "[...]" if int(m.group(1)) == ordinal else m.group(2), card.front
        )
        answer = CLOZE_PATTERN.sub(lambda m: m.group(2), card.front)
        return short_text(question, note=note), short_text(answer, note=note)
    if card.kind == "reversed" and ordinal == 2:
        return short_text(card.back or "", note=note), short_text(card.front, note=note)
    return short_text(card.front, note=note), short_text(card.back or "", note=note)


def quiz_answer(
    card: StudyCard,
    *,
    passed: bool,
    variant: Variant | None,
    graded: Grade | None,
    note: Note | None = None,
) -> QuizAnswer:
    """The record of one answer: a typed answer is right by its grade, others by `passed`."""
    if variant is None:
        question, answer = _plain_question(card.card, note, card.ordinal)
        return QuizAnswer(card, passed, question, answer)
    return QuizAnswer(
        card,
        bool(graded is not None and graded.correct),
        short_text(variant.front(), note=note),
        latex_to_unicode(variant.expected_latex()),
        latex_to_unicode(graded.given_latex) if graded is not None else "(not answered)",
    )

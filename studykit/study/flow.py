"""The study loop without a screen: what to show next, timing, variants, every action, its undo.

Review and Quiz render what these flows return. A flow is not thread-safe by itself: the app
runs every call of one flow in order, in one worker thread (`studykit.tui.flowrunner`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from studykit.content.model import COMPUTED_KINDS
from studykit.core.defaults import QUIZ_QUESTIONS
from studykit.quiz.grading import Grade
from studykit.quiz.variants import Variant, draw_variant, new_seed
from studykit.study.quiz_questions import QuizAnswer, pick_questions, quiz_answer
from studykit.study.session import Rating, StudyCard, StudySession

__all__ = [
    "Finished",
    "FlowResult",
    "Notice",
    "QuizDone",
    "QuizFlow",
    "Revealed",
    "Shown",
    "StudyFlow",
]

Clock = Callable[[], float]  # seconds, monotonic
Counts = tuple[int, int, int]  # (new, learning, due) left today


@dataclass(frozen=True)
class Shown:
    """A card to show with its answer hidden; `counts` is False when answering changes nothing."""

    card: StudyCard
    variant: Variant | None  # computed cards: the seeded variant drawn for this showing
    remaining: Counts
    counts: bool = True
    note: str = ""  # what the last action did, for a notification
    undoable: bool = False  # the note is about an action that undo takes back
    number: int = 0  # quiz: which question (1-based); 0 in review
    total: int = 0  # quiz: how many questions
    right: int = 0  # quiz: right answers so far


@dataclass(frozen=True)
class Revealed:
    """The answer of the card shown; `intervals` is empty when the rating will not count."""

    card: StudyCard
    intervals: Mapping[Rating, timedelta]


@dataclass(frozen=True)
class Finished:
    """Nothing is left to study today in scope."""

    next_due: datetime | None
    note: str = ""
    undoable: bool = False


@dataclass(frozen=True)
class QuizDone:
    """Every quiz question was answered."""

    answers: tuple[QuizAnswer, ...]


@dataclass(frozen=True)
class Notice:
    """Nothing changed on screen; tell the user why."""

    text: str


FlowResult = Shown | Revealed | Finished | QuizDone | Notice


class _CardFlow:
    """Showing one card at a time: its variant, the time it was shown, reveal, answer timing."""

    def __init__(
        self,
        session: StudySession,
        deck_ids: Sequence[str] | None,
        *,
        clock: Clock = time.monotonic,
        seeds: Callable[[], int] = new_seed,
    ) -> None:
        self.session = session
        self.deck_ids = None if deck_ids is None else tuple(deck_ids)
        self.current: StudyCard | None = None
        self.variant: Variant | None = None
        self.revealed = False
        self._clock = clock
        self._seeds = seeds
        self._shown_at = clock()

    def _scope_ids(self) -> list[str | None]:
        """The deck ids to ask the session about (None: every deck)."""
        return [None] if self.deck_ids is None else list(self.deck_ids)

    def remaining(self) -> Counts:
        """(new, learning, due) left today over the decks in scope, their limits together."""
        return self.session.scope_remaining(self.deck_ids)

    def next_due(self) -> datetime | None:
        """The earliest future due time over the decks in scope."""
        times = [t for d in self._scope_ids() if (t := self.session.next_due(d)) is not None]
        return min(times, default=None)

    def _present(self, card: StudyCard) -> Variant | None:
        """Make `card` the current one, unrevealed, with a fresh variant; start its clock."""
        variant = None
        if card.card.kind in COMPUTED_KINDS:
            variant = draw_variant(card.card, self._seeds())
        self.current, self.variant, self.revealed = card, variant, False
        self._shown_at = self._clock()
        return variant

    def _elapsed_ms(self) -> int:
        return max(0, int((self._clock() - self._shown_at) * 1000))

    def _counts(self, card: StudyCard) -> bool:
        return True

    def reveal(self) -> Revealed | None:
        """Show the answer: the intervals each rating would give (None if nothing to reveal)."""
        card = self.current
        if card is None or self.revealed:
            return None
        intervals = self.session.intervals(card) if self._counts(card) else {}
        self.revealed = True
        return Revealed(card, intervals)

    def _commit(self, card: StudyCard, rating: Rating) -> None:
        seed = self.variant.seed if self.variant is not None else None
        self.session.answer(card, rating, duration_ms=self._elapsed_ms(), variant_seed=seed)


class StudyFlow(_CardFlow):
    """A review over some decks (None: all): the due queue, rotation, undo of every action.

    The undo stack is the session's: `u` takes back the last action of any kind, made here
    or in the card browser.
    """

    def __init__(
        self,
        session: StudySession,
        deck_ids: Sequence[str] | None = None,
        *,
        clock: Clock = time.monotonic,
        seeds: Callable[[], int] = new_seed,
    ) -> None:
        super().__init__(session, deck_ids, clock=clock, seeds=seeds)
        self._last_deck: str | None = None

    def _pick(self) -> StudyCard | None:
        """The next card in scope; over several decks, start after the last card's deck."""
        if self.deck_ids is None:
            return self.session.next_card(None)
        decks = list(self.deck_ids)
        if self._last_deck in decks:
            start = decks.index(self._last_deck) + 1
            decks = decks[start:] + decks[:start]
        for deck_id in decks:
            card = self.session.next_card(deck_id, scope=self.deck_ids)
            if card is not None:
                return card
        return None

    def show(self, card: StudyCard, note: str = "", *, undoable: bool = False) -> Shown:
        """Show `card` now (e.g. one brought back by an undo)."""
        self._last_deck = card.deck.id
        variant = self._present(card)
        return Shown(card, variant, self.remaining(), note=note, undoable=undoable)

    def next(self, note: str = "", *, undoable: bool = False) -> Shown | Finished:
        """The next card, or Finished when nothing is left today."""
        card = self._pick()
        if card is None:
            self.current, self.variant, self.revealed = None, None, False
            return Finished(self.next_due(), note=note, undoable=undoable)
        return self.show(card, note, undoable=undoable)

    def rate(self, rating: Rating) -> Shown | Finished | None:
        """Commit a rating of the revealed card, then the next card (None: nothing revealed)."""
        card = self.current
        if card is None or not self.revealed:
            return None  # a key pressed twice: the second finds the next card unrevealed
        self._commit(card, Rating(rating))
        after = self.session.study_card(card.deck.id, card.card.id, card.ordinal)
        leech = after.suspended and not card.suspended
        return self.next("Leech: suspended." if leech else "", undoable=leech)

    def bury(self) -> Shown | Finished | None:
        """Hide the current card until the next rollover, then the next card."""
        card = self.current
        if card is None:
            return None
        self.session.bury(card)
        return self.next("Buried until tomorrow.", undoable=True)

    def suspend(self) -> Shown | Finished | None:
        """Hide the current card until it is unsuspended, then the next card."""
        card = self.current
        if card is None:
            return None
        self.session.suspend(card)
        return self.next("Suspended.", undoable=True)

    def undo(self) -> Shown | Notice:
        """Undo the session's last action of any kind; show its card when it can be studied."""
        done = self.session.undo_last()
        if done is None:
            return Notice("Nothing to undo.")
        card = done.card
        if done.action in _SHOWN_AGAIN and card is not None:
            label = "rating" if done.action == "rate" else done.action
            return self.show(card, f"Undone: the {label}.")
        return Notice(f"Undone: the {done.action} of {done.name}.")


# Undoing these brings back the card they moved on from; the others happen in the browser.
_SHOWN_AGAIN = frozenset({"rate", "bury", "suspend"})


class QuizFlow(_CardFlow):
    """A quiz: a fixed list of questions; by default only answers to due cards are scheduled."""

    def __init__(
        self,
        session: StudySession,
        deck_ids: Sequence[str] | None = None,
        *,
        count: int = QUIZ_QUESTIONS,
        seed: int | None = None,
        counts: bool | None = None,
        clock: Clock = time.monotonic,
        seeds: Callable[[], int] = new_seed,
    ) -> None:
        super().__init__(session, deck_ids, clock=clock, seeds=seeds)
        self.count = count
        self.seed = seed
        self.always_counts = session.settings.quiz_counts if counts is None else counts
        self.questions: list[StudyCard] = []
        self.answers: list[QuizAnswer] = []

    def _counts(self, card: StudyCard) -> bool:
        """Whether answering changes the schedule: always when set, else only if it is due."""
        return self.always_counts or self.session.is_due(card)

    def start(self) -> Shown | QuizDone:
        """Pick the questions and show the first."""
        self.questions = pick_questions(
            self.session, self.deck_ids, count=self.count, seed=self.seed
        )
        self.answers = []
        return self._ask()

    def _ask(self) -> Shown | QuizDone:
        index = len(self.answers)
        if index >= len(self.questions):
            self.current, self.variant = None, None
            return QuizDone(tuple(self.answers))
        card = self.session.study_card(*_ids(self.questions[index]))
        variant = self._present(card)
        return Shown(
            card,
            variant,
            self.remaining(),
            counts=self._counts(card),
            number=index + 1,
            total=len(self.questions),
            right=sum(answer.correct for answer in self.answers),
        )

    def rate(self, rating: Rating, graded: Grade | None = None) -> Shown | QuizDone | None:
        """Record an answer (scheduled if it counts), then the next question."""
        card = self.current
        if card is None or not self.revealed:
            return None
        rating = Rating(rating)
        if self._counts(card):
            self._commit(card, rating)
        passed = rating != Rating.Again
        note = self.session.library.note_for(card.deck)
        self.answers.append(
            quiz_answer(card, passed=passed, variant=self.variant, graded=graded, note=note)
        )
        return self._ask()


def _ids(card: StudyCard) -> tuple[str, str, int]:
    return card.deck.id, card.card.id, card.ordinal

"""What the card browser and `studykit cards` show: rows, a card's history, search facts."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from studykit.srs.records import Answer, CardState, Forget
from studykit.srs.scheduler import Rating, State
from studykit.study.search import Facts

if TYPE_CHECKING:
    from studykit.content.model import Card, Deck, Note
    from studykit.study.card import StudyCard

__all__ = [
    "BROWSE_LIMIT",
    "SORT_KEYS",
    "Browse",
    "CardDetail",
    "CardRow",
    "HistoryRow",
    "any_computed",
    "card_facts",
    "deck_facts",
    "history_rows",
    "pending_claims",
    "question_line",
    "sort_rows",
]

BROWSE_LIMIT = 500
"""Rows a browse returns at most; the rest are counted, not built (say "N more")."""


@dataclass(frozen=True)
class CardRow:
    """One card in a browse: the StudyCard and its stored scheduling numbers."""

    card: StudyCard
    due: datetime | None
    interval: timedelta | None  # from the last review to the due time
    stability: float | None
    difficulty: float | None
    reps: int
    buried: bool
    is_due: bool
    note: Note | None = None
    """The note the card's deck cites: its `{fact:…}` and `{claim:…}` are filled in from it."""

    @property
    def name(self) -> str:
        """`deck/card` (`deck/card#2` for one of several ordinals): what the command line takes."""
        return self.card.name

    @property
    def flags(self) -> str:
        """`suspended, leech, buried` (the ones that hold), or ``."""
        names = ("suspended", "leech", "buried")
        held = (self.card.suspended, self.card.leech, self.buried)
        return ", ".join(name for name, on in zip(names, held, strict=True) if on)

    @classmethod
    def of(
        cls,
        card: StudyCard,
        state: CardState | None,
        *,
        buried: bool,
        due: bool,
        note: Note | None = None,
    ) -> CardRow:
        """The row of a card from its stored state (None: never stored, so new)."""
        interval = None
        if state is not None and state.due is not None and state.last_review is not None:
            interval = state.due - state.last_review
        return cls(
            card=card,
            due=None if state is None else state.due,
            interval=interval,
            stability=None if state is None else state.stability,
            difficulty=None if state is None else state.difficulty,
            reps=0 if state is None else state.reps,
            buried=buried,
            is_due=due,
            note=note,
        )

    def question(self, limit: int) -> str:
        """Its question on one plain line (`question_line`), citations filled in."""
        return question_line(self.card.card, limit, self.card.ordinal, note=self.note)


@dataclass(frozen=True)
class Browse:
    """The first `len(rows)` cards that matched, in deck order, of `total`."""

    rows: tuple[CardRow, ...]
    total: int

    @property
    def more(self) -> int:
        """Matching cards not in `rows`."""
        return self.total - len(self.rows)


@dataclass(frozen=True)
class HistoryRow:
    """One event of a card's history: an answer, or a forget (`rating` None)."""

    at: datetime
    rating: Rating | None
    state_before: State | None
    interval: timedelta | None
    stability: float | None
    difficulty: float | None


@dataclass(frozen=True)
class CardDetail:
    """A card read fresh: its row, its history (answers and forgets, oldest first) and the
    probability of recalling it now (None for a card never answered)."""

    row: CardRow
    history: tuple[HistoryRow, ...]
    retrievability: float | None = None


def history_rows(answers: Sequence[Answer], forgets: Sequence[Forget]) -> list[HistoryRow]:
    """Answers and forgets of one card, oldest first."""
    rows = [
        HistoryRow(
            at=answer.reviewed_at,
            rating=answer.rating,
            state_before=answer.before.state,
            interval=None if answer.after.due is None else answer.after.due - answer.reviewed_at,
            stability=answer.after.stability,
            difficulty=answer.after.difficulty,
        )
        for answer in answers
    ]
    rows += [
        HistoryRow(forget.forgotten_at, None, forget.before.state, None, None, None)
        for forget in forgets
    ]
    return sorted(rows, key=lambda row: row.at)


def card_facts(
    deck: Deck,
    card: Card,
    deck_tags: frozenset[str] = frozenset(),
    ordinal: int = 1,
    note: Note | None = None,
) -> Facts:
    """What a search sees of one schedule of a card (`deck_tags` already lower-cased): its
    text as written and, where it cites its deck's `note`, as shown (`32 sequences` finds a
    card that says `{fact:batch-size} sequences`)."""
    sides = (card.front, card.back or "")
    text = "\n".join((card.id, *sides, card.answer or ""))
    if note is not None and "{" in text:
        from studykit.content.citations import render_citations

        # Claims not computed yet stay `…`: a search computes nothing.
        shown = [render_citations(side, note, pending=True) for side in sides]
        text = "\n".join(
            [text, *(side for side, raw in zip(shown, sides, strict=True) if side != raw)]
        )
    tags = deck_tags | {tag.casefold() for tag in card.tags} if card.tags else deck_tags
    return Facts(text.casefold(), tags, deck.id.casefold(), deck.name.casefold(), ordinal)


def pending_claims(deck: Deck, note: Note | None) -> tuple[str, ...]:
    """The expressions of the claims `deck`'s cards cite that are not computed yet: their
    search text shows `…` until they are (`card_facts`)."""
    if note is None:
        return ()
    from studykit.content.citations import uncomputed_claims

    sides = [side for card in deck.cards for side in (card.front, card.back or "") if "{" in side]
    return tuple(uncomputed_claims(sides, note))


def any_computed(exprs: tuple[str, ...]) -> bool:
    """Whether any of `exprs` (from `pending_claims`) has been computed since."""
    if not exprs:
        return False
    from studykit.content.citations import CLAIM_VALUES

    return any(map(CLAIM_VALUES.known, exprs))


def deck_facts(deck: Deck) -> Facts:
    """What a search sees of a deck alone (its `deck:` terms are checked once per deck)."""
    tags = frozenset(tag.casefold() for tag in deck.tags)
    return Facts("", tags, deck.id.casefold(), deck.name.casefold())


def as_template(card: Card) -> Card:
    """A computed card with each `{param}` shown as `…`: a browser shows the card, not a draw."""
    if not card.params:
        return card
    from studykit.quiz.variants import PLACEHOLDER

    return card.model_copy(
        update={
            "front": PLACEHOLDER.sub("…", card.front),
            "back": PLACEHOLDER.sub("…", card.back) if card.back else card.back,
        }
    )


def question_line(
    card: Card, limit: int = 60, ordinal: int = 1, *, note: Note | None = None
) -> str:
    """One ordinal's question on one plain line, for lists: a cloze's asked deletion as
    `[...]` (or its hint) and the others filled in; a reversed card's ordinal 2 its back;
    citations filled in from `note` (the one the card's deck cites)."""
    from studykit.study.shorttext import short_text
    from studykit.text.clozes import CLOZE_PATTERN

    shown = as_template(card)
    if card.kind == "reversed" and ordinal == 2:
        return short_text(shown.back or "", limit, note=note)

    def deletion(match: re.Match[str]) -> str:
        if card.kind != "cloze" or int(match.group(1)) != ordinal:
            return match.group(2)
        return f"[{match.group(3) or '...'}]"

    return short_text(CLOZE_PATTERN.sub(deletion, shown.front), limit, note=note)


SORT_KEYS: dict[str, Callable[[CardRow], Any]] = {
    "question": lambda row: row.question(200).casefold(),
    "deck": lambda row: row.card.deck.name.casefold(),
    "due": lambda row: row.due,
    "interval": lambda row: row.interval,
    "stability": lambda row: row.stability,
    "difficulty": lambda row: row.difficulty,
    "reviews": lambda row: row.reps,
    "lapses": lambda row: row.card.lapses,
}
"""What the browser sorts by; a card without the value (a new card's due) goes last."""


def sort_rows(rows: Sequence[CardRow], key: str, *, descending: bool) -> list[CardRow]:
    """`rows` by `key`, ties in the order given; the rows without a value last either way."""
    value = SORT_KEYS[key]
    present = [row for row in rows if value(row) is not None]
    absent = [row for row in rows if value(row) is None]
    return sorted(present, key=value, reverse=descending) + absent

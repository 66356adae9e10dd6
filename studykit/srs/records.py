"""Card states and review-log answers, and their SQLite row form (times in epoch µs, UTC)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Self

from fsrs import Rating, State

from studykit.srs.scheduler import ensure_utc

__all__ = [
    "ANKI_SOURCE",
    "ANSWER_COLUMNS",
    "ANSWER_SOURCES",
    "COUNTS_AS_ANSWER",
    "OBSIDIAN_ANSWER_SOURCE",
    "STATE_COLUMNS",
    "Answer",
    "CardState",
    "DayCount",
    "Forget",
    "from_us",
    "opt_from_us",
    "opt_to_us",
    "to_us",
]

ANKI_SOURCE = "anki"
"""The review-log `source` of an answer given in Anki and taken in by `studykit sync`."""
OBSIDIAN_ANSWER_SOURCE = "obsidian-review"
"""The `source` of a review read from the Obsidian plugin's schedule by `sync obsidian`."""
ANSWER_SOURCES = frozenset({ANKI_SOURCE, OBSIDIAN_ANSWER_SOURCE})
"""Sources whose rows are answers given elsewhere; any other source is a starting state."""
COUNTS_AS_ANSWER = (
    f"(source IS NULL OR source IN ({', '.join(repr(s) for s in sorted(ANSWER_SOURCES))}))"
)
"""SQL: a review-log row that is an answer (here or elsewhere), not an imported state."""

# Integer microseconds, not ISO text: an exact round trip, cheap to index and compare.
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)


def to_us(moment: datetime) -> int:
    """Microseconds since the epoch of an aware datetime (exact)."""
    return (ensure_utc(moment) - _EPOCH) // _US


def from_us(us: int) -> datetime:
    """The UTC datetime `us` microseconds after the epoch (exact)."""
    return _EPOCH + timedelta(microseconds=us)


def opt_to_us(moment: datetime | None) -> int | None:
    """`to_us`, passing None through."""
    return None if moment is None else to_us(moment)


def opt_from_us(us: int | None) -> datetime | None:
    """`from_us`, passing None through."""
    return None if us is None else from_us(us)


@dataclass(frozen=True, slots=True)
class CardState:
    """Scheduling state of one card; `state is None` means new (never answered)."""

    key: int
    deck_id: str
    card_id: str
    state: State | None = None
    step: int | None = None
    stability: float | None = None
    difficulty: float | None = None
    due: datetime | None = None
    last_review: datetime | None = None
    reps: int = 0
    lapses: int = 0
    suspended: bool = False
    leech: bool = False
    buried_until: datetime | None = None
    introduced_at: datetime | None = None
    ordinal: int = 1  # which of the card's schedules: a cloze's deletion, a direction

    @property
    def is_new(self) -> bool:
        """True while the card has never been answered."""
        return self.state is None

    def to_row(self) -> tuple[Any, ...]:
        """Column values in `STATE_COLUMNS` order."""
        return (
            self.key,
            self.deck_id,
            self.card_id,
            None if self.state is None else int(self.state),
            self.step,
            self.stability,
            self.difficulty,
            opt_to_us(self.due),
            opt_to_us(self.last_review),
            self.reps,
            self.lapses,
            int(self.suspended),
            int(self.leech),
            opt_to_us(self.buried_until),
            opt_to_us(self.introduced_at),
            self.ordinal,
        )

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> Self:
        """Inverse of `to_row` (a row from before ordinals is ordinal 1)."""
        (key, deck_id, card_id, state, step, stability, difficulty) = row[:7]
        (due, last_review, reps, lapses, suspended, leech, buried, introduced) = row[7:15]
        return cls(
            key=key,
            deck_id=deck_id,
            card_id=card_id,
            state=None if state is None else State(state),
            step=step,
            stability=stability,
            difficulty=difficulty,
            due=opt_from_us(due),
            last_review=opt_from_us(last_review),
            reps=reps,
            lapses=lapses,
            suspended=bool(suspended),
            leech=bool(leech),
            buried_until=opt_from_us(buried),
            introduced_at=opt_from_us(introduced),
            ordinal=row[15] if len(row) > 15 else 1,
        )

    def to_json(self) -> str:
        """The stored row as a JSON object (the review log's before/after snapshots)."""
        return json.dumps(dict(zip(STATE_COLUMNS, self.to_row(), strict=True)))

    @classmethod
    def from_json(cls, text: str) -> Self:
        """Inverse of `to_json` (a snapshot from before ordinals is of ordinal 1)."""
        data = json.loads(text)
        return cls.from_row([*(data[name] for name in STATE_COLUMNS[:-1]), data.get("ordinal", 1)])

    def as_new(self) -> CardState:
        """This card with its scheduling history cleared (flags kept)."""
        return replace(
            self,
            state=None,
            step=None,
            stability=None,
            difficulty=None,
            due=None,
            last_review=None,
            reps=0,
            lapses=0,
            introduced_at=None,
        )


STATE_COLUMNS: tuple[str, ...] = (
    "key",
    "deck_id",
    "card_id",
    "state",
    "step",
    "stability",
    "difficulty",
    "due_us",
    "last_review_us",
    "reps",
    "lapses",
    "suspended",
    "leech",
    "buried_until_us",
    "introduced_at_us",
    "ordinal",
)
assert len(STATE_COLUMNS) == len(fields(CardState))


@dataclass(frozen=True, slots=True)
class Answer:
    """One row of the review log."""

    id: int
    key: int
    deck_id: str
    card_id: str
    rating: Rating
    reviewed_at: datetime
    duration_ms: int
    before: CardState
    after: CardState
    variant_seed: int | None
    source: str | None = None
    """None: answered here; an `ANSWER_SOURCES` name: answered elsewhere; else imported."""
    ordinal: int = 1

    @property
    def imported(self) -> bool:
        """True for a row that set a starting state from elsewhere (not an answer)."""
        return self.source is not None and self.source not in ANSWER_SOURCES

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> Self:
        """An answer from review-log columns in `ANSWER_COLUMNS` order."""
        return cls(
            id=row[0],
            key=row[1],
            deck_id=row[2],
            card_id=row[3],
            rating=Rating(row[4]),
            reviewed_at=from_us(row[5]),
            duration_ms=row[6],
            before=CardState.from_json(row[7]),
            after=CardState.from_json(row[8]),
            variant_seed=row[9],
            source=row[10] if len(row) > 10 else None,
            ordinal=row[11] if len(row) > 11 else 1,
        )


ANSWER_COLUMNS: tuple[str, ...] = (
    "id",
    "key",
    "deck_id",
    "card_id",
    "rating",
    "reviewed_at_us",
    "duration_ms",
    "before_json",
    "after_json",
    "variant_seed",
    "source",
    "ordinal",
)
assert len(ANSWER_COLUMNS) == len(fields(Answer))


@dataclass(frozen=True, slots=True)
class Forget:
    """One row of the forget log: a card reset to new, and its state before."""

    id: int
    key: int
    forgotten_at: datetime
    before: CardState

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> Self:
        """A forget from (id, key, forgotten_at_us, before_json)."""
        return cls(
            id=row[0], key=row[1], forgotten_at=from_us(row[2]), before=CardState.from_json(row[3])
        )


@dataclass(frozen=True, slots=True)
class DayCount:
    """Answers in one deck since a moment: all of them, first answers of new cards, reviews."""

    answers: int = 0
    new: int = 0
    reviews: int = 0

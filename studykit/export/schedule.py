"""Our card states and review log as Anki's `cards` and `revlog` columns (pure; no SQL).

Anki's units, as its backend writes them: card `type` 0 new, 1 learning, 2 review,
3 relearning; `queue` 0 new, 1 learning due today (`due` in epoch seconds), 2 review and
3 learning due on a later day (`due` in days since the collection's creation), -1 suspended,
-2 buried because a sibling was answered, -3 buried by hand; `ivl` in days; `factor` ease
× 1000; `left` the learning steps still to go.
The FSRS memory state lives in the card's `data` JSON (`s`, `d`, `dr`, `decay`, `lrt`).
A revlog row's id is its time in epoch ms; `ivl`/`lastIvl` are days, or negative seconds for
learning steps; `factor` holds FSRS difficulty as Anki logs it; `type` 0 learn, 1 review,
2 relearn; `time` the milliseconds taken.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import NamedTuple

from studykit.srs.records import Answer, CardState, from_us, opt_to_us
from studykit.srs.scheduler import State

CARD_NEW, CARD_LEARN, CARD_REVIEW, CARD_RELEARN = 0, 1, 2, 3
QUEUE_SUSPENDED, QUEUE_SIBLING_BURIED, QUEUE_BURIED = -1, -2, -3
QUEUE_NEW, QUEUE_LEARN, QUEUE_REVIEW, QUEUE_DAY_LEARN = 0, 1, 2, 3
REVLOG_LEARN, REVLOG_REVIEW, REVLOG_RELEARN = 0, 1, 2
START_EASE, MIN_EASE, LAPSE_EASE = 2500, 1300, 200

_CARD_TYPES = {State.Learning: CARD_LEARN, State.Review: CARD_REVIEW}
_REVLOG_TYPES = {State.Review: REVLOG_REVIEW, State.Relearning: REVLOG_RELEARN}
_REVLOG_TYPE_OF = {int(state): kind for state, kind in _REVLOG_TYPES.items()}
_REVIEW = int(State.Review)


@dataclass(frozen=True)
class AnkiDays:
    """Anki's day numbering for one export: day 0 is the study day the export happens in."""

    crt: int
    """The collection's creation time: the start of the export's study day, epoch seconds."""
    today: date
    """The export's study day."""
    tomorrow_at: datetime
    """When the next study day begins (learning due later is counted in days)."""
    study_day: Callable[[datetime], date]
    """The study day holding an instant (the session's rollover hour and time zone)."""
    offset: int = 0
    """Anki's number for `today`: 0 in a package; a synced collection's own `sched.today`."""

    def day(self, moment: datetime) -> int:
        """The day number of `moment`: study days since the export's study day (+ `offset`)."""
        return self.offset + (self.study_day(moment) - self.today).days


@dataclass(frozen=True)
class CardColumns:
    """What an Anki card row says about its schedule."""

    type: int
    queue: int
    due: int
    ivl: int
    factor: int
    reps: int
    lapses: int
    left: int
    data: str


@dataclass(frozen=True)
class RevlogRow:
    """One Anki revlog row, without its card id."""

    id: int
    ease: int
    ivl: int
    last_ivl: int
    factor: int
    time: int
    type: int


class Snapshot(NamedTuple):
    """What a revlog row needs of a state: its state, due and last review (epoch µs)."""

    state: int | None
    due_us: int | None
    last_review_us: int | None
    difficulty: float | None = None

    @classmethod
    def of(cls, state: CardState) -> Snapshot:
        """The snapshot of a stored state."""
        return cls(
            None if state.state is None else int(state.state),
            opt_to_us(state.due),
            opt_to_us(state.last_review),
            state.difficulty,
        )


def interval_of(snapshot: Snapshot, day_of: Callable[[int], int]) -> int:
    """A state's interval as Anki logs it: days in review, negative seconds in (re)learning.

    `day_of` numbers the study day of an instant in epoch µs.
    """
    state, due, last = snapshot.state, snapshot.due_us, snapshot.last_review_us
    if state is None or due is None or last is None:
        return 0
    if state == _REVIEW:
        return max(1, day_of(due) - day_of(last))
    return -max(0, round((due - last) / 1_000_000))


def revlog_fields(
    rating: int, duration_ms: int, before: Snapshot, after: Snapshot, day_of: Callable[[int], int]
) -> tuple[int, int, int, int, int, int]:
    """(ease, ivl, lastIvl, factor, time, type) of the revlog row of one answer."""
    kind = REVLOG_LEARN if before.state is None else _REVLOG_TYPE_OF.get(before.state, 0)
    factor = 0 if after.difficulty is None else difficulty_factor(after.difficulty)
    return (
        int(rating),
        interval_of(after, day_of),
        interval_of(before, day_of),
        factor,
        duration_ms,
        kind,
    )


def _interval(state: CardState, days: AnkiDays) -> int:
    """A state's interval as Anki logs it (`interval_of`)."""
    return interval_of(Snapshot.of(state), lambda us: days.day(from_us(us)))


def difficulty_factor(difficulty: float) -> int:
    """FSRS difficulty (1-10) as the per-mille value Anki logs in revlog `factor` for FSRS."""
    return round((difficulty - 1) / 9 * 1000) + 100


def _ease(lapses: int) -> int:
    """Anki's SM-2 ease kept beside FSRS: it starts at 2.5 and loses 0.2 per lapse."""
    return max(MIN_EASE, START_EASE - LAPSE_EASE * lapses)


def memory_data(state: CardState, *, retention: float, decay: float) -> str:
    """The card's `data` JSON: FSRS stability, difficulty, desired retention, last review."""
    if state.stability is None or state.difficulty is None:
        return ""
    data: dict[str, float | int] = {
        "s": round(state.stability, 4),
        "d": round(state.difficulty, 3),
        "dr": round(retention, 2),
        "decay": round(decay, 4),
    }
    if state.last_review is not None:
        data["lrt"] = int(state.last_review.timestamp())
    return json.dumps(data, separators=(",", ":"))


def card_columns(
    state: CardState,
    days: AnkiDays,
    *,
    now: datetime,
    learning_steps: int,
    relearning_steps: int,
    retention: float,
    decay: float,
) -> CardColumns | None:
    """The scheduled columns of an answered card; None for a new one (genanki's row stays)."""
    if state.state is None or state.due is None:
        return None
    data = memory_data(state, retention=retention, decay=decay)
    if state.state == State.Review:
        ivl = _interval(state, days)
        queue, due, kind, left = QUEUE_REVIEW, days.day(state.due), CARD_REVIEW, 0
    else:
        kind = _CARD_TYPES.get(state.state, CARD_RELEARN)
        steps = learning_steps if kind == CARD_LEARN else relearning_steps
        left = max(1, steps - (state.step or 0))
        if state.due < days.tomorrow_at:
            queue, due = QUEUE_LEARN, int(state.due.timestamp())
        else:
            queue, due = QUEUE_DAY_LEARN, days.day(state.due)
        ivl = 0 if kind == CARD_LEARN else max(1, round(state.stability or 1))
    return CardColumns(
        type=kind,
        queue=hidden_queue(state, now) or queue,
        due=due,
        ivl=ivl,
        factor=0 if kind == CARD_LEARN else _ease(state.lapses),
        reps=state.reps,
        lapses=state.lapses,
        left=left,
        data=data,
    )


def hidden_queue(state: CardState, now: datetime) -> int | None:
    """Anki's queue for a suspended (-1) or buried (-3) card; None when it is shown."""
    if state.suspended:
        return QUEUE_SUSPENDED
    if state.buried_until is not None and state.buried_until > now:
        return QUEUE_BURIED
    return None


def revlog_rows(
    answers: Iterable[Answer], days: AnkiDays, taken: set[int] | None = None
) -> list[RevlogRow]:
    """One revlog row per answer; ids are review times in ms, moved on past ids in `taken`."""
    rows: list[RevlogRow] = []
    taken = set() if taken is None else taken
    for answer in answers:
        row_id = math.floor(answer.reviewed_at.timestamp() * 1000)
        while row_id in taken:
            row_id += 1
        taken.add(row_id)
        fields = revlog_fields(
            answer.rating,
            answer.duration_ms,
            Snapshot.of(answer.before),
            Snapshot.of(answer.after),
            lambda us: days.day(from_us(us)),
        )
        rows.append(RevlogRow(row_id, *fields))
    return rows

"""The plugin's `<!--SR:!2023-01-01,3,250-->` schedule comments, and our card state from them.

A comment holds one `!due,interval,ease` per sibling card (`:::` and `??` cards have two, a
cloze one per deletion); the legacy form has a single `due,interval,ease` without the `!`.
Each sibling is a schedule of its own here too (an ordinal), so each keeps its entry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING

from fsrs import State

from studykit.srs.records import CardState
from studykit.srs.scheduler import schedule_key
from studykit.srs.studyday import rollover

if TYPE_CHECKING:
    from studykit.srs.store import Store

_ONE = r"(\d{4})-(\d{2})-(\d{2}),(\d{1,6}),(\d{1,4})"
_MULTI = re.compile(rf"!{_ONE}")
_WHOLE_MULTI = re.compile(rf"(?:!{_ONE})+")
_LEGACY = re.compile(_ONE)

IMPORT_SOURCE = "obsidian"
"""The review-log `source` of a schedule imported from the plugin."""


@dataclass(frozen=True)
class Schedule:
    """One sibling card's schedule as the plugin wrote it."""

    due: date
    interval: int  # days
    ease: int  # the plugin's ease ×100 (250 = 2.5)


class BadSchedule(ValueError):
    """A `<!--SR:...-->` comment that does not read as `!date,interval,ease` entries."""


def _one(match: re.Match[str]) -> Schedule:
    year, month, day, interval, ease = (int(g) for g in match.groups())
    try:
        due = date(year, month, day)
    except ValueError as error:
        raise BadSchedule(f"{match.group()}: {error}") from error
    return Schedule(due, interval, ease)


def parse_schedule(body: str) -> tuple[Schedule, ...]:
    """The schedules of the comment body after `SR:` (e.g. `!2023-01-01,3,250`)."""
    text = body.strip()
    if _WHOLE_MULTI.fullmatch(text):
        return tuple(_one(m) for m in _MULTI.finditer(text))
    legacy = _LEGACY.fullmatch(text)
    if legacy:
        return (_one(legacy),)
    raise BadSchedule(f"`{body.strip()[:40]}` is not `!date,interval,ease`")


def difficulty_from_ease(ease: int) -> float:
    """FSRS difficulty (1 easy … 10 hard) from SM-2 ease: 250 (the plugin's start) -> 5."""
    return min(10.0, max(1.0, 11.0 - (ease / 100.0 - 1.0) * 4.0))


def ease_from_difficulty(difficulty: float) -> int:
    """The plugin's ease ×100 for an FSRS difficulty: `difficulty_from_ease` turned round."""
    return max(130, round((1.0 + (11.0 - difficulty) / 4.0) * 100))


def format_schedule(schedules: Iterable[Schedule]) -> str:
    """The comment the plugin writes: `<!--SR:!2023-01-01,3,250!…-->`."""
    body = "".join(f"!{s.due.isoformat()},{s.interval},{s.ease}" for s in schedules)
    return f"<!--SR:{body}-->"


def imported_state(
    deck_id: str,
    card_id: str,
    schedule: Schedule,
    *,
    ordinal: int = 1,
    rollover_hour: int,
    tz: tzinfo | None,
) -> tuple[CardState, datetime]:
    """One sibling's starting state and when its last review was (due − interval).

    Stability is the interval (what the plugin expected it to survive), the schedule is due
    at the start of its due study day.
    """
    due = rollover(schedule.due, hour=rollover_hour, tz=tz)
    last = rollover(schedule.due - timedelta(days=schedule.interval), hour=rollover_hour, tz=tz)
    state = CardState(
        key=schedule_key(deck_id, card_id, ordinal),
        deck_id=deck_id,
        card_id=card_id,
        state=State.Review,
        step=None,
        stability=float(max(schedule.interval, 1)),
        difficulty=difficulty_from_ease(schedule.ease),
        due=due,
        last_review=last,
        reps=1,
        lapses=0,
        introduced_at=last,
        ordinal=ordinal,
    )
    return state, last


@dataclass(frozen=True)
class ScheduleCount:
    """Schedules (one per sibling) given their plugin state now, those that had one here
    already, and the plugin's entries left out (one line each: which card, and why)."""

    imported: int
    already: int
    dropped: tuple[str, ...] = ()


def import_schedules(
    store: Store,
    cards: Iterable[tuple[str, str, tuple[int, ...], tuple[Schedule, ...]]],
    *,
    rollover_hour: int,
    tz: tzinfo | None,
) -> ScheduleCount:
    """Write each (deck id, card id, ordinals, schedules) as its siblings' starting states, once.

    A comment holds one entry per sibling, in the plugin's order: the first is ordinal 1 (a
    reversed card's front to back), the next its second ordinal (back to front, a cloze's next
    deletion), and so on. A schedule that already has a state here keeps it (a second import,
    or answers given since, win); every imported row is marked so stats and the optimizer
    skip it. Entries beyond the card's siblings are left out and reported.
    """
    imported = already = 0
    dropped: list[str] = []
    with store.batch():
        for deck_id, card_id, ordinals, schedules in cards:
            for ordinal, schedule in zip(ordinals, schedules, strict=False):
                state, last = imported_state(
                    deck_id,
                    card_id,
                    schedule,
                    ordinal=ordinal,
                    rollover_hour=rollover_hour,
                    tz=tz,
                )
                if store.import_state(state, reviewed_at=last, source=IMPORT_SOURCE):
                    imported += 1
                else:
                    already += 1
            extra = len(schedules) - len(ordinals)
            if extra > 0:
                dropped.append(
                    f"{deck_id}/{card_id}: its SR comment has {len(schedules)} entries but the "
                    f"card has {len(ordinals)} sibling(s); the last {extra} left out"
                )
    return ScheduleCount(imported, already, tuple(dropped))

"""What an export carries besides notes: card states, answers and deck options, read once.

Everything comes from a `StudySession` (its read methods; no SQL here), so the package says
what the student's own studykit would show at the moment of the export.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, time
from typing import TYPE_CHECKING

from studykit.export.presets import DeckOptions, deck_options
from studykit.export.schedule import AnkiDays
from studykit.srs.records import Answer, CardState

if TYPE_CHECKING:
    from studykit.content.model import Deck
    from studykit.core.config import Settings
    from studykit.study.session import StudySession

ScheduleRef = tuple[str, str, int]
"""(deck id, card id, ordinal): one schedule, one Anki card (its ord is ordinal - 1)."""


@dataclass(frozen=True)
class Scheduling:
    """States and answers by schedule (deck, card, ordinal), and Anki's day numbering."""

    now: datetime
    days: AnkiDays
    rollover_hour: int
    minutes_west: int
    """The local time zone at the collection's creation, as Anki's `creationOffset`."""
    states: Mapping[ScheduleRef, CardState] = field(default_factory=dict)
    answers: Mapping[ScheduleRef, tuple[Answer, ...]] = field(default_factory=dict)
    sibling_buried: frozenset[ScheduleRef] = frozenset()
    """Schedules waiting for tomorrow because a sibling was answered today (Anki's queue -2)."""


@dataclass(frozen=True)
class ExportSource:
    """Deck options for the presets, and the scheduling (None: export every card as new)."""

    options: Mapping[str, DeckOptions]
    scheduling: Scheduling | None


def default_source(decks: Sequence[Deck], settings: Settings) -> ExportSource:
    """Deck options from the settings and the decks' own values; no scheduling."""
    from studykit.srs.scheduler import Scheduler

    parameters = Scheduler().parameters
    options = {deck.id: deck_options(deck, settings, parameters) for deck in decks}
    return ExportSource(options=options, scheduling=None)


def session_source(
    session: StudySession, decks: Sequence[Deck], *, scheduling: bool = True
) -> ExportSource:
    """Options, states and answers of `decks` as `session` has them now."""
    settings = session.settings
    options = {
        deck.id: deck_options(deck, settings, session.fsrs_parameters(deck.id)) for deck in decks
    }
    if not scheduling:
        return ExportSource(options=options, scheduling=None)
    now = session.now()
    start, end = session.day_bounds(now)
    today = session.study_day(now)
    wall = datetime.combine(today, time(settings.rollover_hour))
    offset = wall - start.replace(tzinfo=None)
    days = AnkiDays(
        crt=int(start.timestamp()), today=today, tomorrow_at=end, study_day=session.study_day
    )
    states, answers = session.scheduling_records([deck.id for deck in decks])
    by_card: dict[ScheduleRef, list[Answer]] = {}
    for answer in answers:
        if answer.imported:  # a starting state brought in from elsewhere is no Anki review
            continue
        by_card.setdefault((answer.deck_id, answer.card_id, answer.ordinal), []).append(answer)
    return ExportSource(
        options=options,
        scheduling=Scheduling(
            now=now,
            days=days,
            rollover_hour=settings.rollover_hour,
            minutes_west=-round(offset.total_seconds() / 60),
            states={(s.deck_id, s.card_id, s.ordinal): s for s in states},
            answers={ref: tuple(found) for ref, found in by_card.items()},
            sibling_buried=frozenset(session.sibling_buried([deck.id for deck in decks])),
        ),
    )

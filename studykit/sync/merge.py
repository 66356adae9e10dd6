"""A sync's fold: Anki's new revlog rows join each card's log, and the log is replayed.

The review log is the truth on both sides. Rows from Anki are added to the study database
with their revlog id (the dedupe key), then every touched card's merged history is replayed
in time order through the scheduler, so same-day answers on two devices both count (Anki on
its own keeps both log rows but lets the last writer win the card row). Rows that are no
answer are taken in as what they are: a forget (Anki's reset), a set due date, Anki's own
rescheduling; a cram deck's answers follow the quiz rule. Suspension and burial changed in
Anki become the same here. All of it is one transaction in the study database.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING

from studykit.srs.records import ANKI_SOURCE, CardState, from_us
from studykit.srs.replay import Event, EventKind, replay_events
from studykit.srs.scheduler import Rating, Scheduler, State
from studykit.sync.remote import (
    REVLOG_FILTERED,
    REVLOG_LEARN,
    REVLOG_MANUAL,
    REVLOG_RELEARN,
    REVLOG_RESCHEDULED,
    REVLOG_REVIEW,
    RemoteRow,
)
from studykit.sync.schedules import ScheduleRef

if TYPE_CHECKING:
    from studykit.srs.mergewrites import CardFacts, CardLog, MergeWrites
    from studykit.study.session import StudySession

__all__ = ["FlagChange", "Incoming", "MergeCounts", "incoming_of", "kind_of", "merge_into"]

SEEN_SET_DUE, SEEN_CRAM, SEEN_RESCHEDULED, SEEN_OTHER = "set-due", "cram", "rescheduled", "other"


def kind_of(row: RemoteRow) -> str:
    """What an Anki revlog row is: answer, cram, forget, set-due, rescheduled or other."""
    if row.ease in (1, 2, 3, 4):
        if row.type in (REVLOG_LEARN, REVLOG_REVIEW, REVLOG_RELEARN):
            return "answer"
        if row.type == REVLOG_FILTERED:  # a filtered deck that does not reschedule: cramming
            return "cram"
    if row.ease == 0 and row.type == REVLOG_MANUAL:
        # Anki's reset writes interval 0 and ease 0; a set due date keeps the card's.
        return "forget" if row.ivl == 0 and row.factor == 0 else SEEN_SET_DUE
    if row.ease == 0 and row.type == REVLOG_RESCHEDULED:
        return SEEN_RESCHEDULED
    return SEEN_OTHER


@dataclass(frozen=True)
class FlagChange:
    """A suspension or burial changed in Anki (None: that flag did not change)."""

    suspended: bool | None = None
    buried: bool | None = None


@dataclass
class MergeCounts:
    """What the merge took in."""

    answers: int = 0
    forgets: int = 0
    set_due: int = 0
    cram_left_out: int = 0
    rescheduled: int = 0
    other: int = 0
    suspended: int = 0
    unsuspended: int = 0
    buried: int = 0
    unburied: int = 0
    linked: int = 0
    """Anki rows found to be answers given here (an exported package's), linked, not doubled."""
    changed: list[CardState] = field(default_factory=list)
    """The states the merge wrote."""


@dataclass(frozen=True)
class Incoming:
    """A row from elsewhere for one card: an Anki revlog row, or a review read from Obsidian."""

    at: datetime
    kind: str
    """answer, cram, forget, set-due, rescheduled or other (`kind_of`)."""
    rating: Rating | None = None
    duration_ms: int = 0
    anki_id: int | None = None
    """The Anki revlog id: the dedupe key (None for a row from Obsidian)."""
    source: str = ANKI_SOURCE
    due: datetime | None = None
    """A set due date's day, as the card has it in Anki now (None: moved since)."""


def incoming_of(row: RemoteRow, due: datetime | None = None) -> Incoming:
    """An Anki revlog row as incoming."""
    kind = kind_of(row)
    rating = Rating(row.ease) if kind in ("answer", "cram") else None
    return Incoming(
        from_us(row.id * 1000), kind, rating, max(0, row.time_ms), row.id, ANKI_SOURCE, due
    )


@dataclass(frozen=True)
class _New:
    row: Incoming


def _scheduler_for(session: StudySession, deck_id: str, cache: dict[str, Scheduler]) -> Scheduler:
    """The deck's scheduler without fuzz: a replay must give the same state every time."""
    found = cache.get(deck_id)
    if found is not None:
        return found
    index = session.decks.indexes.get(deck_id)
    settings = session.settings
    if index is not None:
        base = session.scheduling.scheduler(index.deck)
        found = Scheduler(
            desired_retention=base.desired_retention,
            learning_steps=base.learning_steps,
            relearning_steps=base.relearning_steps,
            maximum_interval=base.maximum_interval,
            parameters=base.parameters,
            enable_fuzzing=False,
        )
    else:  # a card whose deck is not loaded now: the settings' scheduler
        found = Scheduler(
            desired_retention=settings.desired_retention,
            learning_steps=settings.learning_steps,
            relearning_steps=settings.relearning_steps,
            enable_fuzzing=False,
        )
    cache[deck_id] = found
    return found


def merge_into(
    session: StudySession,
    rows: Mapping[ScheduleRef, Sequence[Incoming]],
    flags: Mapping[ScheduleRef, FlagChange] | None = None,
) -> MergeCounts:
    """Take new rows (already deduped) and flag changes into the study database.

    One transaction; the session's queue is updated.
    """
    flags = flags or {}
    counts = MergeCounts()
    schedulers: dict[str, Scheduler] = {}
    refs = list(dict.fromkeys([*rows, *flags]))

    def merge() -> list[CardState]:
        with session.store.anki_merge() as tx:
            facts = tx.facts([ref.key for ref in refs])
            cards = [_prepare(tx, ref, rows.get(ref, ()), facts[ref.key], counts) for ref in refs]
            logs = tx.logs([card.ref.key for card in cards if card.walks_log])
            for card in cards:
                state = _merge_card(
                    session,
                    tx,
                    card,
                    logs.get(card.ref.key),
                    flags.get(card.ref),
                    schedulers,
                    counts,
                )
                if state is not None:
                    counts.changed.append(state)
        return counts.changed

    if refs:
        session.apply_synced(merge)
    return counts


@dataclass(frozen=True)
class _Card:
    """One card of a merge, its own answers linked: what its replay starts from."""

    ref: ScheduleRef
    rows: Sequence[Incoming]
    current: CardState
    set_due: Sequence[tuple[int, int | None]]
    last_us: int | None
    go_on: bool
    """Every new row is later than the card's log: the walk goes on from the stored state."""
    walks_log: bool
    """The whole merged log is walked again (it is read for this)."""


def _prepare(
    tx: MergeWrites,
    ref: ScheduleRef,
    rows: Sequence[Incoming],
    facts: CardFacts,
    counts: MergeCounts,
) -> _Card:
    stored = facts.state
    current = stored or ref.fresh()
    if stored is not None:
        rows = _own_rows_linked(tx, facts.unlinked, rows, counts)
    if stored is None and rows:
        tx.put_state(current)  # the log's rows point at the card's state row
    last_us = facts.last_us if stored is not None else None
    newest = [row.at for row in rows if row.kind in ("answer", "cram", "forget")]
    # Only rows later than the card's log: the walk goes on from the stored state, as an
    # answer here would (the usual sync). Else the whole merged log is walked again.
    go_on = last_us is not None and bool(newest) and min(newest) > from_us(last_us)
    return _Card(ref, rows, current, facts.set_due, last_us, go_on, not go_on and bool(newest))


def _merge_card(
    session: StudySession,
    tx: MergeWrites,
    card: _Card,
    log: CardLog | None,
    flag: FlagChange | None,
    schedulers: dict[str, Scheduler],
    counts: MergeCounts,
) -> CardState | None:
    ref, current = card.ref, card.current
    pending_set_due: list[tuple[datetime, datetime | None]] = [
        (from_us(at), None if due is None else from_us(due)) for at, due in card.set_due
    ]
    events: list[Event] = [] if log is None else _logged_events(log)
    for row in card.rows:
        if row.kind in ("answer", "cram") and row.rating is not None:
            kind: EventKind = "cram" if row.kind == "cram" else "answer"
            events.append(
                Event(
                    row.at,
                    kind,
                    _New(row),
                    rating=row.rating,
                    duration_ms=row.duration_ms,
                    new=True,
                )
            )
        elif row.kind == "forget":
            events.append(Event(row.at, "forget", _New(row), new=True))
        elif row.anki_id is not None:
            tx.add_seen(row.anki_id, ref.key, row.kind, at=row.at, due=row.due)
            if row.kind == SEEN_SET_DUE:
                pending_set_due.append((row.at, row.due))
                counts.set_due += 1
            elif row.kind == SEEN_RESCHEDULED:
                counts.rescheduled += 1
            else:
                counts.other += 1
    final = current
    if any(event.new for event in events):
        final = _replay(session, tx, ref, current, events, schedulers, counts, go_on=card.go_on)
    logged = [from_us(card.last_us)] if card.last_us is not None else []
    final = _with_set_due(
        final, [*logged, *(e.at for e in events if e.kind != "imported")], pending_set_due
    )
    if flag is not None:
        final = _with_flags(session, final, flag, counts)
    if final == current:
        return None
    tx.put_state(final)
    return final


_SAME_MS = 3
"""An exported package moves a revlog id on by a millisecond past a taken one, rarely more."""


def _own_rows_linked(
    tx: MergeWrites,
    answers_here: Sequence[tuple[int, int, int]],
    rows: Sequence[Incoming],
    counts: MergeCounts,
) -> list[Incoming]:
    """Rows that are studykit's own answers, carried into Anki by an exported package
    (`studykit export anki`, imported with its progress) before any sync: linked to the
    answer (`answers_here`: the card's with no Anki id) by their id, not taken in again."""
    unlinked = list(answers_here) if any(r.anki_id is not None for r in rows) else []
    if not unlinked:
        return list(rows)
    kept: list[Incoming] = []
    for row in rows:
        match = None
        if row.anki_id is not None and row.kind == "answer" and row.rating is not None:
            match = next(
                (
                    own
                    for own in unlinked
                    if abs(own[1] // 1000 - row.anki_id) <= _SAME_MS and own[2] == int(row.rating)
                ),
                None,
            )
        if match is None or row.anki_id is None:
            kept.append(row)
            continue
        tx.link(match[0], row.anki_id)
        unlinked.remove(match)
        counts.linked += 1
    return kept


def _logged_events(log: CardLog) -> list[Event]:
    """The card's logged answers, imported states and forgets as events."""
    events = [
        Event(
            a.reviewed_at,
            "imported" if a.imported else "answer",
            ("answer", a.id, a.before, a.after),
            rating=a.rating,
            duration_ms=a.duration_ms,
            imported=a.after if a.imported else None,
        )
        for a in log.history
    ]
    events += [Event(f.forgotten_at, "forget", ("forget", f.id)) for f in log.forgets]
    return events


def _replay(
    session: StudySession,
    tx: MergeWrites,
    ref: ScheduleRef,
    current: CardState,
    events: Sequence[Event],
    schedulers: dict[str, Scheduler],
    counts: MergeCounts,
    *,
    go_on: bool = False,
) -> CardState:
    settings = session.settings
    final, steps = replay_events(
        current,
        events,
        _scheduler_for(session, ref.deck_id, schedulers),
        leech_lapses=settings.leech_lapses,
        day_end=lambda at: session.day_bounds(at)[1],
        cram_counts=settings.quiz_counts,
        go_on=go_on,
    )
    for step in steps:
        event, handle = step.event, step.event.handle
        if isinstance(handle, _New):
            row = handle.row
            if event.kind == "forget" and row.anki_id is not None:
                tx.add_forget(step.before, at=event.at, anki_revlog_id=row.anki_id)
                counts.forgets += 1
            elif step.counted and event.rating is not None:
                tx.add_answer(
                    step.before,
                    step.after,
                    rating=event.rating,
                    reviewed_at=event.at,
                    duration_ms=event.duration_ms,
                    source=row.source,
                    anki_revlog_id=row.anki_id,
                )
                counts.answers += 1
            elif row.anki_id is not None:
                tx.add_seen(row.anki_id, ref.key, SEEN_CRAM, at=event.at)
                counts.cram_left_out += 1
        elif isinstance(handle, tuple) and handle[0] == "answer" and event.kind != "imported":
            if (handle[2], handle[3]) != (step.before, step.after):
                tx.set_snapshots(handle[1], step.before, step.after)
        elif isinstance(handle, tuple) and handle[0] == "forget":
            tx.set_forget_before(handle[1], step.before)
    return final


def _with_set_due(
    state: CardState,
    times: Iterable[datetime],
    set_dues: Sequence[tuple[datetime, datetime | None]],
) -> CardState:
    """A due date set in Anki after the card's last answer or forget (`times`) holds until
    the next one."""
    if not set_dues or state.state != State.Review:
        return state
    at, due = max(set_dues, key=lambda pair: pair[0])
    last = max(times, default=None)
    if due is None or (last is not None and last > at):
        return state
    return replace(state, due=due)


def _with_flags(
    session: StudySession, state: CardState, flag: FlagChange, counts: MergeCounts
) -> CardState:
    if flag.suspended is not None and flag.suspended != state.suspended:
        state = replace(state, suspended=flag.suspended)
        if flag.suspended:
            counts.suspended += 1
        else:
            counts.unsuspended += 1
    if flag.buried is not None:
        now = session.now()
        buried_now = state.buried_until is not None and state.buried_until > now
        if flag.buried and not buried_now:
            state = replace(state, buried_until=session.day_bounds(now)[1])
            counts.buried += 1
        elif not flag.buried and buried_now:
            state = replace(state, buried_until=None)
            counts.unburied += 1
    return state

"""Pushing studykit's side into the mirror: answers and forgets as revlog rows, card states
with their FSRS memory state, suspension and burial.

A card's state goes out when it changed since it last went out (the study database marks
every write); an answer when it has no Anki revlog id yet. Ids are chosen first and kept in
the study database before anything is written to the mirror, so a sync killed in between
can never find its own rows there and take them for answers from Anki. All mirror writes
are one transaction of Anki's backend.
"""

from __future__ import annotations

import bisect
import json
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from studykit.core.jsontypes import JsonObject
from studykit.export.schedule import (
    CARD_LEARN,
    CARD_NEW,
    CARD_RELEARN,
    CARD_REVIEW,
    QUEUE_BURIED,
    QUEUE_DAY_LEARN,
    QUEUE_LEARN,
    QUEUE_NEW,
    QUEUE_REVIEW,
    QUEUE_SIBLING_BURIED,
    QUEUE_SUSPENDED,
    AnkiDays,
    CardColumns,
    Snapshot,
    card_columns,
    hidden_queue,
    revlog_fields,
)
from studykit.srs.ankilinks import LogRow
from studykit.srs.records import CardState, Forget, from_us, to_us
from studykit.sync.errors import SyncFailed
from studykit.sync.remote import (
    REVLOG_MANUAL,
    RemoteCard,
    cards_of,
    revlog_ids,
    revlog_ids_between,
)
from studykit.sync.schedules import ScheduleRef
from studykit.sync.state import SyncState

if TYPE_CHECKING:
    from studykit.study.session import StudySession
    from studykit.sync.mirror import Mirror

__all__ = ["Carriers", "PushResult", "carriers", "mirror_days", "push"]

_MEMORY_KEYS = ("s", "d", "dr", "decay", "lrt")
_SPARE_IDS = 10_000
_MANY_ROWS = 1000
"""From this many log rows on, day numbers come from a table of the study days' starts."""
_DECAY_INDEX = 20
_DEFAULT_DECAY = 0.1542


@dataclass
class PushResult:
    """What went out, and what to record once the server has it."""

    answers: int = 0
    forgets: int = 0
    states: int = 0
    sent: list[CardState] = field(default_factory=list)
    """States the mirror now agrees with: marked as sent after the final sync."""
    hidden: dict[int, int | None] = field(default_factory=dict)
    """Queue each pushed card went out with, when hidden (None: shown)."""
    filtered: int = 0
    """States held back: the card is in one of Anki's filtered decks."""


@dataclass(frozen=True)
class Carriers:
    """The Anki cards of some schedules: the one carrying each, and its siblings."""

    carrier: Mapping[ScheduleRef, RemoteCard]
    siblings: Mapping[ScheduleRef, Sequence[RemoteCard]]


def carriers(
    mirror: Mirror, state: SyncState, models: Sequence[int], refs: Iterable[ScheduleRef]
) -> Carriers:
    """Which mirror card carries each schedule (the lowest-rank note's card), and which share
    its suspension (a computed card's other baked variants)."""
    wanted = {(ref.deck_id, ref.card_id): ref for ref in refs}
    held = state.notes_of_cards(wanted)
    guids = [note.guid for notes in held.values() for note in notes]
    by_note: dict[str, list[RemoteCard]] = {}
    for card in cards_of(mirror.db, models, guids):
        by_note.setdefault(card.guid, []).append(card)
    carrier: dict[ScheduleRef, RemoteCard] = {}
    siblings: dict[ScheduleRef, list[RemoteCard]] = {}
    for pair, notes in held.items():
        ref = wanted[pair]
        for note in notes:
            found = next((c for c in by_note.get(note.guid, ()) if c.ord == ref.ordinal - 1), None)
            if found is None:
                continue
            if ref not in carrier:
                carrier[ref] = found
            else:
                siblings.setdefault(ref, []).append(found)
    return Carriers(carrier, siblings)


def mirror_days(session: StudySession, mirror: Mirror) -> AnkiDays:
    """The session's study days numbered as the mirror numbers its own."""
    now = session.now()
    _, end = session.day_bounds(now)
    return AnkiDays(
        crt=int(mirror.col.crt),
        today=session.study_day(now),
        tomorrow_at=end,
        study_day=session.study_day,
        offset=mirror.today,
    )


def _options(session: StudySession, deck_id: str) -> tuple[int, int, float, float]:
    """(learning steps, relearning steps, desired retention, FSRS decay) of a deck."""
    settings = session.settings
    index = session.decks.indexes.get(deck_id)
    if index is None:
        return (
            len(settings.learning_steps),
            len(settings.relearning_steps),
            settings.desired_retention,
            _DEFAULT_DECAY,
        )
    scheduler = session.scheduling.scheduler(index.deck)
    params = scheduler.parameters
    decay = params[_DECAY_INDEX] if len(params) > _DECAY_INDEX else _DEFAULT_DECAY
    return (
        len(scheduler.learning_steps),
        len(scheduler.relearning_steps),
        scheduler.desired_retention,
        decay,
    )


def _data(old: str) -> JsonObject:
    try:
        value = json.loads(old) if old else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _target(
    session: StudySession,
    state: CardState,
    card: RemoteCard,
    days: AnkiDays,
    options: dict[str, tuple[int, int, float, float]],
) -> tuple[int, int, int, int, int, int, int, int, JsonObject]:
    """The card row's schedule columns for `state` (data as a dict, other keys kept)."""
    now = session.now()
    if state.deck_id not in options:
        options[state.deck_id] = _options(session, state.deck_id)
    learning, relearning, retention, decay = options[state.deck_id]
    data = {k: v for k, v in _data(card.data).items() if k not in _MEMORY_KEYS}
    columns: CardColumns | None = card_columns(
        state,
        days,
        now=now,
        learning_steps=learning,
        relearning_steps=relearning,
        retention=retention,
        decay=decay,
    )
    if columns is None:  # new here (never answered, or forgotten): new in Anki too
        position = data.get("pos", card.due if card.type == CARD_NEW else 0)
        queue = hidden_queue(state, now) or QUEUE_NEW
        if card.queue == QUEUE_SIBLING_BURIED and queue >= 0:
            queue = QUEUE_SIBLING_BURIED
        data.pop("pos", None)
        return (CARD_NEW, queue, int(position), 0, 0, state.reps, state.lapses, 0, data)
    queue = columns.queue
    if card.queue == QUEUE_SIBLING_BURIED and queue >= 0:
        queue = QUEUE_SIBLING_BURIED  # Anki's own burial of a sibling lasts its day
    if card.type == CARD_NEW and "pos" not in data:
        data["pos"] = card.due  # as Anki keeps a new card's place for a later reset
    data.update(_data(columns.data))
    return (
        columns.type,
        queue,
        columns.due,
        columns.ivl,
        columns.factor,
        columns.reps,
        columns.lapses,
        columns.left,
        data,
    )


def _current(card: RemoteCard) -> tuple[int, int, int, int, int, int, int, int, JsonObject]:
    return (
        card.type,
        card.queue,
        card.due,
        card.ivl,
        card.factor,
        card.reps,
        card.lapses,
        card.left,
        _data(card.data),
    )


def _shown_queue(card: RemoteCard) -> int:
    """The queue a hidden card goes back to, from its type."""
    if card.type == CARD_NEW:
        return QUEUE_NEW
    if card.type == CARD_REVIEW:
        return QUEUE_REVIEW
    if card.type in (CARD_LEARN, CARD_RELEARN) and card.due < 1_000_000_000:
        return QUEUE_DAY_LEARN
    return QUEUE_LEARN


def _free_ids(wanted: Sequence[int], taken: set[int]) -> list[int]:
    """Each wanted id, moved on past every id in `taken` (which grows)."""
    out = []
    for row_id in wanted:
        while row_id in taken:
            row_id += 1
        taken.add(row_id)
        out.append(row_id)
    return out


def push(
    session: StudySession,
    mirror: Mirror,
    state: SyncState,
    models: Sequence[int],
    *,
    full: Sequence[int] = (),
    say: Callable[[str], None] | None = None,
) -> PushResult:
    """Write what changed here into the mirror; `full` names cards whose every logged row
    must be there (new in the mirror, or after a full download). `say` hears the step."""
    store = session.store
    result = PushResult()
    days = mirror_days(session, mirror)
    unsent = {s.key: s for s in store.unsent_states()}
    answers = store.unsent_log()
    forgets = store.unsent_forgets()
    states = dict(unsent)
    missing = {a.key for a in answers} | {f.key for f in forgets} | set(full)
    states.update(store.states_of([key for key in missing if key not in states]))
    refs = {key: ScheduleRef.of(found) for key, found in states.items()}
    placed = carriers(mirror, state, models, refs.values())
    cid = {key: placed.carrier[ref].id for key, ref in refs.items() if ref in placed.carrier}
    updates: list[tuple[Any, ...]] = []
    now = int(time.time())
    options: dict[str, tuple[int, int, float, float]] = {}
    for key, card_state in unsent.items():
        ref = refs[key]
        card = placed.carrier.get(ref)
        if card is None:
            continue  # not in the mirror (deleted there): it stays unsent
        if card.odid:
            result.filtered += 1
            continue
        target = _target(session, card_state, card, days, options)
        if target != _current(card):
            updates.append(
                (*target[:8], json.dumps(target[8], separators=(",", ":")), now, card.id)
            )
            result.states += 1
        queue = target[1] if target[1] in (QUEUE_SUSPENDED, QUEUE_BURIED) else None
        result.hidden[card.id] = queue
        for sibling in placed.siblings.get(ref, ()):
            want = queue if queue is not None else _shown_queue(sibling)
            if sibling.queue != want:
                updates.append(
                    (
                        sibling.type,
                        want,
                        sibling.due,
                        sibling.ivl,
                        sibling.factor,
                        sibling.reps,
                        sibling.lapses,
                        sibling.left,
                        sibling.data,
                        now,
                        sibling.id,
                    )
                )
            result.hidden[sibling.id] = queue
        result.sent.append(card_state)
    revlog, links, forget_links = _new_rows(session, mirror, days, answers, forgets, cid)
    revlog += _missing_rows(session, mirror, days, full, cid)
    if links or forget_links:
        store.set_anki_ids(links, forget_links)  # before the mirror has them: see above
    if say is not None and (updates or revlog):
        say(f"Writing {len(revlog)} log row(s) and {len(updates)} card(s) into the mirror…")
    result.answers, result.forgets = len(links), len(forget_links)

    def write() -> None:
        db = mirror.db
        if updates:
            db.executemany(
                "UPDATE cards SET type = ?, queue = ?, due = ?, ivl = ?, factor = ?, reps = ?, "
                "lapses = ?, left = ?, data = ?, mod = ?, usn = -1 WHERE id = ?",
                updates,
            )
        if revlog:
            db.executemany(
                "INSERT OR IGNORE INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, "
                "type) VALUES (?, ?, -1, ?, ?, ?, ?, ?, ?)",
                revlog,
            )

    if updates or revlog:
        mirror.db.transact(write)
    return result


class _DayNumbers:
    """`AnkiDays.day` of many instants (epoch µs), by bisecting the study days' starts."""

    def __init__(self, session: StudySession, days: AnkiDays, low_us: int, high_us: int) -> None:
        start, end = session.day_bounds(from_us(low_us))
        self.first = days.day(start)
        self.starts = [to_us(start)]
        while to_us(end) <= high_us:
            self.starts.append(to_us(end))
            end = session.day_bounds(end)[1]

    def __call__(self, us: int) -> int:
        return self.first + bisect.bisect_right(self.starts, us) - 1


def _revlog_row(
    anki_id: int, cid: int, row: LogRow, day_of: Callable[[int], int]
) -> tuple[Any, ...]:
    before = Snapshot(row.before_state, row.before_due_us, row.before_last_us)
    after = Snapshot(row.after_state, row.after_due_us, row.after_last_us, row.after_difficulty)
    return (anki_id, cid, *revlog_fields(row.rating, row.duration_ms, before, after, day_of))


def _day_numbers(
    session: StudySession, days: AnkiDays, rows: Sequence[LogRow]
) -> Callable[[int], int]:
    if len(rows) < _MANY_ROWS:
        return lambda us: days.day(from_us(us))
    times = [
        t
        for r in rows
        for t in (r.before_due_us, r.before_last_us, r.after_due_us, r.after_last_us)
        if t is not None
    ]
    if not times:
        return lambda us: days.day(from_us(us))
    return _DayNumbers(session, days, min(times), max(times))


def _new_rows(
    session: StudySession,
    mirror: Mirror,
    days: AnkiDays,
    answers: Sequence[LogRow],
    forgets: Sequence[Forget],
    cid: Mapping[int, int],
) -> tuple[list[tuple[Any, ...]], list[tuple[int, int]], list[tuple[int, int]]]:
    """Revlog rows for answers and forgets without an Anki id, and the ids they get."""
    answers = [a for a in answers if a.key in cid]
    forgets = [f for f in forgets if f.key in cid]
    wanted = [a.reviewed_at_us // 1000 for a in answers]
    wanted += [math.floor(f.forgotten_at.timestamp() * 1000) for f in forgets]
    if not wanted:
        return [], [], []
    # Every id in use between the first wanted and where the last could be moved to: in the
    # mirror (its other decks too) and in the study database (rows not synced back yet).
    low, high = min(wanted), max(wanted) + len(wanted) + _SPARE_IDS
    taken = revlog_ids_between(mirror.db, low, high) | session.store.anki_ids_between(low, high)
    ids = _free_ids(wanted, taken)
    if ids and max(ids) > high:
        raise SyncFailed("the mirror's revlog has no free ids near these answers' times")
    day_of = _day_numbers(session, days, answers)
    rows = [
        _revlog_row(anki_id, cid[answer.key], answer, day_of)
        for answer, anki_id in zip(answers, ids, strict=False)
    ]
    links = [(answer.id, anki_id) for answer, anki_id in zip(answers, ids, strict=False)]
    forget_links: list[tuple[int, int]] = []
    for forget, anki_id in zip(forgets, ids[len(answers) :], strict=True):
        rows.append(_forget_row(anki_id, cid[forget.key], forget, days))
        forget_links.append((forget.id, anki_id))
    return rows, links, forget_links


def _forget_row(anki_id: int, cid: int, forget: Forget, days: AnkiDays) -> tuple[Any, ...]:
    """A forget as Anki logs a reset: a manual row, ease 0, with the interval it ended."""
    before = forget.before
    last_ivl = 0
    if before.due is not None and before.last_review is not None:
        last_ivl = max(0, days.day(before.due) - days.day(before.last_review))
    return (anki_id, cid, 0, 0, last_ivl, 0, 0, REVLOG_MANUAL)


def _missing_rows(
    session: StudySession,
    mirror: Mirror,
    days: AnkiDays,
    keys: Sequence[int],
    cid: Mapping[int, int],
) -> list[tuple[Any, ...]]:
    """Rows of these cards that went out once but are not in the mirror now."""
    keys = [key for key in keys if key in cid]
    if not keys:
        return []
    store = session.store
    sent = store.sent_log(keys)
    gone_forgets = store.sent_forgets(keys)
    present = revlog_ids(
        mirror.db,
        [r.anki_revlog_id for r in sent if r.anki_revlog_id] + [i for i, _ in gone_forgets],
    )
    lost = [r for r in sent if r.anki_revlog_id is not None and r.anki_revlog_id not in present]
    day_of = _day_numbers(session, days, lost)
    rows = [_revlog_row(r.anki_revlog_id or 0, cid[r.key], r, day_of) for r in lost]
    rows += [
        _forget_row(anki_id, cid[forget.key], forget, days)
        for anki_id, forget in gone_forgets
        if anki_id not in present
    ]
    return rows

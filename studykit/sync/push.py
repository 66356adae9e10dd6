"""Pushing studykit's side into the mirror: answers and forgets as revlog rows, card states
with their FSRS memory state, suspension and burial.

A card's state goes out when it changed since it last went out (the study database marks
every write); an answer when it has no Anki revlog id yet. Ids are chosen first and kept in
the study database before anything is written to the mirror, so a sync killed in between
can never find its own rows there and take them for answers from Anki. All mirror writes
are one transaction of Anki's backend.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
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
    card_columns,
    hidden_queue,
)
from studykit.srs.records import CardState
from studykit.sync.remote import RemoteCard, cards_of, cards_of_nids
from studykit.sync.revlogrows import mirror_days, missing_rows, new_rows
from studykit.sync.schedules import ScheduleRef
from studykit.sync.state import HeldNote, SyncState

if TYPE_CHECKING:
    from studykit.study.session import StudySession
    from studykit.sync.mirror import Mirror

__all__ = ["Carriers", "PushResult", "carriers", "push"]

_MEMORY_KEYS = ("s", "d", "dr", "decay", "lrt")
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
    wanted: dict[tuple[str, str], list[ScheduleRef]] = {}
    for ref in refs:  # a card's schedules (its directions, its cloze deletions) share its notes
        wanted.setdefault((ref.deck_id, ref.card_id), []).append(ref)
    held = state.notes_of_cards(wanted)
    by_note = _cards_by_note(mirror, models, [note for notes in held.values() for note in notes])
    carrier: dict[ScheduleRef, RemoteCard] = {}
    siblings: dict[ScheduleRef, list[RemoteCard]] = {}
    for pair, notes in held.items():
        for ref in wanted[pair]:
            for note in notes:
                found = next(
                    (c for c in by_note.get(note.guid, ()) if c.ord == ref.ordinal - 1), None
                )
                if found is None:
                    continue
                if ref not in carrier:
                    carrier[ref] = found
                else:
                    siblings.setdefault(ref, []).append(found)
    return Carriers(carrier, siblings)


def _cards_by_note(
    mirror: Mirror, models: Sequence[int], notes: Sequence[HeldNote]
) -> dict[str, list[RemoteCard]]:
    """The mirror's cards of these notes by GUID: through the note id studykit imported each
    as, while that note still has its GUID (Anki has no index on GUIDs), else by GUID."""
    by_note: dict[str, list[RemoteCard]] = {}
    guid_of = {note.nid: note.guid for note in notes if note.nid is not None}
    for card in cards_of_nids(mirror.db, models, list(guid_of)):
        if guid_of[card.nid] == card.guid:
            by_note.setdefault(card.guid, []).append(card)
    rest = [note.guid for note in notes if note.guid not in by_note]
    for card in cards_of(mirror.db, models, rest) if rest else ():
        by_note.setdefault(card.guid, []).append(card)
    return by_note


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
    *,
    now: datetime,
    old: JsonObject,
) -> tuple[int, int, int, int, int, int, int, int, JsonObject]:
    """The card row's schedule columns for `state` (data as a dict, `old`'s other keys kept;
    `old` is the card's data, parsed)."""
    if state.deck_id not in options:
        options[state.deck_id] = _options(session, state.deck_id)
    learning, relearning, retention, decay = options[state.deck_id]
    data = {k: v for k, v in old.items() if k not in _MEMORY_KEYS}
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


def _current(
    card: RemoteCard, data: JsonObject
) -> tuple[int, int, int, int, int, int, int, int, JsonObject]:
    return (
        card.type,
        card.queue,
        card.due,
        card.ivl,
        card.factor,
        card.reps,
        card.lapses,
        card.left,
        data,
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
    now, at = int(time.time()), session.now()
    options: dict[str, tuple[int, int, float, float]] = {}
    for key, card_state in unsent.items():
        ref = refs[key]
        card = placed.carrier.get(ref)
        if card is None:
            continue  # not in the mirror (deleted there): it stays unsent
        if card.odid:
            result.filtered += 1
            continue
        data = _data(card.data)
        target = _target(session, card_state, card, days, options, now=at, old=data)
        if target != _current(card, data):
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
    revlog, links, forget_links = new_rows(session, mirror, days, answers, forgets, cid)
    revlog += missing_rows(session, mirror, days, full, cid)
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

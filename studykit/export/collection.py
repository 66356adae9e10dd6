"""Filling what genanki leaves out into the package's collection (its SQLite, before zipping).

genanki writes decks on the Default preset and `rows.py` notes and new cards. Here the
collection gets a creation time at the start of the export's study day (so review `due` days
count from it, as Anki's importer expects), each deck its own FSRS preset, and, with
scheduling, each studykit schedule's state, memory state, suspension or burial and review log
on its own Anki card: the card of ord n holds ordinal n + 1 of its studykit card (a reversed
card's back is ord 1, a cloze's c3 ord 2; a computed card is one card, its variants baked in).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from studykit.core.jsontypes import JsonObject
from studykit.export.history import ExportSource, ScheduleRef, Scheduling
from studykit.export.plan import PlannedDeck, PlannedNote
from studykit.export.presets import DeckOptions, preset_id, preset_json
from studykit.export.schedule import (
    QUEUE_SIBLING_BURIED,
    card_columns,
    hidden_queue,
    revlog_rows,
)
from studykit.srs.records import CardState

LEECH_TAG = "leech"
_DECAY_INDEX = 20
_DEFAULT_DECAY = 0.1542


def _json_column(cursor: sqlite3.Cursor, column: str) -> JsonObject:
    (text,) = cursor.execute(f"SELECT {column} FROM col").fetchone()
    value: JsonObject = json.loads(text)
    return value


def write_presets(
    cursor: sqlite3.Cursor,
    decks: Sequence[PlannedDeck],
    deck_ids: dict[str, int],
    source: ExportSource,
    *,
    mod: int,
) -> None:
    """One FSRS preset per deck, named after it; the deck points at it; FSRS on."""
    dconf = _json_column(cursor, "dconf")
    anki_decks = _json_column(cursor, "decks")
    for deck in decks:
        options = source.options.get(deck.id)
        if options is None:  # a deck gone from the library: only its removed notes go out
            continue
        preset = preset_id(deck.id)
        dconf[str(preset)] = preset_json(options, preset=preset, name=deck.name, mod=mod)
        anki_decks[str(deck_ids[deck.id])]["conf"] = preset
    conf = _json_column(cursor, "conf")
    conf.update({"schedVer": 2, "sched2021": True, "fsrs": True})
    scheduling = source.scheduling
    if scheduling is not None:
        conf.update({"rollover": scheduling.rollover_hour})
        conf["creationOffset"] = scheduling.minutes_west
        cursor.execute("UPDATE col SET crt = ?", (scheduling.days.crt,))
    cursor.execute(
        "UPDATE col SET dconf = ?, decks = ?, conf = ?",
        (json.dumps(dconf), json.dumps(anki_decks), json.dumps(conf)),
    )


def _cards_by_guid(cursor: sqlite3.Cursor) -> dict[str, list[tuple[int, int]]]:
    """Each note's (ord, card id) pairs, by template order (one query: notes.guid has no index)."""
    cards: dict[str, list[tuple[int, int]]] = {}
    rows = cursor.execute(
        "SELECT notes.guid, cards.ord, cards.id FROM cards JOIN notes ON notes.id = cards.nid "
        "ORDER BY notes.guid, cards.ord"
    )
    for guid, ord_, card in rows:
        cards.setdefault(guid, []).append((ord_, card))
    return cards


def _decay(options: DeckOptions) -> float:
    params = options.fsrs_parameters
    return params[_DECAY_INDEX] if len(params) > _DECAY_INDEX else _DEFAULT_DECAY


def write_scheduling(
    cursor: sqlite3.Cursor,
    notes: Sequence[PlannedNote],
    guids: Sequence[str],
    source: ExportSource,
    *,
    mod: int,
) -> int:
    """Each Anki card's state, memory state, hiding and revlog rows; the number of revlog rows.

    The Anki card of ord n carries the schedule (deck, card, n + 1): one studykit schedule
    per Anki card, and the other way round.
    """
    scheduling = source.scheduling
    if scheduling is None:
        return 0
    revlog = 0
    taken: set[int] = set()
    cards_by_guid = _cards_by_guid(cursor)
    for planned, guid in zip(notes, guids, strict=True):
        cards = cards_by_guid.get(guid, [])
        if not cards:
            raise ValueError(
                f"the package has no cards for note {guid} ({planned.deck_id}/{planned.card_id})"
            )
        leech = False
        for ord_, card in cards:
            ref = (planned.deck_id, planned.card_id, ord_ + 1)
            state = scheduling.states.get(ref)
            if state is None:
                if ref in scheduling.sibling_buried:  # new, waiting for a sibling's tomorrow
                    cursor.execute(
                        "UPDATE cards SET queue = ?, mod = ? WHERE id = ?",
                        (QUEUE_SIBLING_BURIED, mod, card),
                    )
                continue
            leech = leech or state.leech
            revlog += _schedule_card(
                cursor, card, ref, state, scheduling, source, mod=mod, taken=taken
            )
        if leech:  # as Anki marks a leech: its note tagged `leech`
            cursor.execute(
                "UPDATE notes SET tags = tags || ? WHERE guid = ? AND tags NOT LIKE ?",
                (f"{LEECH_TAG} ", guid, f"% {LEECH_TAG} %"),
            )
    return revlog


def _hidden(state: CardState, ref: ScheduleRef, scheduling: Scheduling) -> int | None:
    """The queue of a hidden card: suspended, buried by hand, buried for a sibling."""
    hidden = hidden_queue(state, scheduling.now)
    if hidden is None and ref in scheduling.sibling_buried:
        return QUEUE_SIBLING_BURIED
    return hidden


def _schedule_card(
    cursor: sqlite3.Cursor,
    card: int,
    ref: ScheduleRef,
    state: CardState,
    scheduling: Scheduling,
    source: ExportSource,
    *,
    mod: int,
    taken: set[int],
) -> int:
    """Write one card's columns and its revlog rows; how many rows."""
    options = source.options[ref[0]]
    columns = card_columns(
        state,
        scheduling.days,
        now=scheduling.now,
        learning_steps=len(options.learning_steps),
        relearning_steps=len(options.relearning_steps),
        retention=options.desired_retention,
        decay=_decay(options),
    )
    hidden = _hidden(state, ref, scheduling)
    if columns is None:
        if hidden is not None:
            cursor.execute("UPDATE cards SET queue = ?, mod = ? WHERE id = ?", (hidden, mod, card))
    else:
        cursor.execute(
            "UPDATE cards SET type = ?, queue = ?, due = ?, ivl = ?, factor = ?, reps = ?, "
            "lapses = ?, left = ?, data = ?, mod = ? WHERE id = ?",
            (
                columns.type,
                hidden if hidden is not None else columns.queue,
                columns.due,
                columns.ivl,
                columns.factor,
                columns.reps,
                columns.lapses,
                columns.left,
                columns.data,
                mod,
                card,
            ),
        )
    rows = revlog_rows(scheduling.answers.get(ref, ()), scheduling.days, taken)
    cursor.executemany(
        "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
        "VALUES (?, ?, -1, ?, ?, ?, ?, ?, ?)",
        [(r.id, card, r.ease, r.ivl, r.last_ivl, r.factor, r.time, r.type) for r in rows],
    )
    return len(rows)

"""Filling what genanki leaves out into the package's collection (its SQLite, before zipping).

genanki writes decks on the Default preset and `rows.py` notes and new cards. Here the
collection gets a creation time at the start of the export's study day (so review `due` days
count from it, as Anki's importer expects), each deck its own FSRS preset, and, with
scheduling, each studykit card's state, memory state, suspension or burial and review log. A
studykit card that becomes several Anki cards (reversed, cloze, baked variants) carries its
schedule and history on the first of them; suspension and burial apply to all of them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from studykit.export.history import ExportSource, Scheduling
from studykit.export.plan import PlannedDeck, PlannedNote
from studykit.export.presets import DeckOptions, preset_id, preset_json
from studykit.export.schedule import card_columns, hidden_queue, revlog_rows

LEECH_TAG = "leech"
_DECAY_INDEX = 20
_DEFAULT_DECAY = 0.1542


def _json_column(cursor: sqlite3.Cursor, column: str) -> dict[str, Any]:
    (text,) = cursor.execute(f"SELECT {column} FROM col").fetchone()
    value: dict[str, Any] = json.loads(text)
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


def _cards_by_guid(cursor: sqlite3.Cursor) -> dict[str, list[int]]:
    """Each note's card ids, by template order (one query: notes.guid has no index)."""
    cards: dict[str, list[int]] = {}
    rows = cursor.execute(
        "SELECT notes.guid, cards.id FROM cards JOIN notes ON notes.id = cards.nid "
        "ORDER BY notes.guid, cards.ord"
    )
    for guid, card in rows:
        cards.setdefault(guid, []).append(card)
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
    """Card states, memory states, hiding and revlog rows; the number of revlog rows."""
    scheduling = source.scheduling
    if scheduling is None:
        return 0
    revlog = 0
    seen: set[tuple[str, str]] = set()
    taken: set[int] = set()
    cards_by_guid = _cards_by_guid(cursor)
    for planned, guid in zip(notes, guids, strict=True):
        ref = (planned.deck_id, planned.card_id)
        state = scheduling.states.get(ref)
        if state is None:
            continue
        card_ids = cards_by_guid.get(guid, [])
        if not card_ids:
            raise ValueError(f"the package has no cards for note {guid} ({ref[0]}/{ref[1]})")
        first = ref not in seen
        seen.add(ref)
        if state.leech:  # as Anki marks a leech: its note tagged `leech`
            cursor.execute(
                "UPDATE notes SET tags = tags || ? WHERE guid = ? AND tags NOT LIKE ?",
                (f"{LEECH_TAG} ", guid, f"% {LEECH_TAG} %"),
            )
        hidden = hidden_queue(state, scheduling.now)
        rest = card_ids[1:] if first else card_ids
        if hidden is not None and rest:
            cursor.executemany(
                "UPDATE cards SET queue = ?, mod = ? WHERE id = ?",
                [(hidden, mod, card) for card in rest],
            )
        if first:
            revlog += _schedule_card(
                cursor, card_ids[0], ref, scheduling, source, mod=mod, taken=taken
            )
    return revlog


def _schedule_card(
    cursor: sqlite3.Cursor,
    card: int,
    ref: tuple[str, str],
    scheduling: Scheduling,
    source: ExportSource,
    *,
    mod: int,
    taken: set[int],
) -> int:
    """Write one card's columns and its revlog rows; how many rows."""
    state = scheduling.states[ref]
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
    if columns is None:
        hidden = hidden_queue(state, scheduling.now)
        if hidden is not None:
            cursor.execute("UPDATE cards SET queue = ?, mod = ? WHERE id = ?", (hidden, mod, card))
    else:
        cursor.execute(
            "UPDATE cards SET type = ?, queue = ?, due = ?, ivl = ?, factor = ?, reps = ?, "
            "lapses = ?, left = ?, data = ?, mod = ? WHERE id = ?",
            (
                columns.type,
                columns.queue,
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

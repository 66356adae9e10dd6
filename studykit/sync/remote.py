"""What the mirror holds of studykit's notes, read with SQL through Anki's backend.

Only rows of studykit's notetypes are read; every query here names them, so a collection's
other decks are never read, let alone written. `since` is a usn: rows pulled by a sync carry
the server's usn, at least the one the mirror had before it (None: read everything).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from studykit.export.modelids import MODEL_IDS, MODEL_NAME_PREFIX

if TYPE_CHECKING:
    from anki.dbproxy import DBProxy

__all__ = [
    "RemoteCard",
    "RemoteNote",
    "RemoteRow",
    "cards_of",
    "cards_of_nids",
    "changed_cards",
    "changed_notes",
    "deleted_note_ids",
    "field_names",
    "model_ids",
    "new_revlog",
    "note_ids",
    "revlog_ids",
    "revlog_ids_between",
]

REVLOG_LEARN, REVLOG_REVIEW, REVLOG_RELEARN, REVLOG_FILTERED = 0, 1, 2, 3
REVLOG_MANUAL, REVLOG_RESCHEDULED = 4, 5
_CHUNK = 500
_MANY_GUIDS = 2000


@dataclass(frozen=True)
class RemoteRow:
    """One revlog row of one of our cards."""

    id: int
    cid: int
    guid: str
    ord: int
    ease: int
    ivl: int
    last_ivl: int
    factor: int
    time_ms: int
    type: int


@dataclass(frozen=True)
class RemoteCard:
    """One of our cards as the mirror has it."""

    id: int
    nid: int
    guid: str
    ord: int
    type: int
    queue: int
    due: int
    ivl: int
    factor: int
    reps: int
    lapses: int
    left: int
    data: str
    odid: int
    """The home deck of a card now in a filtered deck (0: it is home)."""


@dataclass(frozen=True)
class RemoteNote:
    """One of our notes as the mirror has it."""

    id: int
    guid: str
    mid: int
    fields: tuple[str, ...]
    mod: int


def _chunks(values: Sequence[Any]) -> Iterator[tuple[Any, ...]]:
    for start in range(0, len(values), _CHUNK):
        yield tuple(values[start : start + _CHUNK])


def _marks(values: Sequence[object]) -> str:
    return ", ".join("?" for _ in values)


def model_ids(db: DBProxy) -> tuple[int, ...]:
    """The ids of studykit's notetypes in the collection (as exported, or renamed on import)."""
    rows = db.list(
        f"SELECT id FROM notetypes WHERE id IN ({_marks(MODEL_IDS)}) OR name LIKE ?",
        *MODEL_IDS,
        MODEL_NAME_PREFIX + "%",
    )
    return tuple(int(row) for row in rows)


_SINCE = "{table}.usn >= ?"


def _since(table: str, since: int | None) -> tuple[str, tuple[int, ...]]:
    if since is None:
        return "1", ()
    return _SINCE.format(table=table), (since,)


def new_revlog(db: DBProxy, models: Sequence[int], since: int | None) -> list[RemoteRow]:
    """Revlog rows of our cards changed since `since`, oldest first."""
    if not models:
        return []
    where, args = _since("r", since)
    rows = db.all(
        "SELECT r.id, r.cid, n.guid, c.ord, r.ease, r.ivl, r.lastIvl, r.factor, r.time, r.type "
        "FROM revlog r JOIN cards c ON c.id = r.cid JOIN notes n ON n.id = c.nid "
        f"WHERE {where} AND n.mid IN ({_marks(models)}) ORDER BY r.id",
        *args,
        *models,
    )
    return [RemoteRow(*row) for row in rows]


_CARD_COLUMNS = (
    "c.id, c.nid, n.guid, c.ord, c.type, c.queue, c.due, c.ivl, c.factor, c.reps, c.lapses, "
    "c.left, c.data, c.odid"
)


def changed_cards(db: DBProxy, models: Sequence[int], since: int | None) -> list[RemoteCard]:
    """Our cards changed since `since`."""
    if not models:
        return []
    where, args = _since("c", since)
    rows = db.all(
        f"SELECT {_CARD_COLUMNS} FROM cards c JOIN notes n ON n.id = c.nid "
        f"WHERE {where} AND n.mid IN ({_marks(models)})",
        *args,
        *models,
    )
    return [RemoteCard(*row) for row in rows]


def cards_of(db: DBProxy, models: Sequence[int], guids: Sequence[str]) -> list[RemoteCard]:
    """Every card of these notes (ours only)."""
    found: list[RemoteCard] = []
    if not models:
        return found
    if len(guids) > _MANY_GUIDS:
        # Anki has no index on a note's GUID: each chunk would read every note again.
        wanted = set(guids)
        rows = db.all(
            f"SELECT {_CARD_COLUMNS} FROM cards c JOIN notes n ON n.id = c.nid "
            f"WHERE n.mid IN ({_marks(models)})",
            *models,
        )
        return [card for card in (RemoteCard(*row) for row in rows) if card.guid in wanted]
    return _cards_where(db, models, "n.guid", guids)


def cards_of_nids(db: DBProxy, models: Sequence[int], nids: Sequence[int]) -> list[RemoteCard]:
    """Every card of the notes with these ids (ours only): found through Anki's index."""
    return _cards_where(db, models, "c.nid", nids) if models else []


def _cards_where(
    db: DBProxy, models: Sequence[int], column: str, values: Sequence[str] | Sequence[int]
) -> list[RemoteCard]:
    """Our cards whose `column` is one of `values`, a chunk of them per query."""
    found: list[RemoteCard] = []
    for chunk in _chunks(list(values)):
        rows = db.all(
            f"SELECT {_CARD_COLUMNS} FROM cards c JOIN notes n ON n.id = c.nid "
            f"WHERE {column} IN ({_marks(chunk)}) AND n.mid IN ({_marks(models)})",
            *chunk,
            *models,
        )
        found += [RemoteCard(*row) for row in rows]
    return found


def changed_notes(
    db: DBProxy, models: Sequence[int], since: int | None, also: Sequence[str] = ()
) -> list[RemoteNote]:
    """Our notes changed since `since`, and the notes `also` names (GUIDs)."""
    if not models:
        return []
    where, args = _since("n", since)
    rows = list(
        db.all(
            f"SELECT id, guid, mid, flds, mod FROM notes n WHERE {where} "
            f"AND mid IN ({_marks(models)})",
            *args,
            *models,
        )
    )
    for chunk in _chunks(list(also)):
        rows += db.all(
            f"SELECT id, guid, mid, flds, mod FROM notes WHERE guid IN ({_marks(chunk)}) "
            f"AND mid IN ({_marks(models)})",
            *chunk,
            *models,
        )
    seen: dict[str, RemoteNote] = {}
    for nid, guid, mid, fields, mod in rows:
        seen[guid] = RemoteNote(nid, guid, mid, tuple(fields.split("\x1f")), mod)
    return list(seen.values())


def field_names(db: DBProxy, mid: int) -> list[str]:
    """The field names of a notetype, in order."""
    return [
        str(name) for name in db.list("SELECT name FROM fields WHERE ntid = ? ORDER BY ord", mid)
    ]


def note_ids(db: DBProxy, models: Sequence[int]) -> dict[str, int]:
    """GUID -> note id of every one of our notes."""
    if not models:
        return {}
    rows = db.all(f"SELECT guid, id FROM notes WHERE mid IN ({_marks(models)})", *models)
    return {guid: nid for guid, nid in rows}


def deleted_note_ids(db: DBProxy, since: int) -> list[int]:
    """Note ids of the notes deleted since `since` (Anki's graves; ours are picked later)."""
    return [
        int(oid) for oid in db.list("SELECT oid FROM graves WHERE type = 1 AND usn >= ?", since)
    ]


def revlog_ids(db: DBProxy, ids: Sequence[int]) -> set[int]:
    """Which of these revlog ids the collection holds."""
    found: set[int] = set()
    for chunk in _chunks(list(ids)):
        found.update(
            int(i) for i in db.list(f"SELECT id FROM revlog WHERE id IN ({_marks(chunk)})", *chunk)
        )
    return found


def revlog_ids_between(db: DBProxy, low: int, high: int) -> set[int]:
    """Every revlog id from `low` to `high` (the whole collection's)."""
    return {int(i) for i in db.list("SELECT id FROM revlog WHERE id BETWEEN ? AND ?", low, high)}

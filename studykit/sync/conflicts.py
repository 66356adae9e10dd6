"""Notes changed in Anki: YAML is the master copy, so an edit or a deletion there is a conflict.

An edited note (its fields differ from those studykit imported) keeps the edit in Anki until
the card changes in the YAML, when the import replaces it; a deleted note stays deleted
until then (it is left out of the package) while its schedule stays here. Both are reported
at every sync while they last.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from studykit.srs.records import to_us
from studykit.sync.remote import changed_notes, deleted_note_ids, field_names, note_ids
from studykit.sync.state import Conflict, HeldNote, SyncState, field_hashes

if TYPE_CHECKING:
    from studykit.study.session import StudySession
    from studykit.sync.account import SyncPaths
    from studykit.sync.mirror import Mirror

__all__ = ["ConflictNews", "detect_conflicts", "plain"]

_TAG = re.compile(r"<[^>]*>")


def plain(text: str, limit: int = 60) -> str:
    """A field's HTML as one short line of text."""
    flat = " ".join(html.unescape(_TAG.sub(" ", text)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass
class ConflictNews:
    """Conflicts found by this sync, and those that ended."""

    edited: list[Conflict] = field(default_factory=list)
    deleted: list[Conflict] = field(default_factory=list)
    resolved: list[Conflict] = field(default_factory=list)


def detect_conflicts(
    session: StudySession,
    mirror: Mirror,
    state: SyncState,
    paths: SyncPaths,
    models: Sequence[int],
    since: int | None,
) -> ConflictNews:
    """Find notes edited or deleted in Anki since `since` (None: compare everything)."""
    news = ConflictNews()
    now_us = to_us(session.now())
    open_conflicts = state.conflicts()
    edited_before = [g for g, c in open_conflicts.items() if c.kind == "edited"]
    notes = changed_notes(mirror.db, models, since, also=edited_before)
    held = state.notes([note.guid for note in notes])
    names: dict[int, list[str]] = {}
    found: list[Conflict] = []
    for note in notes:
        mine = held.get(note.guid)
        if mine is None:
            continue
        now = field_hashes(note.fields)
        before = open_conflicts.get(note.guid)
        if now == mine.fields:
            if before is not None and before.kind == "edited":
                news.resolved.append(before)
            continue
        if note.mid not in names:
            names[note.mid] = field_names(mirror.db, note.mid)
        detail = _edit_detail(mine, note.fields, names[note.mid])
        conflict = Conflict(
            note.guid,
            "edited",
            mine.deck_id,
            mine.card_id,
            before.since_us if before is not None else now_us,
            None,
            detail,
        )
        found.append(conflict)
        if before is None:
            news.edited.append(conflict)
    state.put_conflicts(found)
    state.drop_conflicts(c.guid for c in news.resolved)
    gone = _deleted(mirror, state, models, since)
    if gone:
        digests = _digests(paths, [note.guid for note in gone])
        deleted = [
            Conflict(n.guid, "deleted", n.deck_id, n.card_id, now_us, digests.get(n.guid), "")
            for n in gone
            if n.rank == 0  # a computed card's other variants go quietly with it
        ]
        state.put_conflicts(deleted)
        state.drop_notes(note.guid for note in gone)
        news.deleted = deleted
    return news


def _edit_detail(mine: HeldNote, fields: Sequence[str], names: Sequence[str]) -> str:
    """Which fields changed, and the first one's text as Anki has it now."""
    before = mine.fields.split(" ")
    changed = [
        index
        for index, text in enumerate(fields)
        if index >= len(before) or field_hashes([text]) != before[index]
    ]
    if not changed:
        return "fields"
    label = ", ".join(names[i] if i < len(names) else f"field {i + 1}" for i in changed)
    first = changed[0]
    return f'{label}: "{plain(fields[first])}"'


def _deleted(
    mirror: Mirror, state: SyncState, models: Sequence[int], since: int | None
) -> list[HeldNote]:
    """Our notes deleted in Anki: by Anki's graves, or (reading everything) by their absence."""
    if since is not None:
        nids = deleted_note_ids(mirror.db, since)
        return list(state.notes_by_nid(nids).values()) if nids else []
    held = state.notes()
    if not held:
        return []
    present = note_ids(mirror.db, models)
    if not any(guid in present for guid in held):
        # None of ours is there: a server new to studykit, not a mass deletion.
        state.drop_notes(list(held))
        return []
    return [note for guid, note in held.items() if guid not in present]


def _digests(paths: SyncPaths, guids: Sequence[str]) -> dict[str, str]:
    """The content digest each note had when studykit last wrote it (the sync's ledger)."""
    from studykit.export.ledger import ExportLedger

    known = ExportLedger(paths.ledger).notes().known
    return {guid: known[guid][1] for guid in guids if guid in known}

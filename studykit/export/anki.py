"""An Anki package of a plan: which notes go out, the GUIDs Anki knows them by, and reusing
the package kept from the last export when nothing changed.

Note GUIDs come from deck id + card id (+ variant seed), so a re-import updates notes instead
of adding copies. The package timestamp is the time of the export unless a caller (a test)
passes one: Anki only applies updates that are newer. Building a package (genanki) is
`apkgfile.py`, imported only when one is built.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from studykit.export.history import ExportSource
from studykit.export.ledger import ExportLedger
from studykit.export.plan import ExportPlan, PlannedNote
from studykit.export.removed import with_removed
from studykit.export.reuse import KeptCounts, KeptPackage, package_digest

if TYPE_CHECKING:
    from studykit.export.apkgfile import Written

_BASE91 = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;<=>?@[]^_`{|}~"
)
_BASE91_PAIRS = [high + low for high in _BASE91 for low in _BASE91]


def note_guid(key: tuple[str, ...]) -> str:
    """genanki's `guid_for(*key)`: a 64-bit hash of the key in base 91, two digits at a time."""
    value = int.from_bytes(hashlib.sha256("__".join(key).encode()).digest()[:8], "big")
    digits = ""
    while value >= len(_BASE91_PAIRS):
        value, pair = divmod(value, len(_BASE91_PAIRS))
        digits = _BASE91_PAIRS[pair] + digits
    if value >= len(_BASE91):
        return _BASE91_PAIRS[value] + digits
    return _BASE91[value] + digits if value else digits


def note_digest(planned: PlannedNote, deck_name: str) -> str:
    """What a note's content hashes to; a change makes the note newer for Anki."""
    parts = (planned.model, deck_name, *planned.fields, " ".join(planned.tags))
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


@dataclass(frozen=True)
class PackageCounts:
    """What a written package holds."""

    path: Path
    decks: int
    notes: int
    cards: int
    revlog: int = 0
    removed: tuple[str, ...] = ()
    reused: bool = False
    """Nothing changed since the last export: its kept package was copied."""
    unchanged: bool = False
    """Reused, and the file at `path` already was that package: nothing was written."""
    written: Mapping[str, PlannedNote] = field(default_factory=dict, compare=False)
    """The package's notes by GUID."""
    left_out: tuple[str, ...] = ()
    """GUIDs of `keep_out` notes left out of the package (their content is unchanged)."""


def write_package(
    plan: ExportPlan,
    path: Path,
    *,
    timestamp: float | None = None,
    ledger: ExportLedger | None = None,
    source: ExportSource | None = None,
    removed_from: Collection[str] | None = (),
    progress: Callable[[int], None] | None = None,
    media_files: Sequence[Path] = (),
    keep_out: Mapping[str, str] | None = None,
) -> PackageCounts:
    """Write `plan` as an `.apkg` at `path` (a temporary file, then a rename).

    `media_files` go into the package under their file names (the names the fields use).
    `keep_out` maps GUIDs to a content digest (`note_digest`): such a note is left out of
    the package while its content still has that digest (a note deleted in a synced Anki
    stays deleted until its card changes); the ledger records it as written all the same.

    With a `ledger`, each note's modification time is when its content last changed;
    without, every note has the package's time (`timestamp`, default now). With a `source`,
    decks get their presets and, if it has scheduling, cards their schedule and history.
    Notes the ledger has from an earlier export of the decks `removed_from` (None: any deck)
    and that are gone now go out once more, tagged removed.
    """
    now = int(time.time() if timestamp is None else timestamp)
    guids = [note_guid(planned.guid_key) for planned in plan.notes]

    def build(plan: ExportPlan, guids: list[str], stamps: dict[str, int]) -> Written:
        from studykit.export.apkgfile import write_apkg  # genanki: only when one is built

        return write_apkg(plan, Path(path), guids, stamps, now, source, progress, media_files)

    if ledger is None:
        names = {d.id: d.name for d in plan.decks}
        plan_out, guids_out, left = _left_out(plan, guids, keep_out, names)
        counts = _counts(plan_out, guids_out, build(plan_out, guids_out, {}))
        return replace(counts, left_out=left)
    book = ledger.notes()
    if removed_from is None or removed_from:
        current = len(plan.notes)
        plan = with_removed(plan, book.gone(set(guids), removed_from))
        guids += [note_guid(planned.guid_key) for planned in plan.notes[current:]]
    names = {d.id: d.name for d in plan.decks}
    digests = {
        guid: note_digest(planned, names[planned.deck_id])
        for guid, planned in zip(guids, plan.notes, strict=True)
    }
    with book.stamping(plan, guids, digests, now) as stamps:
        plan, guids, left = _left_out(plan, guids, keep_out, names, digests)
        key = package_digest(plan, guids, digests, stamps, now, timestamp, source, media_files)
        kept = KeptPackage(ledger.path)
        reused = kept.reuse(key, Path(path))
        if reused is not None:
            if progress is not None:
                progress(len(plan.notes))
            found = reused.counts
            return PackageCounts(
                Path(path),
                found.decks,
                found.notes,
                found.cards,
                revlog=found.revlog,
                removed=plan.removed,
                reused=True,
                unchanged=reused.unchanged,
                written=dict(zip(guids, plan.notes, strict=True)),
                left_out=left,
            )
        counts = _counts(plan, guids, build(plan, guids, stamps))
        kept.keep(
            key, counts.path, KeptCounts(counts.decks, counts.notes, counts.cards, counts.revlog)
        )
        return replace(counts, left_out=left)


def _left_out(
    plan: ExportPlan,
    guids: list[str],
    keep_out: Mapping[str, str] | None,
    names: Mapping[str, str],
    digests: Mapping[str, str] | None = None,
) -> tuple[ExportPlan, list[str], tuple[str, ...]]:
    """The plan and GUIDs without the `keep_out` notes whose digest is unchanged; their GUIDs."""
    if not keep_out:
        return plan, guids, ()
    left: list[str] = []
    notes: list[PlannedNote] = []
    kept: list[str] = []
    for guid, planned in zip(guids, plan.notes, strict=True):
        wanted = keep_out.get(guid)
        if wanted is not None:
            digest = (digests or {}).get(guid) or note_digest(planned, names[planned.deck_id])
            if digest == wanted:
                left.append(guid)
                continue
        notes.append(planned)
        kept.append(guid)
    return replace(plan, notes=tuple(notes)), kept, tuple(left)


def _counts(plan: ExportPlan, guids: list[str], written: Written) -> PackageCounts:
    return PackageCounts(
        path=written.path,
        decks=written.decks,
        notes=len(plan.notes),
        cards=written.cards,
        revlog=written.revlog,
        removed=plan.removed,
        written=dict(zip(guids, plan.notes, strict=True)),
    )

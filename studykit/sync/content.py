"""Content into the mirror: studykit's own package, imported by Anki's importer.

The package is the export's (`export_anki`, no scheduling: states go out by `push`), with
its own ledger in the sync folder, so a note's modification time is when its YAML changed.
Anki's importer updates a note only when the package's is newer: a note edited in Anki keeps
the edit until its card changes in the YAML, as the conflict report says. Notes deleted in
Anki are left out of the package while their content is unchanged. Presets are written
directly (the importer keeps an existing preset as it is). Nothing runs when nothing the
package is made of has changed since the last import.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import studykit
from studykit.content.loading.library import yaml_files
from studykit.core.jsontypes import JsonObject
from studykit.export.presets import FSRS6_PARAMETERS, deck_options, preset_id
from studykit.sync.remote import model_ids, note_ids
from studykit.sync.state import Conflict, HeldNote, SyncState, field_hashes

if TYPE_CHECKING:
    from studykit.content.loading.problems import LoadProblem
    from studykit.study.session import StudySession
    from studykit.sync.account import SyncPaths
    from studykit.sync.mirror import Mirror

__all__ = ["ContentResult", "bring_content", "content_key"]

VARIANTS = 3
"""Baked variants per computed card, as `studykit export anki` bakes by default."""


@dataclass
class ContentResult:
    """What an import brought into the mirror."""

    imported: bool = False
    added: int = 0
    updated: int = 0
    presets: int = 0
    brought_back: list[Conflict] = field(default_factory=list)
    new_guids: list[str] = field(default_factory=list)
    replaced: list[Conflict] = field(default_factory=list)
    """Notes edited in Anki whose card changed in the YAML since: the YAML's text is back."""
    removed: int = 0
    """Cards gone from the YAML, sent once more tagged studykit::removed."""
    media: int = 0
    """Images and plots the package carried into the mirror's media folder."""


def _stat(path: os.PathLike[str] | str) -> list[int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return [found.st_size, found.st_mtime_ns]


def content_key(session: StudySession, keep_out: dict[str, str]) -> str:
    """A digest of everything the package is made of: the YAML files and images (by stat),
    the deck options and memory models, the cached experiment results, what is left out."""
    library = session.library
    problems: list[LoadProblem] = []
    files = [
        (rel, _stat(path))
        for folder in ("content", "decks")
        for path, rel in yaml_files(library.root, folder, problems)
    ]
    settings = session.settings
    material: JsonObject = {
        "version": studykit.__version__,
        "variants": VARIANTS,
        "root": str(library.root),
        "files": files,
        "watched": [(str(path), _stat(path)) for path in library.watched],
        "options": [
            settings.desired_retention,
            settings.new_per_day,
            settings.reviews_per_day,
            [s.total_seconds() for s in settings.learning_steps],
            [s.total_seconds() for s in settings.relearning_steps],
            settings.leech_lapses,
        ],
        "models": sorted(
            (scope, str(model["fitted_at"]))
            for scope, model in session.store.memory_models().items()
        ),
        "results": session.store.experiment_count(),
        "keep_out": sorted(keep_out.items()),
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True, default=str).encode()).hexdigest()


def bring_content(
    session: StudySession,
    mirror: Mirror,
    state: SyncState,
    paths: SyncPaths,
    *,
    force: bool = False,
) -> ContentResult:
    """Import studykit's package into the mirror when its content changed (or `force`)."""
    from anki.collection import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    from studykit.export import export_anki
    from studykit.export.ledger import ExportLedger

    conflicts = state.conflicts()
    edited = {guid: c for guid, c in conflicts.items() if c.kind == "edited"}
    held_before = state.notes(list(edited))
    keep_out = {guid: c.digest for guid, c in conflicts.items() if c.kind == "deleted" and c.digest}
    key = content_key(session, keep_out)
    if not force and key == state.get("content"):
        return ContentResult()
    result = export_anki(
        session.library,
        paths.package,
        variants=VARIANTS,
        ledger=ExportLedger(paths.ledger),
        session=session,
        scheduling=False,
        plot_dir=session.settings.data_dir / "plots",
        keep_out=keep_out,
    )
    options = ImportAnkiPackageOptions(
        merge_notetypes=True,
        with_scheduling=False,
        with_deck_configs=True,
    )
    log = mirror.run_local(
        lambda: mirror.col.import_anki_package(
            ImportAnkiPackageRequest(package_path=str(paths.package), options=options)
        )
    ).log
    found = ContentResult(
        imported=True, added=len(log.new), updated=len(log.updated), removed=len(result.removed)
    )
    if result.media is not None:
        found.media = result.media.images + result.media.plots
    nids = note_ids(mirror.db, model_ids(mirror.db))  # a first import brings our notetypes
    new_ids = {note.id.nid for note in log.new}
    found.new_guids = [guid for guid, nid in nids.items() if nid in new_ids]
    ranks: dict[tuple[str, str], int] = {}
    held: list[HeldNote] = []
    for guid, planned in result.written.items():
        ref = (planned.deck_id, planned.card_id)
        rank = ranks.get(ref, 0)
        ranks[ref] = rank + 1
        held.append(
            HeldNote(
                guid,
                planned.deck_id,
                planned.card_id,
                rank,
                nids.get(guid),
                field_hashes(planned.fields),
            )
        )
    state.put_notes(held)
    for guid, conflict in edited.items():
        now, before, nid = result.written.get(guid), held_before.get(guid), nids.get(guid)
        if now is None or before is None or nid is None:
            continue
        if field_hashes(now.fields) == before.fields:
            continue  # the card is as it was in the YAML: the edit stays in Anki
        _overwrite(mirror, nid, now.fields)  # however new the edit in Anki is
        found.replaced.append(conflict)
    state.drop_conflicts(c.guid for c in found.replaced)
    back = [c for guid, c in conflicts.items() if c.kind == "deleted" and guid in result.written]
    if back:
        state.drop_conflicts(c.guid for c in back)
        found.brought_back = back
    found.presets = _update_presets(session, mirror)
    state.set(
        content=content_key(session, {g: d for g, d in keep_out.items() if g not in result.written})
    )
    return found


def _overwrite(mirror: Mirror, nid: int, fields: Sequence[str]) -> None:
    """Give one of our notes in the mirror the fields the YAML says."""
    from anki.notes import NoteId

    note = mirror.col.get_note(NoteId(nid))
    if list(note.fields) != list(fields) and len(note.fields) == len(fields):
        note.fields = list(fields)
        mirror.run_local(lambda: mirror.col.update_note(note))


_PRESET_FIELDS = (
    ("desiredRetention",),
    ("fsrsParams6",),
    ("new", "perDay"),
    ("new", "delays"),
    ("rev", "perDay"),
    ("lapse", "delays"),
    ("lapse", "leechFails"),
)


def _update_presets(session: StudySession, mirror: Mirror) -> int:
    """Write each deck's retention, limits, steps and FSRS parameters into its preset."""
    from anki.decks import DeckConfigId

    decks = mirror.col.decks
    changed = 0
    for deck in session.library.decks.values():
        preset = preset_id(deck.id)
        conf = decks.get_config(DeckConfigId(preset))
        if conf is None or conf.get("id") != preset:  # no preset of ours (Anki falls back)
            continue
        options = deck_options(deck, session.settings, session.fsrs_parameters(deck.id))
        params = list(options.fsrs_parameters)
        wanted: dict[tuple[str, ...], Any] = {
            ("desiredRetention",): options.desired_retention,
            ("fsrsParams6",): params if len(params) == FSRS6_PARAMETERS else [],
            ("new", "perDay"): options.new_per_day,
            ("new", "delays"): [s.total_seconds() / 60 for s in options.learning_steps],
            ("rev", "perDay"): options.reviews_per_day,
            ("lapse", "delays"): [s.total_seconds() / 60 for s in options.relearning_steps],
            ("lapse", "leechFails"): options.leech_lapses,
        }
        dirty = False
        for path in _PRESET_FIELDS:
            holder = conf
            for part in path[:-1]:
                holder = holder.setdefault(part, {})
            if not _same(holder.get(path[-1]), wanted[path]):
                holder[path[-1]] = wanted[path]
                dirty = True
        if dirty:
            decks.update_config(conf)
            changed += 1
    return changed


def _same(have: Any, want: Any) -> bool:
    if isinstance(want, list) and isinstance(have, list):
        return len(have) == len(want) and all(
            abs(float(a) - float(b)) < 1e-6 for a, b in zip(have, want, strict=True)
        )
    if isinstance(want, float) and isinstance(have, int | float):
        return abs(float(have) - want) < 1e-9
    return bool(have == want)

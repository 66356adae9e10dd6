"""Export decks to Anki: `export_anki` plans the notes and writes the `.apkg`.

Importing this package is cheap; genanki is imported only when a package is written.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from studykit.content.loading import Library
    from studykit.core.config import Settings
    from studykit.experiments.cache import ExperimentCache
    from studykit.export.history import ExportSource
    from studykit.export.ledger import ExportLedger
    from studykit.export.media import MediaReport, PlotProgress
    from studykit.export.plan import PlannedNote
    from studykit.study.session import StudySession


REUSED = "Unchanged since the last export; package reused."
COPIED = "Nothing changed since the last export: its package was copied here, not built again."


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote, and the computed cards that went out as a formula only."""

    path: Path
    decks: int
    notes: int
    cards: int
    unbaked: tuple[str, ...]
    removed: tuple[str, ...] = ()
    revlog: int = 0
    scheduled: bool = False
    reused: bool = False
    """Nothing changed since the last export: the package kept from it was copied."""
    unchanged: bool = False
    """Reused, and `path` already held that package (the last export went there)."""
    media: MediaReport | None = field(default=None, compare=False)
    """Images and plots packed, plots drawn, skipped, and experiments without a result."""
    ledger_damage: tuple[str, ...] = ()
    """What the export ledger had lost (damaged, rebuilt now), one line per kind."""
    written: Mapping[str, PlannedNote] = field(default_factory=dict, compare=False, repr=False)
    """The package's notes by GUID (what a sync tells its mirror's notes by)."""
    left_out: tuple[str, ...] = ()
    """GUIDs of `keep_out` notes left out, their content unchanged."""


def export_anki(
    library: Library,
    path: Path,
    *,
    deck_ids: Sequence[str] = (),
    variants: int = 3,
    ledger: ExportLedger | None = None,
    timestamp: float | None = None,
    session: StudySession | None = None,
    settings: Settings | None = None,
    scheduling: bool = True,
    progress: Callable[[int], None] | None = None,
    cache: ExperimentCache | None = None,
    plot_dir: Path | None = None,
    plot_progress: PlotProgress | None = None,
    keep_out: Mapping[str, str] | None = None,
) -> ExportResult:
    """Write the decks (all, or `deck_ids`) as an Anki package; `progress(n)` per n cards.

    Each deck gets an FSRS preset from its options (the `session`'s settings, else
    `settings`). With a `session` and `scheduling`, cards carry their schedule and history.
    Card images are packed; cards linked to an experiment with a result in `cache` (default:
    the `session`) carry its plot, drawn into `plot_dir` unless drawn there before, with
    `plot_progress` told how many are drawn. Notes in `keep_out` (GUID -> content digest)
    are left out while their content is unchanged (`write_package`).
    """
    with tempfile.TemporaryDirectory(prefix="studykit-media-") as staging:
        return _export(
            library,
            path,
            deck_ids=deck_ids,
            variants=variants,
            ledger=ledger,
            timestamp=timestamp,
            session=session,
            settings=settings,
            scheduling=scheduling,
            progress=progress,
            cache=cache if cache is not None else session,
            plot_dir=plot_dir,
            plot_progress=plot_progress,
            staging=Path(staging),
            keep_out=keep_out,
        )


def _export(
    library: Library,
    path: Path,
    *,
    deck_ids: Sequence[str],
    variants: int,
    ledger: ExportLedger | None,
    timestamp: float | None,
    session: StudySession | None,
    settings: Settings | None,
    scheduling: bool,
    progress: Callable[[int], None] | None,
    cache: ExperimentCache | None,
    plot_dir: Path | None,
    plot_progress: PlotProgress | None,
    staging: Path,
    keep_out: Mapping[str, str] | None = None,
) -> ExportResult:
    from studykit.export.anki import write_package
    from studykit.export.history import default_source, session_source
    from studykit.export.ledger import damage_lines
    from studykit.export.media import MediaPack
    from studykit.export.plan import ExportPlan, plan_export, render_field, selected_decks
    from studykit.export.variants import variant_source

    decks = selected_decks(library, deck_ids)
    if ledger is not None:
        ledger.damaged.clear()  # this export's findings only
    media = MediaPack(library.root, staging, cache=cache, plot_dir=plot_dir)
    fields = ledger.field_cache() if ledger is not None else None
    parts = [  # deck by deck, so that the cache knows which deck used which field
        plan_export(
            library,
            [deck],
            variants=variants,
            variant_source=variant_source(),
            progress=progress,
            media=media,
            render=fields.for_deck(deck.id) if fields is not None else render_field,
        )
        for deck in decks
    ]
    plan = ExportPlan(
        decks=tuple(deck for part in parts for deck in part.decks),
        notes=tuple(note for part in parts for note in part.notes),
        unbaked=tuple(ref for part in parts for ref in part.unbaked),
    )
    media.draw_missing(plot_progress)
    source: ExportSource | None = None
    if session is not None:
        source = session_source(session, decks, scheduling=scheduling)
    elif settings is not None:
        source = default_source(decks, settings)
    counts = write_package(
        plan,
        path,
        timestamp=timestamp,
        ledger=ledger,
        source=source,
        removed_from=[deck.id for deck in decks] if deck_ids else None,
        media_files=media.files(),
        keep_out=keep_out,
    )
    if fields is not None and ledger is not None:
        ledger.keep_html(fields, library.decks.keys())
    return ExportResult(
        path=counts.path,
        decks=counts.decks,
        notes=counts.notes,
        cards=counts.cards,
        unbaked=plan.unbaked,
        removed=counts.removed,
        revlog=counts.revlog,
        scheduled=source is not None and source.scheduling is not None,
        reused=counts.reused,
        unchanged=counts.unchanged,
        media=media.report,
        ledger_damage=tuple(damage_lines(ledger.damaged)) if ledger is not None else (),
        written=counts.written,
        left_out=counts.left_out,
    )

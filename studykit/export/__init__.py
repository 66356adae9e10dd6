"""Export decks to Anki: `export_anki` plans the notes and writes the `.apkg`.

Importing this package is cheap; genanki is imported only when a package is written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from studykit.config import Settings
    from studykit.export.history import ExportSource
    from studykit.export.ledger import ExportLedger
    from studykit.loading import Library
    from studykit.session import StudySession


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
) -> ExportResult:
    """Write the decks (all, or `deck_ids`) as an Anki package; `progress(n)` per n cards.

    Each deck gets an FSRS preset from its options (the `session`'s settings, else
    `settings`). With a `session` and `scheduling`, cards carry their schedule and history.
    """
    from studykit.export.anki import write_package
    from studykit.export.history import default_source, session_source
    from studykit.export.plan import plan_export, render_field, selected_decks
    from studykit.export.variants import variant_source

    decks = selected_decks(library, deck_ids)
    cache = ledger.field_cache() if ledger is not None else None
    plan = plan_export(
        library,
        decks,
        variants=variants,
        variant_source=variant_source(),
        progress=progress,
        render=cache.render if cache is not None else render_field,
    )
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
    )
    if cache is not None and ledger is not None:
        ledger.keep_html(cache)
    return ExportResult(
        path=counts.path,
        decks=counts.decks,
        notes=counts.notes,
        cards=counts.cards,
        unbaked=plan.unbaked,
        removed=counts.removed,
        revlog=counts.revlog,
        scheduled=source is not None and source.scheduling is not None,
    )

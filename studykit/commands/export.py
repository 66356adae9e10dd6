"""`studykit export anki`: decks to an Anki package that re-imports as updates."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from studykit.commands.support import EXIT_PROBLEM, check_deck, fail, settings_from

if TYPE_CHECKING:
    from studykit.export.summary import SummaryLine

# Below this many cards an export takes well under a second: no progress bar.
_PROGRESS_FROM = 500


@click.group()
def export() -> None:
    """Export decks to other tools."""


@export.command("anki")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="The .apkg file to write (default: studykit.apkg, or DECK-ID.apkg for one deck).",
)
@click.option("--deck", "deck_ids", multiple=True, metavar="ID", help="Export only this deck.")
@click.option(
    "--variants",
    type=click.IntRange(1, 100),
    default=3,
    show_default=True,
    help="Seeded variants baked per computed card.",
)
@click.option(
    "--scheduling/--no-scheduling",
    default=True,
    show_default=True,
    help="Carry your review history, due dates and suspensions (off: share the decks as new).",
)
@click.pass_context
def anki(
    ctx: click.Context,
    output: Path | None,
    deck_ids: tuple[str, ...],
    variants: int,
    scheduling: bool,
) -> None:
    """Write decks as an Anki package (.apkg).

    Importing it again after you edit a card updates that note in Anki instead of adding a
    copy. Import it in Anki with "Import any learning progress" and "Import any deck presets"
    to keep your schedule and each deck's FSRS preset. Files that fail to load are reported
    on stderr and make the exit status 1.

    Images the cards show are packed. A card linked to an experiment carries the plot of
    its cached result (drawn with matplotlib, the `plots` extra); experiments never run
    here, and those without a cached result are listed with the command that runs them.
    """
    from studykit.content.loading import load_library
    from studykit.export import export_anki
    from studykit.export.ledger import ExportLedger
    from studykit.export.plan import selected_decks
    from studykit.export.summary import summary_lines
    from studykit.srs.store import Store
    from studykit.study.session import StudySession

    settings = settings_from(ctx)
    library = load_library(settings.root)
    for deck_id in deck_ids:
        check_deck(library, deck_id)
    decks = selected_decks(library, deck_ids)
    for problem in library.problems:
        click.echo(f"studykit: {problem}", err=True)
    if not decks:
        fail(f"no decks to export under {settings.root}", EXIT_PROBLEM)
    if output is None:
        output = Path(f"{decks[0].id}.apkg" if len(decks) == 1 else "studykit.apkg")
    total = sum(len(deck.cards) for deck in decks)
    bar: Any = (
        click.progressbar(length=total, label="Exporting", file=sys.stderr)
        if total >= _PROGRESS_FROM
        else nullcontext()
    )
    # No study database yet: nothing was reviewed or run, so no history and no cached results.
    has_database = settings.database_path.exists()
    has_history = scheduling and has_database
    session = (
        StudySession(library, Store.open(settings.database_path), settings)
        if has_database
        else None
    )
    try:
        with bar:
            result = export_anki(
                library,
                output,
                deck_ids=[deck.id for deck in decks],
                variants=variants,
                ledger=ExportLedger.in_data_dir(settings.data_dir),
                session=session if has_history else None,
                settings=settings,
                scheduling=scheduling,
                progress=bar.update if total >= _PROGRESS_FROM else None,
                cache=session,
                plot_dir=settings.data_dir / "plots",
                plot_progress=_plot_bar if sys.stderr.isatty() else None,
            )
    finally:
        if session is not None:
            session.close()
    for line in summary_lines(result):
        _echo(line)
    if library.problems:
        raise SystemExit(EXIT_PROBLEM)


@contextmanager
def _plot_bar(count: int) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr while `count` plots are drawn."""
    with click.progressbar(length=count, label="Drawing plots", file=sys.stderr) as bar:
        yield bar.update


def _echo(line: SummaryLine) -> None:
    """A line said on stdout; a problem on stderr, with the commands that fix it under it."""
    if line.kind == "said":
        click.echo(line.text)
    else:
        click.echo(
            f"studykit: {line.text}" if line.kind == "problem" else f"  {line.text}", err=True
        )

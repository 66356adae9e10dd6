"""`studykit export anki`: decks to an Anki package that re-imports as updates."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from studykit.commands.support import (
    EXIT_INTERRUPTED,
    EXIT_PROBLEM,
    EXIT_USAGE,
    check_deck,
    fail,
    settings_from,
)

if TYPE_CHECKING:
    from studykit.content.loading import Library
    from studykit.core.config import Settings
    from studykit.export.media import MissingRun
    from studykit.export.summary import SummaryLine
    from studykit.study.session import StudySession

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
    help="The .apkg file to write, in a folder that exists (default: studykit.apkg, or "
    "DECK-ID.apkg for one deck).",
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
@click.option(
    "--run-experiments",
    is_flag=True,
    help="First run the linked experiments that have no cached result (in child processes, "
    "within experiment_budget each), so that every linked card carries its plot.",
)
@click.pass_context
def anki(
    ctx: click.Context,
    output: Path | None,
    deck_ids: tuple[str, ...],
    variants: int,
    scheduling: bool,
    run_experiments: bool,
) -> None:
    """Write decks as an Anki package (.apkg).

    Importing it again after you edit a card updates that note in Anki instead of adding a
    copy. Import it in Anki with "Import any learning progress" and "Import any deck presets"
    to keep your schedule and each deck's FSRS preset. Files that fail to load are reported
    on stderr and make the exit status 1.

    Images the cards show are packed. A card linked to an experiment carries the plot of
    its cached result (drawn with matplotlib, the `plots` extra); experiments run only with
    --run-experiments, and otherwise the export says how many have no cached result.
    """
    from studykit.content.loading import load_library
    from studykit.export import export_anki
    from studykit.export.ledger import ExportLedger
    from studykit.export.plan import selected_decks
    from studykit.export.summary import summary_lines

    if output is not None:
        _check_output(output)
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
    # No study database yet: nothing was reviewed or run, so no history and no cached results
    # (unless the runs are to be cached now, which makes one).
    has_database = settings.database_path.exists() or run_experiments
    has_history = scheduling and has_database
    session = _open_session(library, settings) if has_database else None
    failed: list[str] = []
    try:
        if session is not None and run_experiments:
            failed = _run_experiments(session, settings, [deck.id for deck in decks], variants)
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
    if library.problems or failed:
        raise SystemExit(EXIT_PROBLEM)


def _open_session(library: Library, settings: Settings) -> StudySession:
    """The study session whose history and cached results go out (imported only then: a
    first export, with no study database, skips them)."""
    from studykit.srs.store import Store
    from studykit.study.session import StudySession

    return StudySession(library, Store.open(settings.database_path), settings)


def _check_output(output: Path) -> None:
    """Exit 2 unless `output` names a .apkg file in a folder that exists (none is made)."""
    if output.suffix.lower() != ".apkg":
        fail(
            f"-o {output}: an Anki package is named *.apkg, e.g. -o {output.stem}.apkg", EXIT_USAGE
        )
    folder = output.parent
    if not folder.is_dir():
        fail(f"-o {output}: there is no folder {folder} (the export makes none)", EXIT_USAGE)


def _run_experiments(
    session: StudySession, settings: Settings, deck_ids: list[str], variants: int
) -> list[str]:
    """Run the linked experiments without a cached result, behind a progress bar; say which
    failed (and return them)."""
    from studykit.core.errors import describe_error
    from studykit.experiments.errors import TorchMissing
    from studykit.export.runs import missing_runs, run_missing

    runs = missing_runs(session.library, deck_ids, variants=variants, cache=session)
    if not runs:
        return []

    def shown(run: MissingRun | None) -> str | None:
        return None if run is None else run.experiment

    label = f"Running {len(runs)} experiment(s)"
    try:
        with click.progressbar(
            length=len(runs), label=label, file=sys.stderr, item_show_func=shown
        ) as bar:
            failed = run_missing(
                runs,
                session,
                budget=settings.experiment_budget,
                starting=lambda run: bar.update(0, run),
                done=lambda _run: bar.update(1),
            )
    except TorchMissing as error:
        fail(describe_error(error), EXIT_PROBLEM)
    except KeyboardInterrupt:
        fail(
            "interrupted; the runs done so far are cached, no package was written", EXIT_INTERRUPTED
        )
    for failure in failed:  # before the export's own lines, which count what has no plot
        click.echo(f"studykit: {failure}", err=True)
    return failed


@contextmanager
def _plot_bar(count: int) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr while `count` plots are drawn."""
    with click.progressbar(length=count, label="Drawing plots", file=sys.stderr) as bar:
        yield bar.update


def _echo(line: SummaryLine) -> None:
    """A line said on stdout; a problem on stderr."""
    if line.kind == "said":
        click.echo(line.text)
    else:
        click.echo(f"studykit: {line.text}", err=True)

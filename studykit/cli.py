"""The `studykit` command line.

Imports stay light: `studykit --help` and `import studykit.cli` load neither textual nor
torch, sympy or genanki; the app and the core are imported inside the commands.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from studykit import __version__
from studykit.commands.support import (
    EXIT_PROBLEM,
    EXIT_USAGE,
    GlobalOptions,
    check_deck,
    fail,
    settings_from,
)
from studykit.commands.usage import StudykitGroup
from studykit.core.jsontypes import JsonObject
from studykit.core.terminal import json_text

if TYPE_CHECKING:
    from studykit.content.loading import LoadProblem
    from studykit.core.config import Settings

_DIR = click.Path(file_okay=False, dir_okay=True, path_type=Path)


def _run_app(settings: Settings, *, start: str, deck_id: str | None = None) -> None:
    from studykit.tui.launch import launch

    app = launch(settings, start=start, deck_id=deck_id)
    app.run()
    code = app.return_code or 0
    if code:
        raise SystemExit(code)


@click.group(
    cls=StudykitGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(
    __version__, "--version", prog_name="studykit", message="%(prog)s %(version)s"
)
@click.option(
    "--data-dir",
    type=_DIR,
    help="Where your review history lives (env STUDYKIT_DATA_DIR).",
)
@click.option(
    "--root",
    type=_DIR,
    help="Folder holding content/ and decks/ (env STUDYKIT_ROOT; default: the bundled subject).",
)
@click.pass_context
def cli(ctx: click.Context, data_dir: Path | None, root: Path | None) -> None:
    """Study notes and flashcards in the terminal, on a spaced-repetition schedule.

    Without a command, opens the app on the deck list.
    """
    ctx.obj = GlobalOptions(root=root, data_dir=data_dir)
    if ctx.invoked_subcommand is None:
        _run_app(settings_from(ctx), start="home")


@cli.command()
@click.option("--deck", "deck_id", metavar="ID", help="Review only this deck (default: all).")
@click.pass_context
def review(ctx: click.Context, deck_id: str | None) -> None:
    """Open the app straight into review."""
    settings = settings_from(ctx)
    if deck_id is not None:
        from studykit.content.loading import load_library

        check_deck(load_library(settings.root), deck_id)
    _run_app(settings, start="review", deck_id=deck_id)


def _problem_json(problem: LoadProblem) -> JsonObject:
    return {
        "path": problem.path,
        "line": problem.line,
        "column": problem.column,
        "message": problem.message,
        "hint": problem.hint,
    }


def _deck_table(rows: Sequence[JsonObject]) -> list[str]:
    from studykit.core.terminal import table_lines

    headers = ("ID", "NAME", "NEW", "LEARN", "DUE", "TOTAL")
    keys = ("id", "name", "new", "learning", "due", "total")
    return table_lines(headers, ([row[k] for k in keys] for row in rows), right={2, 3, 4, 5})


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.pass_context
def decks(ctx: click.Context, as_json: bool) -> None:
    """List decks with today's new, learning and due counts.

    Files that fail to load are reported on stderr and make the exit status 1.
    """
    from studykit.study.session import StudySession

    session = StudySession.open(settings_from(ctx))
    try:
        rows = [
            {
                "id": c.deck_id,
                "name": c.name,
                "new": c.new,
                "learning": c.learning,
                "due": c.due,
                "total": c.total,
                "suspended": c.suspended,
            }
            for c in session.deck_counts()
        ]
        problems = session.library.problems
    finally:
        session.close()
    if as_json:
        document = {"decks": rows, "problems": [_problem_json(p) for p in problems]}
        click.echo(json_text(document))
    elif rows:
        click.echo("\n".join(_deck_table(rows)))
    else:
        click.echo("No decks found.", err=True)
    for problem in problems:
        click.echo(f"studykit: {problem}", err=True)
    if problems:
        raise SystemExit(EXIT_PROBLEM)


# Subcommands that live in studykit/commands/ (one module each); each registers itself here.
from studykit.commands.check import check  # noqa: E402

cli.add_command(check)
from studykit.commands.quiz import quiz  # noqa: E402

cli.add_command(quiz)
from studykit.commands.experiment import experiment  # noqa: E402

cli.add_command(experiment)
from studykit.commands.export import export  # noqa: E402

cli.add_command(export)
from studykit.commands.importing import import_group  # noqa: E402

cli.add_command(import_group)
from studykit.commands.schema import schema  # noqa: E402

cli.add_command(schema)
from studykit.commands.show import show  # noqa: E402

cli.add_command(show)
from studykit.commands.cards import cards  # noqa: E402
from studykit.commands.suspend import suspend, unsuspend  # noqa: E402

cli.add_command(cards)

cli.add_command(suspend)
cli.add_command(unsuspend)
from studykit.commands.doctor import doctor  # noqa: E402

cli.add_command(doctor)
from studykit.commands.memory import optimize, simulate, workload  # noqa: E402

cli.add_command(optimize)
cli.add_command(simulate)
cli.add_command(workload)
from studykit.commands.sync import sync  # noqa: E402

cli.add_command(sync)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: run the command line, turning our errors into one line on stderr."""
    from studykit.core.errors import StudykitError, describe_error

    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="studykit")
    except StudykitError as error:
        fail(describe_error(error), _error_code(error))
    except (OSError, sqlite3.Error) as error:
        fail(describe_error(error), EXIT_PROBLEM)
    except KeyboardInterrupt:
        raise SystemExit(130) from None


def _error_code(error: BaseException) -> int:
    """Bad settings are bad input (2); anything else that went wrong is 1."""
    from studykit.core.config import ConfigError

    return EXIT_USAGE if isinstance(error, ConfigError) else EXIT_PROBLEM


if __name__ == "__main__":  # pragma: no cover
    main()

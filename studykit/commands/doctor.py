"""`studykit doctor`: check the study database, finish a checkpoint, list and restore backups."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from studykit.commands.support import EXIT_OK, EXIT_PROBLEM, fail, settings_from


def _size(path: Path) -> str:
    try:
        size = path.stat().st_size
    except OSError:
        return "?"
    return f"{size / 1024:.1f} KB" if size < 1_048_576 else f"{size / 1_048_576:.1f} MB"


@click.command()
@click.option(
    "--restore",
    "restore_name",
    metavar="NAME",
    help="Replace the database with this backup (a name from the list, or `newest`).",
)
@click.option("--backup", "backup_now", is_flag=True, help="Take a backup now.")
@click.option(
    "--export-log",
    "export_to",
    metavar="FILE",
    help="Write the review log as JSON lines to FILE (`-` for stdout) and stop.",
)
@click.pass_context
def doctor(
    ctx: click.Context, restore_name: str | None, backup_now: bool, export_to: str | None
) -> None:
    """Check the study database and list its backups; restore one with --restore.

    Runs SQLite's integrity check, finishes a pending WAL checkpoint and counts the reviews.
    Backups live in `<data dir>/backups/`: one at the first open of each day (keep the last
    `backups_kept` in config.toml, default 10) and one before each schema upgrade. A restore
    keeps the replaced files in `backups/replaced-…/` first; close the app before restoring.
    Exit 0 healthy, 1 a problem found.
    """
    from studykit.srs import doctor as work
    from studykit.srs.backups import list_backups

    settings = settings_from(ctx)
    path = settings.database_path
    if export_to is not None:
        _export(path, export_to)
        return
    if restore_name is not None:
        chosen = work.choose(path, restore_name)
        kept = work.restore(path, chosen)
        click.echo(f"restored {chosen.name}; the replaced files are in {kept}")
    if backup_now:
        click.echo(f"backup: {work.backup_now(path, keep=settings.backups_kept or 10).path}")
    health = work.examine(path)
    click.echo(f"database: {path} ({_size(path)})")
    click.echo("integrity: ok" if not health.problems else "integrity: PROBLEMS")
    for line in health.problems:
        click.echo(f"  {line}")
    click.echo(f"checkpoint: {health.checkpoint}")
    if health.reviews is not None:
        click.echo(f"reviews: {health.reviews}")
    backups = list_backups(path)
    click.echo(f"backups: {len(backups)} in {path.parent / 'backups'}" + (":" if backups else ""))
    for backup in backups:
        click.echo(f"  {backup.name}  {backup.taken:%Y-%m-%d %H:%M} UTC  {_size(backup.path)}")
    if health.problems and backups:
        click.echo(f"to restore the newest: studykit doctor --restore newest ({backups[0].name})")
    raise SystemExit(EXIT_PROBLEM if health.problems else EXIT_OK)


def _export(path: Path, target: str) -> None:
    """`--export-log`: JSON lines to a file (written whole, through a rename) or stdout."""
    from studykit.srs.doctor import export_log

    if target == "-":
        export_log(path, sys.stdout)
        return
    out = Path(target)
    partial = out.with_name(f".{out.name}.partial")
    try:
        with partial.open("w", encoding="utf-8") as stream:
            count = export_log(path, stream)
        partial.replace(out)
    except OSError as error:
        partial.unlink(missing_ok=True)
        fail(f"{out}: cannot write ({error.strerror or error})", EXIT_PROBLEM)
    click.echo(f"wrote {count} review(s) to {out}", err=True)

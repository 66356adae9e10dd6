"""`studykit doctor`: check the study database, finish a checkpoint, restore or salvage it."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from studykit.commands.support import EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, fail, settings_from


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
@click.option(
    "--salvage",
    is_flag=True,
    help="Copy every row still readable from a damaged database into a new one in its place.",
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
    ctx: click.Context,
    restore_name: str | None,
    salvage: bool,
    backup_now: bool,
    export_to: str | None,
) -> None:
    """Check the study database and list its backups; restore one with --restore.

    Runs SQLite's integrity check, finishes a pending WAL checkpoint and counts the reviews.
    Backups live in `<data dir>/backups/`: one at the first open of each day (keep the last
    `backups_kept` in config.toml, default 10) and one before each schema upgrade. A restore
    or a salvage keeps the files it replaces in `backups/` first, and is refused while any
    studykit has the database open. Exit 0 healthy, 1 a problem found, 2 bad input.
    """
    from studykit.srs import doctor as work
    from studykit.srs.backups import list_backups

    settings = settings_from(ctx)
    path = settings.database_path
    if export_to is not None:
        _export(path, export_to)
        return
    if restore_name is not None and salvage:
        fail("--restore and --salvage are two ways back: choose one", EXIT_USAGE)
    lost = False
    if restore_name is not None:
        try:
            chosen = work.choose(path, restore_name)
        except work.NoSuchBackup as error:
            fail(str(error), EXIT_USAGE)
        kept = work.restore(path, chosen)
        click.echo(f"restored {chosen.name}; the replaced files are in {kept}")
    if salvage:
        lost = _salvage(path)
    if backup_now:
        click.echo(f"backup: {work.backup_now(path, keep=settings.backups_kept or 10).path}")
    health = work.examine(path)
    click.echo(f"database: {path} ({_size(path)})")
    if health.read_only is not None:
        click.echo(f"read-only: {health.read_only}; checked without writing anything")
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
    if health.problems and path.is_file() and path.stat().st_size > 0:
        click.echo("to copy every row still readable into a new file: studykit doctor --salvage")
    bad = health.problems or health.checkpoint_failed or lost
    raise SystemExit(EXIT_PROBLEM if bad else EXIT_OK)


def _salvage(path: Path) -> bool:
    """`--salvage`: report what was kept; True when rows were lost."""
    from studykit.srs.doctor import salvage

    report, kept = salvage(path)
    rebuilt = f" ({report.rebuilt} rebuilt from their last answer)" if report.rebuilt else ""
    click.echo(
        f"salvaged: {report.reviews} review(s), {report.kept.get('card_state', 0) + report.rebuilt}"
        f" card schedule(s){rebuilt}, {report.kept.get('forget_log', 0)} forget(s), "
        f"{report.kept.get('memory_model', 0)} memory model(s), "
        f"{report.kept.get('experiment_cache', 0)} cached experiment(s)"
    )
    issued = report.issued_reviews
    if issued is not None and issued > report.reviews:
        click.echo(
            f"  review ids up to {issued} were handed out: at most {issued - report.reviews} "
            "review(s) are missing (undone answers among them)"
        )
    skipped, rejected = sum(report.damaged.values()), sum(report.rejected.values())
    if skipped or rejected:
        click.echo(
            f"  {skipped} damaged stretch(es) could not be read; {rejected} row(s) read but "
            "not valid were left out"
        )
    click.echo(f"the damaged files are kept in {kept}")
    return bool(skipped or rejected)


def _export(path: Path, target: str) -> None:
    """`--export-log`: JSON lines to a file (written whole, through a rename) or stdout."""
    from studykit.srs.doctor import export_log

    if target == "-":
        count, damaged = export_log(path, sys.stdout)
    else:
        out = Path(target)
        partial = out.with_name(f".{out.name}.partial")
        try:
            with partial.open("w", encoding="utf-8") as stream:
                count, damaged = export_log(path, stream)
            partial.replace(out)
        except OSError as error:
            partial.unlink(missing_ok=True)
            fail(f"{out}: cannot write ({error.strerror or error})", EXIT_PROBLEM)
        click.echo(f"wrote {count} review(s) to {out}", err=True)
    if damaged:
        fail(
            f"{path} is damaged: {damaged} stretch(es) of the review log could not be read "
            f"and are missing from the {count} exported; `studykit doctor --salvage` copies "
            "every readable row into a new database",
            EXIT_PROBLEM,
        )

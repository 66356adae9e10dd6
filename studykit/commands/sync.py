"""`studykit sync`: reviews both ways through Anki's own sync (AnkiWeb or a self-hosted server).

Nothing here imports `anki` at start-up: the sync code is imported inside each command.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from studykit.commands.support import EXIT_PROBLEM, EXIT_USAGE, fail, settings_from
from studykit.core.terminal import json_text, terminal_safe

if TYPE_CHECKING:
    from studykit.sync.account import SyncPaths
    from studykit.sync.status import SyncStatus


def _paths(ctx: click.Context) -> SyncPaths:
    from studykit.sync.account import SyncPaths

    return SyncPaths.in_data_dir(settings_from(ctx).data_dir)


def _failed(error: Exception) -> None:
    from studykit.sync.errors import SyncFailed

    code = EXIT_USAGE if isinstance(error, SyncFailed) and error.usage else EXIT_PROBLEM
    fail(str(error), code)


@click.group("sync", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.option("--yes", is_flag=True, help="Upload to an empty server without asking.")
@click.option(
    "--enable-fsrs",
    is_flag=True,
    help="Switch FSRS on in the Anki collection (for all its decks) when it is off.",
)
@click.pass_context
def sync(ctx: click.Context, as_json: bool, yes: bool, enable_fsrs: bool) -> None:
    """Sync your reviews with Anki: one sync, then what moved.

    Answers given in Anki (AnkiDroid, AnkiMobile, Anki desktop) come in, answers given here
    go out, and studykit's notes go into the Anki collection. Log in first with
    `studykit sync login`. YAML stays the master copy of the cards: a note edited or deleted
    in Anki is reported as a conflict with the card's file:line.
    """
    if ctx.invoked_subcommand is not None:
        return
    from studykit.study.session import StudySession
    from studykit.sync.errors import SyncFailed
    from studykit.sync.run import SyncOptions, run_sync

    settings = settings_from(ctx)
    paths = _paths(ctx)
    interactive = sys.stdin.isatty() and not as_json
    confirm: Callable[[str], bool] | None = None
    if interactive:
        confirm = lambda question: click.confirm(question, default=False, err=True)  # noqa: E731
    progress: Callable[[str], None] | None = None
    if sys.stderr.isatty() and not as_json:
        progress = lambda text: click.echo(text, err=True)  # noqa: E731
    options = SyncOptions(
        yes=yes, enable_fsrs=enable_fsrs, confirm_upload=confirm, progress=progress
    )
    session = StudySession.open(settings)
    try:
        report = run_sync(session, paths, options)
    except SyncFailed as error:
        _failed(error)
        return
    finally:
        session.close()
    if as_json:
        click.echo(json_text(report.as_json()))
    else:
        click.echo("\n".join(report.lines()))
    for problem in session.library.problems:
        click.echo(f"studykit: {problem}", err=True)
    if session.library.problems:
        raise SystemExit(EXIT_PROBLEM)


@sync.command("login")
@click.option("--endpoint", metavar="URL", help="A self-hosted sync server (default: AnkiWeb).")
@click.option("--username", metavar="NAME", help="The account (AnkiWeb: your e-mail).")
@click.pass_context
def login(ctx: click.Context, endpoint: str | None, username: str | None) -> None:
    """Log in to AnkiWeb or a self-hosted server; the key it returns is kept, not the password.

    The password comes from a prompt, or from STUDYKIT_SYNC_PASSWORD for scripts.
    """
    from studykit.sync.account import PASSWORD_ENV, normal_endpoint, write_key
    from studykit.sync.errors import SyncFailed
    from studykit.sync.mirror import login as backend_login

    paths = _paths(ctx)
    try:
        url = normal_endpoint(endpoint) if endpoint is not None else None
    except SyncFailed as error:
        _failed(error)
        return
    password = os.environ.get(PASSWORD_ENV)
    if username is None or password is None:
        if not sys.stdin.isatty():
            fail(
                f"no {'user name' if username is None else 'password'}: give --username and set "
                f"{PASSWORD_ENV}, or run this in a terminal",
                EXIT_USAGE,
            )
        username = username or click.prompt("User name (AnkiWeb: your e-mail)", err=True)
        password = password or click.prompt("Password", hide_input=True, err=True)
    assert username is not None and password is not None
    try:
        key = backend_login(paths, username, password, url)
        write_key(paths, key)
    except SyncFailed as error:
        _failed(error)
        return
    click.echo(
        f"Logged in to {terminal_safe(key.server)} as {terminal_safe(username)}. The password "
        f"was not stored; the key the server returned is in {paths.key} (readable by you only)."
    )


@sync.command("logout")
@click.pass_context
def logout(ctx: click.Context) -> None:
    """Forget the stored key (the mirror collection stays until a login to another account)."""
    from studykit.sync.account import forget_key, read_key
    from studykit.sync.errors import SyncFailed

    paths = _paths(ctx)
    try:
        key = read_key(paths)
    except SyncFailed:
        key = None
    if not forget_key(paths):
        click.echo("Not logged in.")
        return
    who = f" of {terminal_safe(key.server)}" if key is not None else ""
    click.echo(
        f"Logged out{who}; the key is deleted. The mirror collection stays in {paths.folder}."
    )


@sync.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.pass_context
def status(ctx: click.Context, as_json: bool) -> None:
    """Who is logged in, the last sync, what waits to go out, open conflicts, the server."""
    from studykit.sync.status import sync_status

    settings = settings_from(ctx)
    try:
        found = sync_status(settings, _paths(ctx))
    except Exception as error:  # a SyncFailed or a store error: one line
        from studykit.core.errors import StudykitError

        if isinstance(error, StudykitError):
            _failed(error)
            return
        raise
    if as_json:
        click.echo(json_text(found))
        return
    click.echo("\n".join(_status_lines(found)))


def _status_lines(found: SyncStatus) -> list[str]:
    if found["account"] is None:
        return ["Not logged in: `studykit sync login` (AnkiWeb) or `--endpoint URL`."]
    lines = [
        f"Logged in to {terminal_safe(found['server'] or '')} as "
        f"{terminal_safe(found['username'] or '')}."
    ]
    lines.append(f"Mirror collection: {found['mirror']} ({found['notes']} studykit notes).")
    last = found["last"]
    if last is None:
        lines.append("Not synced yet.")
    else:
        lines.append(
            f"Last sync {last['at']}: {last['answers_in']} answer(s) in, {last['answers_out']} out."
        )
    lines.append(
        f"Waiting to go out: {found['unsent_answers']} answer(s), "
        f"{found['unsent_states']} card state(s)."
    )
    if found["fsrs"] is False:
        lines.append("FSRS is off in the Anki collection (`studykit sync --enable-fsrs`).")
    for conflict in found["conflicts"]:
        lines.append(f"  {terminal_safe(conflict)}")
    lines.append(f"Server: {terminal_safe(found['server_status'])}.")
    return lines


@sync.command("obsidian")
@click.argument(
    "vault", type=click.Path(exists=True, file_okay=False, dir_okay=True, path_type=Path)
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.pass_context
def obsidian(ctx: click.Context, vault: Path, as_json: bool) -> None:
    """The Obsidian Spaced Repetition plugin's schedules both ways, for cards from VAULT.

    The plugin's newer <!--SR:...--> schedules (every sibling) come in as answers; studykit's
    schedules go into the SR comments of the cards imported from that vault. Only the
    comment changes; each changed note is kept as NOTE.md.bak first, and a note that changed
    since it was read is left alone.
    """
    from dataclasses import asdict

    from studykit.core.errors import StudykitError
    from studykit.importers.vault import VaultTooLarge
    from studykit.study.session import StudySession
    from studykit.sync.obsidian import sync_obsidian

    session = StudySession.open(settings_from(ctx))
    try:
        report = sync_obsidian(session, vault)
    except VaultTooLarge as error:
        fail(f"{vault}: {error}", EXIT_USAGE)
    except StudykitError as error:
        _failed(error)
        return
    finally:
        session.close()
    if as_json:
        click.echo(json_text(asdict(report)))
    else:
        click.echo("\n".join(terminal_safe(line) for line in report.lines()))
    if report.refused:
        raise SystemExit(EXIT_PROBLEM)

"""What every subcommand shares: exit codes, global options, settings, failing cleanly."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

if TYPE_CHECKING:
    from studykit.content.loading import Library
    from studykit.core.config import Settings

EXIT_OK = 0
EXIT_PROBLEM = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl-C


@dataclass(frozen=True)
class GlobalOptions:
    """Global options, passed to every command through the click context."""

    root: Path | None
    data_dir: Path | None


def fail(message: str, code: int) -> NoReturn:
    """Print `studykit: error: message` on stderr and exit with `code`."""
    from studykit.core.terminal import one_line

    click.echo(f"studykit: error: {one_line(message)}", err=True)
    raise SystemExit(code)


def settings_from(ctx: click.Context) -> Settings:
    """Resolve settings from the global options, the environment and config.toml."""
    from studykit.core.config import resolve_settings

    options = ctx.find_object(GlobalOptions) or GlobalOptions(root=None, data_dir=None)
    return resolve_settings(root=options.root, data_dir=options.data_dir)


def check_deck(library: Library, deck_id: str) -> None:
    """Exit 2 with the known ids when `deck_id` names no loaded deck."""
    if deck_id in library.decks:
        return
    known = ", ".join(sorted(library.decks)) or "(none loaded)"
    fail(f"unknown deck {deck_id!r}; known deck ids: {known}", EXIT_USAGE)

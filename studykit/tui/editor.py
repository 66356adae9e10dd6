"""Opening a card's YAML in the user's editor at its line, the app handed over meanwhile."""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, SuspendNotSupported

from studykit.core.errors import StudykitError

if TYPE_CHECKING:
    from studykit.study.card import StudyCard

NO_EDITOR = "Set $EDITOR to open cards in your editor (e.g. `export EDITOR=nano`)."


class EditorError(StudykitError):
    """The editor could not be started, or it failed; the message says which and why."""


def editor_argv(path: Path, line: int, environ: Mapping[str, str]) -> list[str]:
    """`$VISUAL` (else `$EDITOR`) split as a shell would, then `+LINE PATH` (vi, nano, emacs)."""
    raw = (environ.get("VISUAL") or environ.get("EDITOR") or "").strip()
    if not raw:
        raise EditorError(NO_EDITOR)
    try:
        words = shlex.split(raw)
    except ValueError as error:
        raise EditorError(f"$EDITOR cannot be read ({error}): {raw!r}") from error
    return [*words, f"+{max(1, line)}", str(path)]


def _handed_over(app: App[object]) -> AbstractContextManager[None]:
    """The terminal handed to the editor; headless (tests) there is no terminal to hand over."""
    return nullcontext() if app.is_headless else app.suspend()


def edit_at(app: App[object], path: Path, line: int, environ: Mapping[str, str]) -> None:
    """Run the editor on `path` at `line` and wait for it (EditorError if it cannot or fails)."""
    argv = editor_argv(path, line, environ)
    where = f"{path}:{line}"
    try:
        with _handed_over(app):
            result = subprocess.run(argv, check=False)
    except SuspendNotSupported as error:
        raise EditorError(
            f"This terminal cannot hand over to an editor; the card is at {where}"
        ) from error
    except OSError as error:
        raise EditorError(
            f"Could not start the editor `{argv[0]}`: {error.strerror or error}"
        ) from error
    if result.returncode != 0:
        raise EditorError(
            f"The editor `{argv[0]}` exited with status {result.returncode} ({where})."
        )


def edit_card(app: App[object], root: Path, card: StudyCard, environ: Mapping[str, str]) -> bool:
    """Open `card`'s YAML (under `root`) at its line; False, said in a notification, if not."""
    origin = card.card.origin
    if origin is None:
        app.notify("This card was not loaded from a file.", severity="warning")
        return False
    try:
        edit_at(app, root / origin.path, origin.line, environ)
    except EditorError as error:
        app.notify(str(error), severity="error", markup=False)
        return False
    return True

"""A deck's options (daily limits, desired retention) read from its YAML file and written back.

Only a file the loader loaded is written, and only when it still holds the bytes read
before the edit. The new text changes the options' value tokens and nothing else
(`yamledit`), must load again through the project's own loader with the new values, and
replaces the file atomically: a temporary file beside it, fsynced, then renamed over it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from dataclasses import dataclass, fields
from pathlib import Path

from studykit.content.yamledit import EditRefused, number_values, set_numbers
from studykit.core.files import FileRefused, read_regular

__all__ = ["DeckFile", "DeckOptions", "EditRefused", "read_deck_file", "write_options"]

# The deck's top-level keys in the order the format documents them (content/model.py's
# `Deck`): a missing option is added after the one before it.
DECK_KEYS = (
    "id",
    "name",
    "note",
    "description",
    "tags",
    "desired_retention",
    "new_per_day",
    "reviews_per_day",
    "easy_days",
    "bury_new_siblings",
    "bury_review_siblings",
    "cards",
)


@dataclass(frozen=True)
class DeckOptions:
    """The options a deck file sets; None: not set there (config.toml's value applies)."""

    new_per_day: int | None = None
    reviews_per_day: int | None = None
    desired_retention: float | None = None

    def tokens(self) -> dict[str, str]:
        """The YAML token of each option that is set."""
        return {f.name: _token(v) for f in fields(self) if (v := getattr(self, f.name)) is not None}


def _token(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{value:.4g}"


@dataclass(frozen=True)
class DeckFile:
    """One deck's YAML as it was read before an edit: where it is, its bytes, its options."""

    deck_id: str
    path: Path
    rel: str
    data: bytes
    options: DeckOptions


def _options(text: str) -> DeckOptions:
    found = number_values(text, [f.name for f in fields(DeckOptions)])
    try:
        return DeckOptions(
            new_per_day=int(found["new_per_day"]) if found.get("new_per_day") else None,
            reviews_per_day=int(found["reviews_per_day"]) if found.get("reviews_per_day") else None,
            desired_retention=(
                float(found["desired_retention"]) if found.get("desired_retention") else None
            ),
        )
    except ValueError as error:
        raise EditRefused(f"an option is not a plain number ({error}); edit it by hand") from error


def read_deck_file(root: Path, deck_id: str, rel: str) -> DeckFile:
    """Read the deck file the loader loaded from `root/rel` (a regular file inside `root`)."""
    path = root / rel
    if path.is_symlink() or not path.resolve().is_relative_to(root.resolve()):
        raise EditRefused(f"{rel} is a link; edit the file it points to by hand")
    try:
        data = read_regular(path)
        text = data.decode("utf-8")
    except (FileRefused, UnicodeDecodeError) as error:
        raise EditRefused(f"{rel}: {error}") from error
    return DeckFile(deck_id, path, rel, data, _options(text))


def write_options(file: DeckFile, options: DeckOptions) -> None:
    """Set the options in `options` that are not None (the others stay as the file has them),
    if the file still holds `file.data` and loads after the edit."""
    text = set_numbers(file.data.decode("utf-8"), options.tokens(), order=DECK_KEYS)
    data = text.encode("utf-8")
    directory = file.path.parent
    mode = stat.S_IMODE(os.stat(file.path).st_mode)
    temporary = directory / f".{file.path.name}.{secrets.token_hex(4)}.tmp"
    # Created anew (never over an existing file); hidden, so no load ever picks it up.
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as out:
            os.fchmod(out.fileno(), mode)
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        _check_loads(temporary, file, options)
        if read_regular(file.path) != file.data:
            raise EditRefused(
                f"{file.rel} changed since it was read; nothing was written. "
                "Press r to reload, then try again."
            )
        os.replace(temporary, file.path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    _sync_folder(directory)


def _check_loads(path: Path, file: DeckFile, options: DeckOptions) -> None:
    """The project's loader must load the new text as the same deck with the new options."""
    from studykit.content.loading.file import load_file
    from studykit.content.model import Deck

    loaded = load_file(path, file.rel, Deck)
    deck = loaded.model
    if loaded.problems or not isinstance(deck, Deck):
        first = loaded.problems[0] if loaded.problems else "it did not load"
        raise EditRefused(f"the edited file would not load ({first}); nothing was written")
    got = DeckOptions(deck.new_per_day, deck.reviews_per_day, deck.desired_retention).tokens()
    if deck.id != file.deck_id or any(got.get(k) != v for k, v in options.tokens().items()):
        raise EditRefused(f"{file.rel}: the edit did not give the options asked for; not written")


def _sync_folder(directory: Path) -> None:
    """Make the rename durable (a folder cannot be opened for fsync on some systems)."""
    with contextlib.suppress(OSError):
        descriptor = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)

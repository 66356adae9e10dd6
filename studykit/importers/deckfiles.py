"""Deck files the import writes: a header that marks them, and replacing no file but its own.

The first line names the sources, the notes whose cards the deck holds (each quoted by the YAML
library, so no name can end the comment), and a checksum of the rest: a file whose first line
parses, names one of the same notes and matches its checksum was written by this import and not
edited since, so a re-import may update it (a vault's deck gains and loses notes).
Any other file is refused, or with `force` kept as a fresh `.bak` first. Writes go through a
temporary file and a rename, so a crash leaves the old file or the new one, never half of one.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml

from studykit.core.files import FileRefused, read_regular, replace_atomically, special_kind

TOOL = "`studykit import obsidian`"
DECK_SUFFIXES = (".yaml", ".yml")
MAX_BACKUPS = 100
"""`NAME.bak`, `NAME.1.bak` … `NAME.99.bak`: past these, --force refuses instead of reusing one."""
_SECOND_LINE = (
    "# A re-import updates this file until it is edited by hand. Card ids come from the fronts;"
    " keep them (history hangs on them).\n"
)
_QUOTED = r'"(?:[^"\\]|\\.)*"'
_HEADER = re.compile(
    rf"# Imported from ({_QUOTED}(?:, {_QUOTED})*) by "
    + re.escape(TOOL)
    + r" \(sha256 ([0-9a-f]{16})\)\."
)
_CHUNK = 1 << 20


class WriteRefused(ValueError):
    """A deck file the import will not write; the message names it and says what to do."""


def quoted(text: str) -> str:
    """`text` as one double-quoted YAML scalar on one line (controls and line breaks escaped)."""
    out: str = yaml.dump(
        text, Dumper=yaml.SafeDumper, default_style='"', allow_unicode=True, width=1 << 30
    )
    line = out.removesuffix("\n")
    if len(line.splitlines()) != 1:  # the emitter escapes every break; a comment must not end
        raise ValueError(f"could not quote {text!r} on one line")
    return line


def _digest(rest: str) -> str:
    return hashlib.sha256(rest.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _names(sources: Sequence[str]) -> str:
    return ", ".join(quoted(source) for source in sources)


def with_header(sources: Sequence[str], body: str) -> str:
    """The deck file: the marking header (sources, checksum of what follows), then `body`."""
    rest = _SECOND_LINE + body
    return f"# Imported from {_names(sources)} by {TOOL} (sha256 {_digest(rest)}).\n" + rest


def _owner(text: str, sources: Sequence[str]) -> str | None:
    """None when `text` is this import of one of `sources`, unedited; else why it is not ours."""
    first, _, rest = text.partition("\n")
    match = _HEADER.fullmatch(first)
    named = _loaded(match.group(1)) if match else None
    if match is None and first.startswith("# Imported from ") and first.endswith(f"{TOOL}."):
        return f"was written by an older {TOOL}, with no checksum to tell an edit by"
    if match is None or named is None:
        return f"exists and was not written by {TOOL}"
    if not set(named) & set(sources):
        return f"holds the import of {_names(named)}, not of {_names(sources)}"
    if match.group(2) != _digest(rest):
        return f"was edited after {TOOL} wrote it"
    return None


def imported_sources(text: str) -> list[str] | None:
    """The notes a deck file says it was imported from (its first line), edited since or not."""
    match = _HEADER.fullmatch(text.partition("\n")[0])
    return _loaded(match.group(1)) if match else None


def _loaded(scalars: str) -> list[str] | None:
    """`"a.md", "b.md"` (a header's sources) -> the names; None if one does not parse."""
    try:
        value = yaml.safe_load(f"[{scalars}]")
    except yaml.YAMLError:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return value


@dataclass(frozen=True)
class Target:
    """One deck file to write: where (as given, and resolved), what, and what is there now."""

    path: Path
    real: Path
    document: str
    state: Literal["new", "same", "ours", "foreign"]
    why: str = ""  # for "foreign": why it is not ours
    seen: tuple[int, int, int] | None = None  # (inode, size, mtime) of the file planned over


def check_deck_name(path: Path) -> None:
    """Refuse an output file whose name is not a deck file's."""
    if not path.name.endswith(DECK_SUFFIXES):
        raise WriteRefused(
            f"{path}: a deck file ends in .yaml or .yml; give -o decks/NAME.yaml, or decks/ "
            "for a folder"
        )


def plan(path: Path, document: str, sources: Sequence[str], areas: list[Path]) -> Target:
    """What writing `document` (imported from `sources`) to `path` would replace.

    `areas` are the resolved folders writes may go to (the working folder first, then the
    --root given); a path outside them (links followed) and a path that is not a regular
    file are refused whatever `force` says.
    """
    real = path.resolve()
    if not any(real.is_relative_to(area) for area in areas):
        where = f"the working folder ({areas[0]})" + "".join(
            f" and the --root folder ({area})" for area in areas[1:]
        )
        raise WriteRefused(
            f"{path} is outside {where}; run the import from the study folder, "
            "or give --root FOLDER for the folder that holds it"
        )
    if not os.path.lexists(real):
        return Target(path, real, document, "new")
    kind = special_kind(real)
    if kind is not None or not real.exists():
        raise WriteRefused(
            f"{path} is {kind or 'a broken link'}, not a deck file; give -o another path"
        )
    seen = _seen(real)
    try:
        old = read_regular(real).decode("utf-8")
    except (FileRefused, UnicodeDecodeError):
        return Target(
            path, real, document, "foreign", f"exists and was not written by {TOOL}", seen
        )
    if old == document:
        return Target(path, real, document, "same", seen=seen)
    why = _owner(old, sources)
    return Target(path, real, document, "ours" if why is None else "foreign", why or "", seen)


def _seen(real: Path) -> tuple[int, int, int]:
    status = os.stat(real)
    return status.st_ino, status.st_size, status.st_mtime_ns


def write(target: Target) -> Path | None:
    """Write `target` (a foreign file is kept as a fresh .bak first); the backup's path."""
    if target.state == "same":
        return None
    now = _seen(target.real) if os.path.lexists(target.real) else None
    if now != target.seen:
        raise WriteRefused(f"{target.path} changed during the import; it was not replaced")
    backup = backup_copy(target.real) if target.state == "foreign" else None
    replace_atomically(target.real, target.document)
    return backup


def backup_copy(real: Path) -> Path:
    """Copy `real` to the first free `NAME.bak`, `NAME.1.bak`, …; never over an existing file."""
    for n in range(MAX_BACKUPS):
        backup = real.with_name(f"{real.name}.bak" if n == 0 else f"{real.name}.{n}.bak")
        try:
            descriptor = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        try:
            with os.fdopen(descriptor, "wb") as out, real.open("rb") as source:
                while chunk := source.read(_CHUNK):
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(backup, stat.S_IMODE(os.stat(real).st_mode))
        except OSError:
            backup.unlink(missing_ok=True)
            raise
        return backup
    raise WriteRefused(
        f"{real} already has {MAX_BACKUPS} backups ({real.name}.bak …); "
        "remove the old ones, or give -o another path"
    )

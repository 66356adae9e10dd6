"""Reading a file a user pointed at: regular files only, size-capped, never blocking; and
replacing one of ours atomically."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from studykit.core.errors import StudykitError

MAX_FILE_BYTES = 5 * 1024 * 1024
"""Larger files are refused unread: content files are small, and this bounds memory."""

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the stat still cannot block
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_BINARY", 0)
)


class FileRefused(StudykitError):
    """A file that was not read; the message says why (without the path) and `hint` what to do."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class FileTooLarge(FileRefused):
    """A file over the size limit, refused unread."""


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _refuse_special(mode: int) -> None:
    kind = _kind(mode)
    if kind is not None:
        raise FileRefused(
            f"this is {kind}, not a regular file; it was not read",
            "replace it with a plain file, or move it out of the way",
        )


def special_kind(path: Path) -> str | None:
    """`a folder`, `a named pipe (FIFO)`, ... for an existing non-regular file; else None."""
    try:
        return _kind(os.stat(path).st_mode)
    except OSError:
        return None


def link_leaves(path: Path, inside: Path) -> bool:
    """True when `path` is a link that resolves outside the folder `inside` (resolved), or nowhere.

    The one rule for links in folders we walk: the content loader and the Obsidian import.
    """
    if not path.is_symlink():
        return False
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return True
    return not target.is_relative_to(inside)


def _too_large(size: int, limit: int) -> FileTooLarge:
    return FileTooLarge(
        f"the file is {size / 1_048_576:.1f} MB, over the {limit / 1_048_576:g} MB limit"
    )


def read_regular(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them; else FileRefused.

    Folders, FIFOs, sockets and devices are refused before any open; the open itself is
    non-blocking and checked again on the open descriptor, so a swap in between cannot hang.
    """
    try:
        status = os.stat(path)
        _refuse_special(status.st_mode)
        if status.st_size > limit:
            raise _too_large(status.st_size, limit)
        descriptor = os.open(path, _OPEN_FLAGS)
    except OSError as error:
        raise FileRefused(f"cannot read the file: {error.strerror or error}") from error
    try:
        _refuse_special(os.fstat(descriptor).st_mode)
        data = _read_at_most(descriptor, limit + 1)
        if len(data) > limit:  # it grew after the stat
            raise _too_large(max(os.fstat(descriptor).st_size, len(data)), limit)
    except OSError as error:
        raise FileRefused(f"cannot read the file: {error.strerror or error}") from error
    finally:
        os.close(descriptor)
    return data


def _read_at_most(descriptor: int, count: int) -> bytes:
    """Up to `count` bytes from an open descriptor (fewer at the end of the file)."""
    chunks: list[bytes] = []
    left = count
    while left > 0:
        chunk = os.read(descriptor, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def replace_atomically(path: Path, text: str) -> None:
    """Write `text` to a fresh temporary file beside `path`, then rename it over `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(os.stat(path).st_mode) if path.exists() else None
    while True:
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(descriptor, "wb") as out:
            if mode is not None:
                os.fchmod(out.fileno(), mode)
            out.write(text.encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise

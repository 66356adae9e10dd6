"""Who has a study database open: each open Store holds an OS lock on a slot file of its own.

Beside `studykit.sqlite3` lies `studykit.sqlite3.locks/`: a `gate` file and `session-N` slot
files. A Store takes the gate for a moment, locks the first free slot (and writes its pid in
it) and keeps that lock until it closes; the OS drops it when the process dies, so a crash
never leaves a stale lock. A restore holds the gate (no session can start meanwhile) and
refuses while any slot is locked. Only exclusive locks are used, so one scheme serves
`fcntl.flock` (Linux, macOS) and `msvcrt.locking` (Windows).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO

from studykit.core.errors import StudykitError

MAX_SESSIONS = 64
GATE_WAIT_S = 10.0  # a restore copies the whole database while it holds the gate
# msvcrt locks byte ranges a reader cannot read; lock one byte far past the pid text.
_LOCKED_BYTE = 1 << 30

_ours: set[str] = set()  # slot files this process holds: they are not "another studykit"
_ours_lock = threading.Lock()


class DatabaseInUseError(StudykitError):
    """Another process has the study database open, so it cannot be replaced now."""


def lock_folder(database: Path) -> Path:
    """The folder holding the gate and slot files of `database`."""
    return database.parent / f"{database.name}.locks"


def _try_lock(stream: IO[bytes]) -> bool:
    """Lock `stream`'s file without waiting; False when another open file holds the lock."""
    try:
        if sys.platform == "win32":
            import msvcrt

            stream.seek(_LOCKED_BYTE)
            msvcrt.locking(stream.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(stream.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):
        return False
    except OSError:
        if sys.platform == "win32":  # msvcrt reports a held lock as EACCES or EDEADLOCK
            return False
        raise
    return True


def _unlock(stream: IO[bytes]) -> None:
    if sys.platform == "win32":
        import msvcrt

        stream.seek(_LOCKED_BYTE)
        msvcrt.locking(stream.fileno(), msvcrt.LK_UNLCK, 1)
    else:
        import fcntl

        fcntl.flock(stream.fileno(), fcntl.LOCK_UN)


def _open(path: Path) -> IO[bytes]:
    """Open (creating) a lock file for reading and writing, never truncating it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    return os.fdopen(fd, "r+b")


@contextmanager
def _gate(database: Path) -> Iterator[None]:
    """Hold `database`'s gate, waiting while a restore holds it."""
    folder = lock_folder(database)
    folder.mkdir(exist_ok=True)
    with _open(folder / "gate") as stream:
        deadline = time.monotonic() + GATE_WAIT_S
        while not _try_lock(stream):
            if time.monotonic() > deadline:
                raise DatabaseInUseError(
                    f"{database}: another studykit is restoring or salvaging it; try again "
                    "when `studykit doctor` has finished"
                )
            time.sleep(0.02)
        try:
            yield
        finally:
            _unlock(stream)


class SessionLock:
    """The slot a Store holds while it is open; `release()` (or the process ending) frees it."""

    def __init__(self, path: Path, stream: IO[bytes]) -> None:
        self.path = path
        self._stream: IO[bytes] | None = stream

    @classmethod
    def take(cls, database: Path) -> SessionLock:
        """Lock the first free slot of `database` (OSError when the folder cannot be written)."""
        with _gate(database):
            for number in range(MAX_SESSIONS):
                path = lock_folder(database) / f"session-{number}"
                stream = _open(path)
                if not _try_lock(stream):
                    stream.close()
                    continue
                stream.seek(0)
                stream.truncate()
                stream.write(f"{os.getpid()}\n".encode())
                stream.flush()
                with _ours_lock:
                    _ours.add(str(path.absolute()))
                return cls(path, stream)
        raise StudykitError(
            f"{database}: {MAX_SESSIONS} studykit sessions have it open at once; close some"
        )

    def release(self) -> None:
        """Give the slot back (idempotent)."""
        stream, self._stream = self._stream, None
        if stream is None:
            return
        with _ours_lock:
            _ours.discard(str(self.path.absolute()))
        stream.close()  # closing the file drops its lock

    def __del__(self) -> None:
        # A store dropped unclosed; at interpreter exit the module may be half torn down.
        with suppress(Exception):
            self.release()


def _holders(database: Path, *, skip_ours: bool) -> list[int | None]:
    """The pids (None where unreadable) holding slots of `database`."""
    try:
        slots = sorted(lock_folder(database).glob("session-*"))
    except OSError:
        return []
    held: list[int | None] = []
    for path in slots:
        if skip_ours:
            with _ours_lock:
                if str(path.absolute()) in _ours:
                    continue
        try:
            with _open(path) as stream:
                if _try_lock(stream):
                    _unlock(stream)
                    continue
        except OSError:
            continue  # a slot we cannot even open is no session of ours
        held.append(_pid(path))
    return held


def _pid(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def other_sessions(database: Path) -> list[int | None]:
    """Pids of the other processes that have `database` open (None: pid unknown)."""
    return _holders(database, skip_ours=True)


def describe(pids: list[int | None]) -> str:
    """`another studykit (pid 42)` / `3 other studykit sessions (pids 1, 2)`, for messages."""
    known = ", ".join(str(pid) for pid in pids if pid is not None)
    if len(pids) == 1:
        return f"another studykit{f' (pid {known})' if known else ''}"
    return f"{len(pids)} other studykit sessions{f' (pids {known})' if known else ''}"


@contextmanager
def exclusive(database: Path, doing: str) -> Iterator[None]:
    """Hold `database` for replacing it: no session is open, and none starts until the end.

    DatabaseInUseError, with nothing changed, while any process (this one too) has it open.
    """
    with _gate(database):
        held = _holders(database, skip_ours=False)
        if held:
            raise DatabaseInUseError(
                f"{database} is open in {describe(held)}; quit it, then {doing} again "
                "(nothing was changed)"
            )
        yield


def file_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at `path` now; None when there is none."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


@contextmanager
def holding(path: Path) -> Iterator[bool]:
    """Hold an exclusive lock on the file at `path` (created) while the block runs.

    The block gets False, holding nothing, when another open file holds the lock now.
    """
    with _open(path) as stream:
        held = _try_lock(stream)
        try:
            yield held
        finally:
            if held:
                _unlock(stream)

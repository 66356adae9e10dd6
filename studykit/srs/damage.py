"""Telling a damaged or emptied study database from a first run, and saying what to do."""

from __future__ import annotations

from pathlib import Path

from studykit.srs.backups import Backup, backup_folder, backup_reviews, list_backups

RESTORE = "`studykit doctor --restore newest`"
SALVAGE = "`studykit doctor --salvage`"
_CORRUPT, _NOTADB = 11, 26  # SQLite's primary result codes for a damaged file
_ABOUT_ACCESS = ("newer studykit", "cannot be written", "is read-only", "is open in")


def is_damage(error: BaseException) -> bool:
    """True for an SQLite error that says the file itself is damaged (not busy, not access)."""
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in (_CORRUPT, _NOTADB):
        return True
    text = str(error)
    return any(
        words in text for words in ("malformed", "file is not a database", "not a readable SQLite")
    )


def _backup_words(newest: Backup) -> str:
    reviews = backup_reviews(newest.path)
    counted = "" if reviews is None else f", {reviews} review(s)"
    return f"the newest backup is {newest.path} ({newest.taken:%Y-%m-%d %H:%M} UTC{counted})"


def with_hint(path: Path, text: str) -> str:
    """`text` about a database that cannot be used, naming the way back when it is damage."""
    if RESTORE in text or any(words in text for words in _ABOUT_ACCESS):
        return text
    backups = list_backups(path)
    salvage = f"{SALVAGE} copies every row still readable into a new file"
    if not backups:
        return f"{text}; {salvage}" if is_damage(Exception(text)) else text
    return (
        f"{text}; {_backup_words(backups[0])}: `studykit doctor` checks the file, "
        f"{RESTORE} restores it, {salvage}"
    )


def emptied(path: Path, *, no_tables: bool = False) -> str | None:
    """Why a missing or empty database is damage, not a first run; None when it is neither.

    `no_tables`: the file was read and holds no tables. A first run has no `backups/`:
    once that holds a backup the database existed, and an empty one in its place would show
    every card as new while the history sits in the backups (which retention then deletes).
    """
    try:
        size: int | None = path.stat().st_size
    except FileNotFoundError:
        size = None
    except OSError:
        return None  # unreadable for another reason: opening it says why
    if size and not no_tables:
        return None
    backups = list_backups(path)
    if not backups:
        return None
    what = (
        "is missing"
        if size is None
        else "is empty (0 bytes)"
        if size == 0
        else f"is empty ({size} bytes, no tables)"
    )
    return (
        f"{path} {what}, but {backup_folder(path)} holds {len(backups)} backup(s) of it: "
        f"{_backup_words(backups[0])}. Restore it with {RESTORE}; studykit will not start "
        "on an empty database in its place (nothing was changed)"
    )

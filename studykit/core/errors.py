"""The base of every error studykit shows to a user instead of a traceback, and its wording."""

from __future__ import annotations

import sqlite3


class StudykitError(Exception):
    """An error with a message written for the user: what went wrong and how to fix it."""


class ConfigError(StudykitError):
    """A setting that cannot be used: a missing folder or a bad value in config.toml."""


USER_ERRORS: tuple[type[Exception], ...] = (StudykitError, sqlite3.Error, OSError)
"""What a user can act on: shown as a message, never as a traceback."""


def describe_error(error: BaseException) -> str:
    """One or two lines saying what went wrong, for a user (the app and the command line)."""
    if isinstance(error, StudykitError):
        return str(error) or type(error).__name__
    if isinstance(error, sqlite3.Error):
        return f"The study database failed: {error}"
    if isinstance(error, OSError):
        if error.strerror:
            where = f": {error.filename}" if error.filename else ""
            return f"{error.strerror}{where}"
        return str(error) or type(error).__name__
    return f"Unexpected error ({type(error).__name__}): {error}"

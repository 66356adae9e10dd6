"""The base of every error studykit shows to a user instead of a traceback."""

from __future__ import annotations


class StudykitError(Exception):
    """An error with a message written for the user: what went wrong and how to fix it."""


class ConfigError(StudykitError):
    """A setting that cannot be used: a missing folder or a bad value in config.toml."""

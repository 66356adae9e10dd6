"""YAML notes and decks -> frozen models, with every problem located at file:line:col."""

from __future__ import annotations

from studykit.defaults import MAX_ALIAS_EXPANSION
from studykit.errors import StudykitError
from studykit.files import MAX_FILE_BYTES
from studykit.loading.library import Library, load_library
from studykit.loading.problems import LoadProblem

__all__ = [
    "MAX_ALIAS_EXPANSION",
    "MAX_FILE_BYTES",
    "Library",
    "LoadProblem",
    "StudykitError",
    "load_library",
]

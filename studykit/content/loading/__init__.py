"""YAML notes and decks -> frozen models, with every problem located at file:line:col."""

from __future__ import annotations

from studykit.content.loading.library import Library
from studykit.content.loading.load import load_library
from studykit.content.loading.problems import LoadProblem
from studykit.core.defaults import MAX_ALIAS_EXPANSION
from studykit.core.errors import StudykitError
from studykit.core.files import MAX_FILE_BYTES

__all__ = [
    "MAX_ALIAS_EXPANSION",
    "MAX_FILE_BYTES",
    "Library",
    "LoadProblem",
    "StudykitError",
    "load_library",
]

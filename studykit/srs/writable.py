"""Whether a file can be written where it lies, and if not, why, in words."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _existing_folder(path: Path) -> Path:
    """The nearest folder above `path` that exists."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def read_only_reason(path: Path) -> str | None:
    """Why `path` (or the folder it would go in) cannot be written, or None when it can."""
    if path.exists() and not os.access(path, os.W_OK):
        return f"the file {path} is read-only"
    folder = _existing_folder(path)
    try:
        with tempfile.TemporaryFile(dir=folder, prefix=".studykit-probe-"):
            pass
    except OSError as error:
        why = error.strerror or type(error).__name__
        return f"the folder {folder} cannot be written ({why})"
    return None

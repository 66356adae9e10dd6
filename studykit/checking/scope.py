"""What one check covers (a root and the files under it), and how its paths are shown."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Scope:
    """One root to load, and the files under it to report on (None: all of them)."""

    root: Path
    only: tuple[str, ...] | None

    def covers(self, rel: str) -> bool:
        if self.only is None:
            return True
        return any(rel == part or rel.startswith(part.rstrip("/") + "/") for part in self.only)


def shown_path(root: Path, rel: str) -> str:
    """The file's path as the user can open it: relative to the working folder when inside."""
    # Resolve the folder, not the file: a refused link is named as the link, not its target.
    path = (root / rel).parent.resolve() / Path(rel).name
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return os.fspath(path)

"""The app's remembered choices (theme, the browser's columns and sort) in `<data dir>/ui.json`.

Plain json checked by hand, not pydantic: the theme is read before the first screen, which
imports no pydantic. Read tolerantly: a broken file, or a broken value in it, is set aside
with a message and the default used; written atomically, keeping keys we do not know.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studykit.core.files import FileRefused, read_regular, replace_atomically

__all__ = [
    "PREFERENCES_FILENAME",
    "BrowserLayout",
    "Preferences",
    "read_preferences",
    "write_preferences",
]

PREFERENCES_FILENAME = "ui.json"
MAX_PREFERENCES_BYTES = 64 * 1024


@dataclass(frozen=True)
class BrowserLayout:
    """The browser's chosen columns (None: the default ones) and sort (None: deck order)."""

    columns: tuple[str, ...] | None = None
    sort: str | None = None
    descending: bool = False

    def as_json(self) -> dict[str, Any]:
        """The layout as ui.json holds it."""
        columns = None if self.columns is None else list(self.columns)
        return {"columns": columns, "sort": self.sort, "descending": self.descending}


@dataclass(frozen=True)
class Preferences:
    """What ui.json says, each value checked; `extra` keeps the keys we do not know."""

    theme: str | None = None
    browser: BrowserLayout = BrowserLayout()
    extra: tuple[tuple[str, Any], ...] = ()

    def as_json(self) -> dict[str, Any]:
        """The whole file's content."""
        return {**dict(self.extra), "theme": self.theme, "browser": self.browser.as_json()}


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= 100 else None


def _layout(value: object, problems: list[str]) -> BrowserLayout:
    if value is None:
        return BrowserLayout()
    if not isinstance(value, dict):
        problems.append("`browser` is not an object")
        return BrowserLayout()
    raw_columns = value.get("columns")
    columns: tuple[str, ...] | None = None
    if isinstance(raw_columns, list) and all(_text(item) for item in raw_columns):
        columns = tuple(raw_columns)
    elif raw_columns is not None:
        problems.append("`browser.columns` is not a list of names")
    sort = _text(value.get("sort"))
    if value.get("sort") is not None and sort is None:
        problems.append("`browser.sort` is not a column name")
    descending = value.get("descending", False)
    if not isinstance(descending, bool):
        problems.append("`browser.descending` is not true or false")
        descending = False
    return BrowserLayout(columns, sort, descending)


def read_preferences(path: Path) -> tuple[Preferences, str]:
    """The preferences in `path` and what was wrong with the file (`` when nothing was).

    A missing file is no problem; an unreadable one gives the defaults, never an error.
    """
    if not path.exists():
        return Preferences(), ""
    try:
        data = json.loads(read_regular(path, MAX_PREFERENCES_BYTES).decode("utf-8"))
    except (FileRefused, UnicodeDecodeError, ValueError) as error:
        return Preferences(), f"{path} was not read ({error}); using the defaults."
    if not isinstance(data, dict):
        return Preferences(), f"{path} is not a JSON object; using the defaults."
    problems: list[str] = []
    theme = _text(data.get("theme"))
    if data.get("theme") is not None and theme is None:
        problems.append("`theme` is not a name")
    browser = _layout(data.get("browser"), problems)
    extra = tuple((key, value) for key, value in data.items() if key not in {"theme", "browser"})
    said = f"{path}: {'; '.join(problems)}; using the defaults for those." if problems else ""
    return Preferences(theme, browser, extra), said


def write_preferences(path: Path, preferences: Preferences) -> None:
    """Replace `path` with `preferences` atomically (OSError if it cannot be written)."""
    text = json.dumps(preferences.as_json(), indent=2, ensure_ascii=False) + "\n"
    replace_atomically(path, text)

"""Settings: where content and the database live, and the scheduling defaults.

Precedence: an explicit argument, then the environment (`STUDYKIT_ROOT`,
`STUDYKIT_DATA_DIR`), then the defaults (the bundled content, platformdirs'
user data dir). Scheduling values may be overridden in `<data_dir>/config.toml`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path

import platformdirs

import studykit
from studykit.core.budget import Budget
from studykit.core.easydays import NORMAL_WEEK, Loads
from studykit.core.errors import ConfigError
from studykit.core.files import FileRefused, read_regular

__all__ = [
    "APP_NAME",
    "CONFIG_FILENAME",
    "DATABASE_FILENAME",
    "ENV_DATA_DIR",
    "ENV_ROOT",
    "ConfigError",
    "Settings",
    "bundled_root",
    "resolve_settings",
]

ENV_ROOT = "STUDYKIT_ROOT"
ENV_DATA_DIR = "STUDYKIT_DATA_DIR"
CONFIG_FILENAME = "config.toml"
DATABASE_FILENAME = "studykit.sqlite3"
APP_NAME = "studykit"
_MAX_CONFIG_BYTES = 64 * 1024  # a handful of keys; anything larger is not a settings file


@dataclass(frozen=True)
class Settings:
    """Resolved settings; build them with `resolve_settings`."""

    root: Path
    data_dir: Path
    desired_retention: float = 0.9
    new_per_day: int = 20
    reviews_per_day: int = 200
    learning_steps: tuple[timedelta, ...] = field(
        default=(timedelta(minutes=1), timedelta(minutes=10))
    )
    relearning_steps: tuple[timedelta, ...] = field(default=(timedelta(minutes=10),))
    rollover_hour: int = 4
    leech_lapses: int = 8
    bury_new_siblings: bool = True  # an answered ordinal's new siblings wait until tomorrow
    bury_review_siblings: bool = True  # and its siblings due for review
    new_cards_ignore_review_limit: bool = False  # Anki's v3 default: the review limit caps new
    backups_kept: int = 10  # daily copies of the study database in <data dir>/backups
    enable_fuzzing: bool = True  # spread due dates as Anki does; tests turn it off
    load_balancer: bool = True  # inside the fuzz range, the day with fewer reviews (Anki's)
    easy_days: Loads = NORMAL_WEEK  # share of a normal day's reviews, Monday first
    quiz_counts: bool = False  # quiz answers reschedule cards not due (Anki's filtered decks)
    experiment_budget: Budget = field(default_factory=Budget)  # memory and time per run

    @property
    def database_path(self) -> Path:
        """The SQLite file holding review state and history."""
        return self.data_dir / DATABASE_FILENAME

    @property
    def cache_dir(self) -> Path:
        """Files studykit can rebuild at any time, such as the loaded library."""
        return self.data_dir / "cache"

    @property
    def config_path(self) -> Path:
        """The optional TOML file with overrides."""
        return self.data_dir / CONFIG_FILENAME


def _has_content(folder: Path) -> bool:
    return (folder / "content").is_dir() or (folder / "decks").is_dir()


def bundled_root() -> Path:
    """The folder with the bundled content/ and decks/.

    In a wheel install that is the package's `_bundled/` folder; in a source
    checkout it is the repository root (the parent of the package folder).
    """
    package_dir = Path(studykit.__file__).resolve().parent
    for candidate in (package_dir / "_bundled", package_dir.parent):
        if _has_content(candidate):
            return candidate
    raise ConfigError(
        f"no bundled content found (looked in {package_dir / '_bundled'} and "
        f"{package_dir.parent}); pass --root DIR or set {ENV_ROOT}"
    )


def _from_env(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def _check_root(root: Path, source: str) -> Path:
    if not root.is_dir():
        raise ConfigError(f"the content root {root} ({source}) is not a folder")
    if not _has_content(root):
        raise ConfigError(
            f"the content root {root} ({source}) has neither a content/ nor a decks/ folder"
        )
    return root


def _read_table(path: Path) -> tuple[dict[str, object], str]:
    """config.toml as a table, and its text; empty when the file is absent."""
    if not path.exists():
        return {}, ""
    try:
        text = read_regular(path, limit=_MAX_CONFIG_BYTES).decode("utf-8")
    except (FileRefused, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read the settings file ({error})") from error
    import tomllib  # only when there is a config.toml: start-up usually has none

    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from error
    return table, text


def resolve_settings(*, root: Path | None = None, data_dir: Path | None = None) -> Settings:
    """Settings from the arguments, the environment, the defaults and config.toml.

    Reads `<data_dir>/config.toml` when it exists; creates nothing.
    Raises ConfigError naming the folder, file or key that is wrong.
    """
    if root is not None:
        root_path = _check_root(Path(root).expanduser(), "given with --root")
    elif (env_root := _from_env(ENV_ROOT)) is not None:
        root_path = _check_root(env_root, f"from {ENV_ROOT}")
    else:
        root_path = bundled_root()

    if data_dir is not None:
        data_path = Path(data_dir).expanduser()
    else:
        data_path = _from_env(ENV_DATA_DIR) or Path(platformdirs.user_data_dir(APP_NAME))
    if data_path.exists() and not data_path.is_dir():
        raise ConfigError(f"the data folder {data_path} is a file, not a folder")

    defaults = Settings(root=root_path, data_dir=data_path)
    table, text = _read_table(defaults.config_path)
    if not table:
        return defaults
    from studykit.core.configfile import read_config_file  # pydantic: only for a config.toml

    given = read_config_file(table, defaults.config_path, text)
    return replace(defaults, **{key: getattr(given, key) for key in given.model_fields_set})

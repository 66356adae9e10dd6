"""Settings: where content and the database live, and the scheduling defaults.

Precedence: an explicit argument, then the environment (`STUDYKIT_ROOT`,
`STUDYKIT_DATA_DIR`), then the defaults (the bundled content, platformdirs'
user data dir). Scheduling values may be overridden in `<data_dir>/config.toml`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path

import platformdirs

import studykit
from studykit.core.budget import Budget, parse_budget
from studykit.core.errors import StudykitError
from studykit.core.files import FileRefused, read_regular
from studykit.core.suggest import closest

ENV_ROOT = "STUDYKIT_ROOT"
ENV_DATA_DIR = "STUDYKIT_DATA_DIR"
CONFIG_FILENAME = "config.toml"
BUDGET_KEY = "experiment_budget"
DATABASE_FILENAME = "studykit.sqlite3"
APP_NAME = "studykit"
_MAX_CONFIG_BYTES = 64 * 1024  # a handful of keys; anything larger is not a settings file


class ConfigError(StudykitError):
    """A setting that cannot be used: a missing folder or a bad value in config.toml."""


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
    backups_kept: int = 10  # daily copies of the study database in <data dir>/backups
    enable_fuzzing: bool = True  # spread due dates as Anki does; tests turn it off
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


@dataclass(frozen=True)
class _Rule:
    """What a config.toml key accepts."""

    kind: type[int] | type[float]
    low: float
    high: float
    text: str


_RULES: Mapping[str, _Rule] = {
    "desired_retention": _Rule(float, 0.7, 0.99, "a number from 0.7 to 0.99, e.g. 0.9"),
    "new_per_day": _Rule(int, 0, 9999, "a whole number from 0 to 9999, e.g. 20"),
    "reviews_per_day": _Rule(int, 0, 99999, "a whole number from 0 to 99999, e.g. 200"),
    "rollover_hour": _Rule(int, 0, 23, "a whole number from 0 to 23, e.g. 4"),
    "leech_lapses": _Rule(int, 1, 999, "a whole number from 1 to 999, e.g. 8"),
    "backups_kept": _Rule(int, 0, 365, "a whole number from 0 (no daily backups) to 365, e.g. 10"),
}


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


# Switches: config.toml keys that take `true` or `false`.
_SWITCHES = ("quiz_counts",)


def _check_value(path: Path, key: str, value: object) -> float:
    if key in _SWITCHES:
        if not isinstance(value, bool):
            raise ConfigError(f"{path}: `{key}` must be true or false, got {value!r}")
        return float(value)
    rule = _RULES.get(key)
    if rule is None:
        known = [*_RULES, *_SWITCHES, BUDGET_KEY]
        near = closest(key, known)
        hint = f"did you mean `{near}`?" if near else f"known keys: {', '.join(known)}"
        raise ConfigError(f"{path}: unknown key `{key}`; {hint}")
    # bool is an int in Python, but `true` is never a count or a retention.
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (rule.kind is int and not isinstance(value, int))
        or not rule.low <= value <= rule.high
    ):
        raise ConfigError(f"{path}: `{key}` must be {rule.text}, got {value!r}")
    return float(value)


def _check_budget(path: Path, value: object) -> Budget:
    """`experiment_budget = "4GiB,120s"`: the same form as `--budget`."""
    if not isinstance(value, str):
        raise ConfigError(f'{path}: `{BUDGET_KEY}` must be a string like "4GiB,120s"')
    try:
        return parse_budget(value)
    except StudykitError as error:
        raise ConfigError(f"{path}: `{BUDGET_KEY}`: {error}") from error


def _read_table(path: Path) -> dict[str, object]:
    """config.toml as a table; empty when the file is absent."""
    if not path.exists():
        return {}
    try:
        text = read_regular(path, limit=_MAX_CONFIG_BYTES).decode("utf-8")
    except (FileRefused, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read the settings file ({error})") from error
    import tomllib  # only when there is a config.toml: start-up usually has none

    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from error
    return table


def _read_overrides(table: Mapping[str, object], path: Path) -> dict[str, float]:
    """The checked numeric key/value pairs of config.toml."""
    return {
        key: _check_value(path, key, value) for key, value in table.items() if key != BUDGET_KEY
    }


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
    table = _read_table(defaults.config_path)
    given = _read_overrides(table, defaults.config_path)
    budget = table.get(BUDGET_KEY)
    return replace(
        defaults,
        desired_retention=given.get("desired_retention", defaults.desired_retention),
        new_per_day=int(given.get("new_per_day", defaults.new_per_day)),
        reviews_per_day=int(given.get("reviews_per_day", defaults.reviews_per_day)),
        rollover_hour=int(given.get("rollover_hour", defaults.rollover_hour)),
        leech_lapses=int(given.get("leech_lapses", defaults.leech_lapses)),
        quiz_counts=bool(given.get("quiz_counts", defaults.quiz_counts)),
        experiment_budget=defaults.experiment_budget
        if budget is None
        else _check_budget(defaults.config_path, budget),
        backups_kept=int(given.get("backups_kept", defaults.backups_kept)),
    )

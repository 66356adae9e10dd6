"""config.toml's keys as a pydantic model: each key's type, range and the words an error uses.

Imported only when a config.toml exists, so a start-up without one never loads pydantic.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from studykit.core.budget import Budget, BudgetError, parse_budget
from studykit.core.easydays import WEEKDAYS, loads_of
from studykit.core.errors import ConfigError
from studykit.core.suggest import closest

__all__ = ["BUDGET_KEY", "ConfigFile", "read_config_file"]

BUDGET_KEY = "experiment_budget"


def _rule(low: float, high: float, text: str) -> Any:
    """A field's range, and how an error message says what the key accepts."""
    return Field(default=None, ge=low, le=high, json_schema_extra={"accepts": text})


class ConfigFile(BaseModel):
    """The keys a user may set in `<data dir>/config.toml`; each is optional."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    desired_retention: Annotated[
        float | None, _rule(0.7, 0.99, "a number from 0.7 to 0.99, e.g. 0.9")
    ] = None
    """The recall probability reviews are scheduled for."""
    new_per_day: Annotated[int | None, _rule(0, 9999, "a whole number from 0 to 9999, e.g. 20")] = (
        None
    )
    """New cards a deck introduces per day."""
    reviews_per_day: Annotated[
        int | None, _rule(0, 99999, "a whole number from 0 to 99999, e.g. 200")
    ] = None
    """Reviews a deck serves per day."""
    rollover_hour: Annotated[int | None, _rule(0, 23, "a whole number from 0 to 23, e.g. 4")] = None
    """The local hour at which a new study day starts."""
    leech_lapses: Annotated[int | None, _rule(1, 999, "a whole number from 1 to 999, e.g. 8")] = (
        None
    )
    """Lapses after which a card is a leech (suspended and tagged)."""
    backups_kept: Annotated[
        int | None, _rule(0, 365, "a whole number from 0 (no daily backups) to 365, e.g. 10")
    ] = None
    """Daily copies of the study database kept in `<data dir>/backups`."""
    quiz_counts: Annotated[bool | None, Field(json_schema_extra={"accepts": "true or false"})] = (
        None
    )
    """Quiz answers reschedule cards that are not due (as Anki's filtered decks can)."""
    bury_new_siblings: Annotated[
        bool | None, Field(json_schema_extra={"accepts": "true or false"})
    ] = None
    """An answered ordinal's new siblings wait until tomorrow (a deck may say otherwise)."""
    bury_review_siblings: Annotated[
        bool | None, Field(json_schema_extra={"accepts": "true or false"})
    ] = None
    """An answered ordinal's siblings due for review wait until tomorrow."""
    new_cards_ignore_review_limit: Annotated[
        bool | None, Field(json_schema_extra={"accepts": "true or false"})
    ] = None
    """New cards stop only at the new limit (Anki's option of that name; by default, as in
    Anki, a deck shows new cards only while its reviews leave room under the review limit)."""
    experiment_budget: Budget | None = None
    """Memory and time one experiment run may use, in the form of `--budget` (`4GiB,120s`)."""
    load_balancer: Annotated[bool | None, Field(json_schema_extra={"accepts": "true or false"})] = (
        None
    )
    """Spread reviews evenly: inside the fuzz range, prefer the days with fewer due (Anki's)."""
    easy_days: tuple[float, ...] | None = None
    """Weekdays with fewer reviews, `{sat = 0.5, sun = 0}`: each a share of a normal day."""

    @field_validator("desired_retention", mode="before")
    @classmethod
    def _an_integer_is_a_number(cls, value: object) -> object:
        # TOML writes `desired_retention = 1` as an integer; strict mode would call it no float.
        return float(value) if type(value) is int else value

    @field_validator("easy_days", mode="before")
    @classmethod
    def _weekday_shares(cls, value: object) -> object:
        if not isinstance(value, dict):
            raise ValueError(
                f"must be a table of weekdays ({', '.join(WEEKDAYS)}) to shares from 0 to 1, "
                "e.g. {sat = 0.5, sun = 0}"
            )
        return loads_of(value)

    @field_validator("experiment_budget", mode="before")
    @classmethod
    def _budget_spec(cls, value: object) -> object:
        if not isinstance(value, str):
            raise ValueError('must be a string like "4GiB,120s"')
        try:
            return parse_budget(value)
        except BudgetError as error:
            raise ValueError(f"{error}") from error


def _accepts(key: str) -> str:
    extra = ConfigFile.model_fields[key].json_schema_extra
    return str(extra.get("accepts", "")) if isinstance(extra, dict) else ""


def key_line(source: str, key: str) -> int | None:
    """The 1-based line where config.toml sets `key` (`key = …`, `key.part = …` or a
    `[key]` table)."""
    name = re.escape(key)
    pattern = re.compile(rf"""\s*(?:(?:{name}|"{name}"|'{name}')\s*[=.]|\[\s*{name}\s*\])""")
    for number, line in enumerate(source.splitlines(), start=1):
        if pattern.match(line):
            return number
    return None


def _message(where: str, key: str, value: object, error_type: str, text: str) -> str:
    """One config.toml problem in the words the README documents; `where` is file:line."""
    if error_type == "extra_forbidden":
        known = list(ConfigFile.model_fields)
        near = closest(key, known)
        hint = f"did you mean `{near}`?" if near else f"known keys: {', '.join(known)}"
        return f"{where}: unknown key `{key}`; {hint}"
    if key in (BUDGET_KEY, "easy_days"):
        if text.startswith("must be a"):
            return f"{where}: `{key}` {text}"
        return f"{where}: `{key}`: {text}"
    return f"{where}: `{key}` must be {_accepts(key)}, got {value!r}"


def read_config_file(table: Mapping[str, object], path: Path, source: str = "") -> ConfigFile:
    """The checked keys of config.toml (`source`: its text); ConfigError naming the file and
    the key's line, the key and what it takes."""
    try:
        return ConfigFile.model_validate(dict(table))
    except ValidationError as error:
        order = {key: place for place, key in enumerate(table)}
        problems = error.errors(include_url=False)
        first = min(problems, key=lambda p: order.get(str(p["loc"][0]) if p["loc"] else "", -1))
        key = str(first["loc"][0]) if first["loc"] else ""
        text = str(first.get("ctx", {}).get("error", first["msg"]))
        text = text.removeprefix("Value error, ")
        line = key_line(source, key)
        where = f"{path}:{line}" if line is not None else str(path)
        raise ConfigError(_message(where, key, table.get(key), first["type"], text)) from error

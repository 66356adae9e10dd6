"""Checking and converting parameter values against an experiment's specs."""

from __future__ import annotations

import math
from collections.abc import Mapping

from studykit.experiments.base import Experiment, Param, ParamError, Params, Value

_TRUE = {"true", "yes", "on", "1"}
SEED_MAX = 2**64 - 1
INT_MAX = 2**63 - 1  # what torch and numpy hold in an int64
_FALSE = {"false", "no", "off", "0"}


def validate(experiment: Experiment, raw: Mapping[str, object]) -> Params:
    """Every parameter, by its canonical name, from `raw` (strings are parsed) or its default."""
    values: Params = experiment.defaults()
    given: dict[str, str] = {}
    for key, value in raw.items():
        param = experiment.param(key)
        if param is None:
            names = ", ".join(p.name for p in experiment.params) or "(none)"
            raise ParamError(
                f"{experiment.name} has no parameter `{key}`; its parameters are: {names}"
            )
        if param.name in given:
            raise ParamError(
                f"`{key}` and `{given[param.name]}` both set `{param.name}` of {experiment.name}"
            )
        given[param.name] = key
        values[param.name] = convert(param, value, given_as=key)
    return values


def convert(param: Param, value: object, *, given_as: str | None = None) -> Value:
    """One value checked against its spec; strings (command line, forms) are parsed first."""
    name = given_as or param.name
    if isinstance(value, str):
        value = _parse(param, value.strip(), name)
    if param.kind == "bool":
        if not isinstance(value, bool):
            raise _bad(param, name, value)
        return value
    if param.kind == "choice":
        if not isinstance(value, str) or value not in param.choices:
            raise _bad(param, name, value)
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _bad(param, name, value)
    if param.kind == "int":
        if isinstance(value, float):
            if not value.is_integer():
                raise _bad(param, name, value)
            value = int(value)
        if abs(value) > INT_MAX:
            raise _overflow(param, name, value)
    else:
        value = float(value)
        if not math.isfinite(value):
            raise _bad(param, name, value)
    _check_range(param, name, value)
    return value


def _parse(param: Param, text: str, name: str) -> object:
    if param.kind == "bool":
        lowered = text.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise _bad(param, name, text)
    if param.kind == "choice":
        return text
    try:
        return int(text) if param.kind == "int" else _finite(param, name, text)
    except ValueError:
        pass
    try:
        return _finite(param, name, text)
    except ValueError:
        raise _bad(param, name, text) from None


def _finite(param: Param, name: str, text: str) -> float:
    """`float(text)`, but a finite text that overflows to infinity is an error naming it."""
    value = float(text)
    if math.isinf(value) and "inf" not in text.lower():
        raise _overflow(param, name, text)
    return value


def _overflow(param: Param, name: str, value: object) -> ParamError:
    alias = f" (`{name}` is `{param.name}`)" if name != param.name else ""
    return ParamError(
        f"parameter `{param.name}`{alias}: {_short(value)} is too large to hold (it overflows); "
        f"it must be {param.describe_range()}"
    )


def check_seed(seed: object) -> int:
    """The seed if it is an integer from 0 to 2**64 - 1, else ParamError naming `seed`."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise ParamError(
            f"seed must be an integer from 0 to 2**64 - 1 ({SEED_MAX}); got {_short(seed)}"
        )
    return seed


def _short(value: object) -> str:
    """A value for an error line; a huge integer by its number of digits."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= 40:
        return text
    return (
        f"a {len(text)}-digit number"
        if isinstance(value, int)
        else f"{text[:24]}… ({len(text)} characters)"
    )


def _check_range(param: Param, name: str, value: float) -> None:
    low_bad = param.low is not None and (
        value < param.low or (param.low_open and value == param.low)
    )
    high_bad = param.high is not None and (
        value > param.high or (param.high_open and value == param.high)
    )
    if low_bad or high_bad:
        raise _bad(param, name, value)


def _bad(param: Param, name: str, value: object) -> ParamError:
    alias = f" (`{name}` is `{param.name}`)" if name != param.name else ""
    return ParamError(
        f"parameter `{param.name}`{alias} must be {param.describe_range()}; got {value!r}"
    )


def parse_assignments(items: tuple[str, ...] | list[str]) -> dict[str, str]:
    """`KEY=VALUE` strings from the command line, as a dict (ParamError on a malformed one)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ParamError(f"--set expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value
    return out

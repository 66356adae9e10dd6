"""Budgets from --budget and config.toml, and values too large to hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from studykit.core.config import ConfigError, bundled_root, resolve_settings
from studykit.experiments.base import Param, ParamError
from studykit.experiments.budget import GIB, MIB, Budget, parse_budget
from studykit.experiments.params import convert


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("8GiB", Budget(bytes=8 * GIB)),
        ("512MiB,300s", Budget(bytes=512 * MIB, seconds=300.0)),
        ("5min", Budget(seconds=300.0)),
        (" 1.5 GiB , 1h ", Budget(bytes=int(1.5 * GIB), seconds=3600.0)),
    ],
)
def test_budget_specs(spec: str, expected: Budget) -> None:
    assert parse_budget(spec) == expected


def test_a_budget_spec_keeps_what_it_does_not_give() -> None:
    assert parse_budget("90s", base=Budget(bytes=4 * GIB)) == Budget(bytes=4 * GIB, seconds=90.0)


@pytest.mark.parametrize("spec", ["8", "8GB", "-1GiB", "1e3s", "8GiB,,60s", "2h,3s", "25h"])
def test_bad_budget_specs_are_parameter_errors(spec: str) -> None:
    with pytest.raises(ParamError, match="budget"):
        parse_budget(spec)


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("8GB", "`8GB`: write 8GiB;"),
        ("8g,60s", "`8g`: write 8GiB;"),
        ("512MB", "`512MB`: write 512MiB;"),
        ("1KiB", "`1KiB`: memory is counted in MiB or GiB, at least 64 MiB;"),
        ("5m", "`5m`: write 5min (a time) or 5MiB (memory);"),
        ("300sec", "`300sec`: write 300s;"),
        ("2hours", "`2hours`: write 2h;"),
        ("8", "`8` has no unit;"),
        ("8GiB,,60s", "a part between commas is empty;"),
        ("8xyz", "`8xyz`: `xyz` is not a unit here;"),
    ],
)
def test_a_refused_budget_says_what_to_write(spec: str, said: str) -> None:
    with pytest.raises(ParamError) as refused:
        parse_budget(spec)
    assert str(refused.value).startswith(f"budget {spec!r}: {said}"), str(refused.value)
    assert "sizes are in MiB, GiB or TiB, times in s, min or h" in str(refused.value)


def test_the_config_budget_is_read_and_checked(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('experiment_budget = "4GiB,2min"\n', encoding="utf-8")
    settings = resolve_settings(root=bundled_root(), data_dir=tmp_path)
    assert settings.experiment_budget == Budget(bytes=4 * GIB, seconds=120.0)
    config.write_text("experiment_budget = 4\n", encoding="utf-8")
    with pytest.raises(ConfigError, match='`experiment_budget` must be a string like "4GiB,120s"'):
        resolve_settings(root=bundled_root(), data_dir=tmp_path)
    config.write_text('experiment_budget = "4XB"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"config\.toml:1: `experiment_budget`: budget '4XB'"):
        resolve_settings(root=bundled_root(), data_dir=tmp_path)
    config.write_text('experiment_bugdet = "4GiB"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="did you mean `experiment_budget`"):
        resolve_settings(root=bundled_root(), data_dir=tmp_path)


def test_without_config_the_budget_is_2_gib_and_60_s(tmp_path: Path) -> None:
    assert resolve_settings(root=bundled_root(), data_dir=tmp_path).experiment_budget == Budget(
        bytes=2 * GIB, seconds=60.0
    )


UNBOUNDED = Param("count", "int", 1, "a count", low=0)


@pytest.mark.parametrize("value", [2**63, -(2**70), 1e300, "1" + "0" * 30])
def test_an_int_beyond_64_bits_is_an_error_naming_the_parameter(value: object) -> None:
    with pytest.raises(ParamError, match=r"parameter `count`: .* is too large to hold"):
        convert(UNBOUNDED, value)


def test_the_largest_int64_is_accepted() -> None:
    assert convert(UNBOUNDED, 2**63 - 1) == 2**63 - 1

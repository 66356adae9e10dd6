"""`studykit experiment run` as a user runs it: Ctrl-C, --seed, --budget, overflowing values."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from studykit.cli import cli
from tests.experiment_fixtures import SIZED, registered, run_children, wait_until_gone

pytest.importorskip("torch")

# Runs for minutes unless stopped (10 million forward-mode steps).
LONG = ("--set", "gamma=0.999999", "--set", "threshold=0.000001", "--set", "max_steps=10000000")


def studykit(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "studykit", "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def wait_for_child(parent: int, timeout: float = 60.0) -> int:
    started = time.monotonic()
    while not (found := run_children(parent)):
        assert time.monotonic() - started < timeout, "no experiment process started"
        time.sleep(0.02)
    [child] = found
    return child


def test_ctrl_c_stops_the_child_and_exits_130_with_one_line(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "studykit", "--data-dir", str(tmp_path), "experiment", "run"]
    cli_process = subprocess.Popen(
        [*command, "effective-context", *LONG, "--device", "cpu", "--budget", "4GiB,1h"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        child = wait_for_child(cli_process.pid)
        time.sleep(1.0)  # let it get into the run
        os.killpg(cli_process.pid, signal.SIGINT)  # what Ctrl-C in a terminal sends
        out, err = cli_process.communicate(timeout=10)
    finally:
        cli_process.kill()
        cli_process.wait()
    assert cli_process.returncode == 130, err
    assert err == "studykit: error: interrupted; the run of effective-context was stopped\n"
    assert out == ""
    wait_until_gone(child, 0.1)


@pytest.mark.parametrize("seed", ["18446744073709551616", "-1"])
def test_a_seed_outside_64_bits_exits_2_naming_seed(tmp_path: Path, seed: str) -> None:
    done = studykit("experiment", "run", "effective-context", "--seed", seed, data_dir=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("studykit: error: --seed must be an integer from 0 to 2**64 - 1")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("setting", "needle"),
    [
        ("max_steps=1e400", "parameter `max_steps`: 1e400 is too large to hold (it overflows)"),
        ("max_steps=" + "9" * 5000, "parameter `max_steps`: 99999"),
        ("gamma=1e999", "parameter `gamma`: 1e999 is too large to hold (it overflows)"),
    ],
)
def test_a_value_that_overflows_exits_2_naming_the_parameter(
    tmp_path: Path, setting: str, needle: str
) -> None:
    done = studykit("experiment", "run", "effective-context", "--set", setting, data_dir=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("studykit: error: " + needle)
    assert done.stderr.count("\n") == 1 and len(done.stderr) < 300


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("8XB", "`8XB`: `xb` is not a unit here; sizes are in MiB, GiB or TiB, times in s"),
        ("8GB", "`8GB`: write 8GiB"),
        ("8GiB,4GiB", "gives the memory twice"),
        ("1MiB", "memory must be from 64 MiB to this machine's"),
        ("999999TiB", "memory must be from 64 MiB to this machine's"),
        ("0s", "time must be from 1 s to 24 h"),
        ("", "budget '' is empty; sizes are in MiB"),
    ],
)
def test_a_bad_budget_exits_2(tmp_path: Path, spec: str, needle: str) -> None:
    done = studykit("experiment", "run", "positional-encoding", "--budget", spec, data_dir=tmp_path)
    assert done.returncode == 2
    assert needle in done.stderr and done.stderr.count("\n") == 1


@pytest.fixture
def sized() -> Iterator[None]:
    with registered(SIZED):
        yield


def invoke(*args: str, data_dir: Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["--data-dir", str(data_dir), *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.usefixtures("sized")
def test_over_budget_exits_2_with_the_estimate_budget_and_what_to_lower(tmp_path: Path) -> None:
    code, out, err = invoke("experiment", "run", "test-sized", "--set", "size=3", data_dir=tmp_path)
    assert code == 2 and out == ""
    assert err == (
        "studykit: error: test-sized would need ~3.0 GiB, ~1.0 s, over the budget "
        "(memory 3.0 GiB > 2.0 GiB); lower `size`, or raise the budget "
        "(--budget, or experiment_budget in config.toml)\n"
    )
    code, out, err = invoke(
        "experiment", "run", "test-sized", "--set", "size=3", "--budget", "4GiB", data_dir=tmp_path
    )
    assert code == 0, err
    assert "test-sized" in out


@pytest.mark.usefixtures("sized")
def test_the_budget_in_config_toml_is_the_default(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('experiment_budget = "4GiB,2min"\n', encoding="utf-8")
    args = ("experiment", "run", "test-sized", "--set", "size=3", "--set", "steps=100")
    code, _, err = invoke(*args, data_dir=tmp_path)
    assert code == 0, err
    code, _, err = invoke(*args, "--budget", "90s", data_dir=tmp_path)
    assert code == 2 and "(time 100 s > 90 s)" in err


def test_max_steps_below_k_star_says_so_and_what_to_raise(tmp_path: Path) -> None:
    """Not reaching the threshold is not float rounding: k* lies past max_steps; raise it."""
    args = ("experiment", "run", "effective-context", "--set", "max_steps=10", "--device", "cpu")
    code, out, err = invoke(*args, "--json", data_dir=tmp_path)
    assert code == 0, err
    document = json.loads(out)
    answers = {answer["key"]: answer for answer in document["answers"]}
    assert answers["k_star"]["value"] == 90
    assert answers["k"]["value"] == -1
    assert "not reached within max_steps = 10" in answers["k"]["label"]
    assert "float rounding" not in document["explanation"]
    assert "= 90 steps max_steps = 10 se aage" in document["explanation"]
    assert "max_steps=90" in document["explanation"]
    code, out, err = invoke(*args, data_dir=tmp_path)  # the report people read says it too
    assert code == 0, err
    assert "max_steps=90" in out and "float rounding" not in out

"""The memory budget counts the run's whole process, torch's own footprint included.

Real child processes: a budget just above an estimate carries the run, and the kernel's own
count of the child's peak (ru_maxrss of the reaped child, read in a fresh parent) stays
within it; a run that outgrows its budget is stopped, one whose budget is below what torch
holds before any run is refused. The timing sweep lives in benchmarks/calibrate_costs.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest

from studykit.experiments import registry
from studykit.experiments.base import Value
from studykit.experiments.budget import MIB, Budget, LimitExceeded
from studykit.experiments.params import validate
from studykit.experiments.runner import run_experiment
from tests.experiment_fixtures import HOG, registered

pytest.importorskip("torch")

# A fresh parent, so that the largest child it has reaped is the run's own.
PARENT = textwrap.dedent(
    """
    import json, resource, sys
    from studykit.experiments.budget import Budget
    from studykit.experiments.runner import run_experiment
    name, params, budget = json.loads(sys.argv[1])
    result = run_experiment(name, params, device="cpu", budget=Budget(bytes=budget))
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    print(json.dumps({"peak": peak, "reported": result.peak_bytes}))
    """
)


@pytest.fixture
def hog() -> Iterator[None]:
    with registered(HOG):
        yield


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("long-range", {}),
        ("bptt-memory", {"length": 256, "batch_size": 8, "hidden_size": 64}),
    ],
)
def test_a_budget_just_above_the_estimate_carries_the_whole_process(
    name: str, params: dict[str, Value]
) -> None:
    experiment = registry.get(name)
    assert experiment.estimate is not None
    budget = experiment.estimate(validate(experiment, params)).peak_bytes + MIB
    done = subprocess.run(
        [sys.executable, "-c", PARENT, json.dumps([name, params, budget])],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=os.getcwd(),
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout)
    print(f"{name}: budget {budget / MIB:.0f} MiB, peak {got['peak'] / MIB:.0f} MiB")
    assert got["peak"] <= budget and 0 < got["reported"] <= budget


def test_a_run_that_outgrows_its_budget_is_stopped(hog: None) -> None:
    # 384 MiB on top of torch's ~250 MiB: over a 512 MiB budget, though well within the
    # address space the budget leaves (the run would have finished without the watch).
    with pytest.raises(LimitExceeded) as caught:
        run_experiment(HOG.name, {"mib": 384}, device="cpu", budget=Budget(bytes=512 * MIB))
    message = str(caught.value)
    assert "test-hog ran out of its memory budget of 512 MiB (the whole process" in message
    assert "\n" not in message


def test_a_budget_below_what_torch_holds_is_refused_before_the_run(hog: None) -> None:
    with pytest.raises(LimitExceeded) as caught:
        run_experiment(HOG.name, {"mib": 1}, device="cpu", budget=Budget(bytes=128 * MIB))
    message = str(caught.value)
    assert message.startswith("test-hog cannot start within a memory budget of 128 MiB")
    assert "raise the budget" in message

"""Cost estimates before a run: each has one, runaways are refused up front, defaults fit.

Fast checks only: what an estimate counts, how it moves with its parameters, and what a
refusal says. How close estimates come to measured runs is benchmarks/calibrate_costs.py's
sweep (timings are measured and shown there, never asserted).
"""

from __future__ import annotations

import itertools
import subprocess
import sys
import time

import pytest

from studykit.experiments import registry
from studykit.experiments.base import Experiment, Value
from studykit.experiments.budget import MIB, Budget, OverBudget, check_budget
from studykit.experiments.costs import TORCH_MIB
from studykit.experiments.params import validate
from studykit.experiments.process import child_environment
from studykit.experiments.runner import run_experiment
from tests.experiment_fixtures import run_children

# The settings from issue 10 that ran away (12 GB, 12 GB, ~40 GB, minutes); effective-context
# only runs to max_steps when γ is close enough to 1 that k* lies beyond it.
RUNAWAYS = [
    ("attention-scaling", {"keys": 5000}, "keys"),
    ("parallelism", {"batch_size": 512, "seq_len": 4096, "hidden_size": 512}, "seq_len"),
    ("rnn-gradient-decay", {"hidden_size": 1024, "length": 5000}, "hidden_size"),
    ("effective-context", {"gamma": 0.9999999, "max_steps": 10_000_000}, "max_steps"),
    # Issue 11: training was estimated at a sixth of its time and stopped at the budget.
    ("long-range", {"train": True, "steps": 5000}, "steps"),
]


def test_every_builtin_experiment_declares_an_estimate() -> None:
    missing = [e.name for e in registry.experiments().values() if e.estimate is None]
    assert missing == []


def test_drivers_are_parameters_of_their_experiment() -> None:
    for experiment in registry.experiments().values():
        assert experiment.estimate is not None
        cost = experiment.estimate(validate(experiment, {}))
        names = {p.name for p in experiment.params}
        assert cost.drivers and set(cost.drivers) <= names, experiment.name


@pytest.mark.parametrize(("name", "params", "lower"), RUNAWAYS)
def test_runaway_settings_are_refused_naming_budget_and_what_to_lower(
    name: str, params: dict[str, object], lower: str
) -> None:
    experiment = registry.get(name)
    values = validate(experiment, params)
    started = time.perf_counter()
    with pytest.raises(OverBudget) as caught:
        check_budget(experiment, values, Budget())
    assert time.perf_counter() - started < 0.1  # counted, not tried
    message = str(caught.value)
    assert name in message
    assert "2.0 GiB" in message or "> 60 s" in message
    what_to_lower = message.split("; lower ", 1)[1]
    assert what_to_lower.startswith(f"`{lower}`"), message


def test_effective_context_stopping_early_is_not_refused_for_a_large_max_steps() -> None:
    experiment = registry.get("effective-context")
    cost = check_budget(experiment, validate(experiment, {"max_steps": 10_000_000}), Budget())
    assert cost is not None and cost.seconds < 5  # γ = 0.95 stops at k = 90


@pytest.mark.parametrize("name", registry.names())
def test_defaults_fit_the_default_budget_comfortably(name: str) -> None:
    experiment = registry.get(name)
    budget = Budget()
    cost = check_budget(experiment, validate(experiment, {}), budget)
    assert cost is not None
    assert cost.peak_bytes < budget.bytes / 2  # the whole process: torch is ~1/8 of it
    assert cost.seconds < budget.seconds / 4


def test_training_at_its_defaults_fits_the_default_budget() -> None:
    experiment = registry.get("long-range")
    cost = check_budget(experiment, validate(experiment, {"train": True}), Budget())
    assert cost is not None and cost.seconds < Budget().seconds


@pytest.mark.parametrize("name", registry.names())
def test_every_estimate_counts_torch_and_the_experiments_floor(name: str) -> None:
    experiment = registry.get(name)
    assert experiment.estimate is not None
    cost = experiment.estimate(validate(experiment, {}))
    assert cost.fixed_bytes > TORCH_MIB * MIB
    assert cost.peak_bytes >= cost.fixed_bytes and cost.seconds >= cost.fixed_seconds > 0


def test_over_budget_training_is_refused_before_any_child_starts() -> None:
    started = time.perf_counter()
    with pytest.raises(OverBudget) as caught:
        run_experiment("long-range", {"train": True, "steps": 2000}, device="cpu")
    assert time.perf_counter() - started < 0.5 and run_children() == []
    message = str(caught.value)
    assert message.startswith("long-range would need ~")
    assert "over the budget (time " in message and "> 60 s)" in message
    assert "; lower `steps`, `seeds`, `distance`, `hidden_size`, or raise the budget" in message


def test_a_refusal_names_only_the_parameters_that_lower_what_is_over() -> None:
    # Over in memory alone: steps and seeds do not change the peak, so they are not named.
    experiment = registry.get("long-range")
    params = {"model": "attention", "distance": 2000, "train": True, "steps": 1, "seeds": 1}
    with pytest.raises(OverBudget) as caught:
        check_budget(experiment, validate(experiment, params), Budget(seconds=24 * 3600.0))
    message = str(caught.value)
    assert "(memory " in message and "time" not in message.split("; lower")[0]
    assert message.split("; lower ", 1)[1].startswith("`distance`, `hidden_size`, or raise")


def test_a_budget_below_torch_alone_asks_to_raise_it_not_to_lower_parameters() -> None:
    experiment = registry.get("long-range")
    with pytest.raises(OverBudget) as caught:
        check_budget(experiment, validate(experiment, {}), Budget(bytes=128 * MIB))
    message = str(caught.value)
    assert "even its smallest run needs" in message and "(torch included)" in message
    assert "raise the budget" in message and "lower `" not in message


def test_a_run_gets_one_torch_thread_unless_the_user_sets_their_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert child_environment()["OMP_NUM_THREADS"] == "1"
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    assert child_environment()["OMP_NUM_THREADS"] == "4"


def test_estimates_do_not_import_torch() -> None:
    code = (
        "import sys\n"
        "from studykit.experiments import registry\n"
        "from studykit.experiments.params import validate\n"
        "for e in registry.experiments().values():\n"
        "    e.estimate(validate(e, {}))\n"
        "assert 'torch' not in sys.modules, 'an estimate imported torch'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _extremes(experiment: Experiment) -> list[dict[str, Value]]:
    """Every combination of each parameter's lowest and highest valid value."""
    options: list[list[Value]] = []
    for param in experiment.params:
        if param.kind == "choice":
            options.append(list(param.choices))
        elif param.kind == "bool":
            options.append([False, True])
        else:
            ends: list[float] = []
            if param.low is not None:
                ends.append(param.low + 1e-9 if param.low_open else param.low)
            if param.high is not None:
                ends.append(param.high - 1e-9 if param.high_open else param.high)
            options.append([int(e) if param.kind == "int" else e for e in ends] or [param.default])
    names = [p.name for p in experiment.params]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*options)]


@pytest.mark.parametrize("name", registry.names())
def test_estimates_are_finite_at_every_extreme(name: str) -> None:
    experiment = registry.get(name)
    assert experiment.estimate is not None
    for raw in _extremes(experiment):
        cost = experiment.estimate(validate(experiment, raw))
        assert 0 < cost.peak_bytes < 2**62 and 0 < cost.seconds < 1e18, raw


@pytest.mark.parametrize("name", registry.names())
def test_raising_a_driver_raises_the_estimate(name: str) -> None:
    # A refusal says "lower these": each must really cost more as it grows.
    experiment = registry.get(name)
    assert experiment.estimate is not None
    for base in (validate(experiment, {}), *_variants(experiment)):
        before = experiment.estimate(base)
        for driver in before.drivers:
            param = experiment.param(driver)
            assert param is not None and param.kind in ("int", "float"), driver
            value = base[driver]
            assert isinstance(value, int | float) and not isinstance(value, bool)
            if param.kind == "int":
                raised: Value = min(2 * value, int(param.high or 2 * value)) if value else 0
            else:
                raised = (value + (param.high if param.high is not None else 2 * value)) / 2
            after = experiment.estimate({**base, driver: raised})
            # One of the two may dip (a wider RNN backpropagates fewer steps per segment).
            kept = after.peak_bytes >= before.peak_bytes or after.seconds >= before.seconds
            assert kept, (driver, base)


@pytest.mark.parametrize("driver", ["steps", "seeds", "distance", "hidden_size"])
def test_training_time_grows_with_each_of_its_drivers(driver: str) -> None:
    experiment = registry.get("long-range")
    assert experiment.estimate is not None
    base = validate(experiment, {"train": True})
    before, after = (experiment.estimate({**base, driver: int(base[driver]) * k}) for k in (1, 2))
    assert after.seconds > 1.5 * (before.seconds - before.fixed_seconds) + before.fixed_seconds


def _variants(experiment: Experiment) -> list[dict[str, Value]]:
    """The defaults with each yes/no parameter switched on (long-range's training)."""
    defaults = validate(experiment, {})
    return [{**defaults, p.name: True} for p in experiment.params if p.kind == "bool"]

"""Cost estimates before a run: each experiment has one, runaways are refused, defaults fit."""

from __future__ import annotations

import itertools
import subprocess
import sys
import time

import pytest

from studykit.experiments import registry
from studykit.experiments.base import Experiment, Value
from studykit.experiments.budget import Budget, OverBudget, check_budget
from studykit.experiments.params import validate

# The settings from issue 10 that ran away (12 GB, 12 GB, ~40 GB, minutes); effective-context
# only runs to max_steps when γ is close enough to 1 that k* lies beyond it.
RUNAWAYS = [
    ("attention-scaling", {"keys": 1500}, "keys"),
    ("parallelism", {"batch_size": 512, "seq_len": 4096, "hidden_size": 512}, "seq_len"),
    ("rnn-gradient-decay", {"hidden_size": 1024, "length": 5000}, "hidden_size"),
    ("effective-context", {"gamma": 0.9999999, "max_steps": 10_000_000}, "max_steps"),
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
    assert cost.peak_bytes < budget.bytes / 4
    assert cost.seconds < budget.seconds / 4


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
    base = validate(experiment, {})
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
        assert after.peak_bytes >= before.peak_bytes or after.seconds >= before.seconds, driver

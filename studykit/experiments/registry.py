"""The registered experiments, by name. Importing this never imports torch."""

from __future__ import annotations

import importlib
from functools import cache

from studykit.experiments.base import Experiment, UnknownExperiment

# Module per experiment, in the order the note introduces them.
_MODULES = {
    "effective-context": "effective_context",
    "rnn-gradient-decay": "rnn_gradient_decay",
    "lstm-forget-gate": "lstm_forget_gate",
    "parallelism": "parallelism",
    "memory-capacity": "memory_capacity",
    "long-range": "long_range",
    "bptt-memory": "bptt_memory",
    "positional-encoding": "positional_encoding",
    "attention-scaling": "attention_scaling",
}


# Experiments added at run time through `register` (tests, plug-ins), after the built-in ones.
_EXTRA: dict[str, Experiment] = {}


@cache
def _builtin() -> dict[str, Experiment]:
    found: dict[str, Experiment] = {}
    for name, module in _MODULES.items():
        experiment = importlib.import_module(f"studykit.experiments.{module}").EXPERIMENT
        if not isinstance(experiment, Experiment) or experiment.name != name:
            raise RuntimeError(f"studykit.experiments.{module} does not define {name}")
        found[name] = experiment
    return found


def experiments() -> dict[str, Experiment]:
    """Every registered experiment, by name."""
    return {**_builtin(), **_EXTRA}


def register(experiment: Experiment) -> None:
    """Add an experiment under its name (ValueError if the name is taken)."""
    if experiment.name in _MODULES or experiment.name in _EXTRA:
        raise ValueError(f"an experiment is already registered as {experiment.name!r}")
    _EXTRA[experiment.name] = experiment


def unregister(name: str) -> None:
    """Remove an experiment added with `register` (built-in ones stay)."""
    if name not in _EXTRA:
        raise UnknownExperiment(f"{name!r} was not added with register()")
    del _EXTRA[name]


def names() -> tuple[str, ...]:
    """Registered names, in order."""
    return (*_MODULES, *_EXTRA)


def get(name: str) -> Experiment:
    """The experiment called `name`, or UnknownExperiment listing the valid names."""
    if name in _EXTRA:
        return _EXTRA[name]
    if name not in _MODULES:
        raise UnknownExperiment(f"unknown experiment {name!r}; known: {', '.join(names())}")
    return _builtin()[name]

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


@cache
def experiments() -> dict[str, Experiment]:
    """Every registered experiment, by name."""
    found: dict[str, Experiment] = {}
    for name, module in _MODULES.items():
        experiment = importlib.import_module(f"studykit.experiments.{module}").EXPERIMENT
        if not isinstance(experiment, Experiment) or experiment.name != name:
            raise RuntimeError(f"studykit.experiments.{module} does not define {name}")
        found[name] = experiment
    return found


def names() -> tuple[str, ...]:
    """Registered names, in order."""
    return tuple(_MODULES)


def get(name: str) -> Experiment:
    """The experiment called `name`, or UnknownExperiment listing the valid names."""
    if name not in _MODULES:
        raise UnknownExperiment(f"unknown experiment {name!r}; known: {', '.join(_MODULES)}")
    return experiments()[name]

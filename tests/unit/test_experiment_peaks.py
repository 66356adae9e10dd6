"""Each estimate against a real run in a fresh process: peak memory within 2×, time within 20×.

Memory growth is the child's own high-water RSS over a warmed-up `import torch`. Where a run
at a quick size grows little, the estimate is dominated by the experiment's measured floor
(the torch parts it imports: forward-mode AD for effective-context and lstm-forget-gate,
vmap for rnn-gradient-decay, checkpointing for bptt-memory), and that floor is what is
checked there. Times are only held to a sane factor: on a shared 2-core machine the same
run takes from one to several times its quiet duration.
"""

from __future__ import annotations

import pytest

from studykit.experiments import registry
from studykit.experiments.base import Value
from studykit.experiments.params import validate
from studykit.experiments.peak import measure_many

pytest.importorskip("torch")

MIB = 1 << 20
SIZES: dict[str, list[dict[str, Value]]] = {
    "effective-context": [{}, {"gamma": 0.99}, {"gamma": 0.995}],
    "rnn-gradient-decay": [
        {"hidden_size": 16, "length": 40},
        {},
        {"hidden_size": 32, "length": 1000},
    ],
    "lstm-forget-gate": [
        {"hidden_size": 64, "length": 10},
        {"hidden_size": 128, "length": 5},
        {"hidden_size": 256, "length": 3},
    ],
    "parallelism": [
        {"batch_size": 8, "seq_len": 256, "hidden_size": 64, "repeats": 1},
        {"batch_size": 8, "seq_len": 1024, "hidden_size": 32, "heads": 2, "repeats": 1},
        {"batch_size": 4, "seq_len": 256, "hidden_size": 256, "repeats": 1, "cell": "lstm"},
    ],
    "memory-capacity": [
        {},
        {"hidden_size": 128, "samples": 5000},
        {"hidden_size": 32, "samples": 20000, "lags": 256},
    ],
    "long-range": [
        {},
        {"model": "attention", "distance": 150, "seeds": 1, "train": True, "steps": 2},
        {"model": "rnn", "distance": 300, "hidden_size": 256, "seeds": 1},
        {"model": "lstm", "distance": 300, "hidden_size": 256, "seeds": 1, "dtype": "float64"},
    ],
    "bptt-memory": [
        {"length": 64},
        {"length": 256},
        {"length": 1024, "batch_size": 8, "hidden_size": 64},
        {"length": 512, "batch_size": 8, "hidden_size": 64, "heads": 8},
    ],
    "positional-encoding": [
        {"positions": 1200},
        {"positions": 2000},
        {"positions": 4000, "d_model": 256},
    ],
    "attention-scaling": [
        {},
        {"keys": 128, "queries": 1024},
        {"d_k": 1024, "keys": 32, "queries": 4096},
    ],
}


def test_sizes_cover_every_experiment() -> None:
    assert set(SIZES) == set(registry.names())


def test_estimates_match_measured_runs() -> None:
    jobs = [(name, params) for name, sizes in SIZES.items() for params in sizes]
    measured = measure_many(jobs)
    rows, bad = [], []
    for (name, params), got in zip(jobs, measured, strict=True):
        experiment = registry.get(name)
        assert experiment.estimate is not None
        cost = experiment.estimate(validate(experiment, params))
        memory = cost.peak_bytes / max(got.extra_bytes, MIB)
        time = cost.seconds / got.seconds
        rows.append(
            f"{name:20} {params!s:60} {got.extra_bytes / MIB:7.1f} MiB est "
            f"{cost.peak_bytes / MIB:7.1f} ×{memory:4.2f} | {got.seconds:6.2f} s est "
            f"{cost.seconds:6.2f} ×{time:4.2f}"
        )
        if not (0.5 <= memory <= 2 and 1 / 20 <= time <= 20):
            bad.append(rows[-1])
    print("\n".join(rows))
    assert bad == []

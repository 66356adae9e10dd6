"""The smallest run of each built-in experiment: the child tests and a benchmark share it."""

from __future__ import annotations

TINY: dict[str, dict[str, object]] = {
    "effective-context": {},
    "rnn-gradient-decay": {"hidden_size": 4, "length": 10},
    "lstm-forget-gate": {"length": 5, "hidden_size": 4},
    "parallelism": {"batch_size": 1, "seq_len": 8, "hidden_size": 8, "heads": 1, "repeats": 1},
    "memory-capacity": {"hidden_size": 4, "lags": 8, "samples": 100},
    "long-range": {"distance": 2, "seeds": 1, "hidden_size": 4, "train": True, "steps": 2},
    "bptt-memory": {"length": 8, "batch_size": 1, "hidden_size": 4},
    "positional-encoding": {"positions": 4, "d_model": 2},
    "attention-scaling": {"d_k": 2, "keys": 2, "queries": 1},
}

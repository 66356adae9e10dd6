"""Calibrate the experiments' cost estimates (studykit/experiments/costs.py) against real runs.

`python benchmarks/calibrate_costs.py` measures, on this machine:

- the kernel rates and per-op costs the estimates count work in (median of a few runs);
- the whole child's resident memory with torch imported, before any run (`TORCH_MIB`);
- each experiment's floor: a tiny run in its own child, over that (`FLOOR_MIB`, seconds);
- every experiment at a few parameter points, each in its own child as users run it:
  the estimate next to the measured peak (the whole process) and run time, and their ratio.

It prints the constants block for costs.py, each experiment's fitted TIME_SCALE (the worst
ratio of measured to counted work over its points, with the constants just measured: so
estimates err high at the load the calibration ran under) and the table of estimate against
measurement; rows where a measurement is above its estimate (the estimate is low) or below
half of it are marked. `--sweep` measures no constants and checks costs.py as it is;
`--only NAME ...` restricts it to some experiments. Asserts nothing; ~10 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from studykit.experiments.process import child_environment

# The kernel rates below are measured here, with the threads a run's child gets.
os.environ["OMP_NUM_THREADS"] = child_environment()["OMP_NUM_THREADS"]

import torch

from studykit.experiments import costs, registry
from studykit.experiments.base import Cost, Value
from studykit.experiments.device import machine_description
from studykit.experiments.params import validate
from studykit.experiments.peak import Measured, measure, ready_child_bytes

MIB = 1 << 20
Point = dict[str, Value]

# The smallest run each experiment accepts: what remains is its fixed floor. A floor's name
# is its experiment's, or the experiment's and a part only some runs load (`+train`).
TINY: dict[str, Point] = {
    "effective-context": {"gamma": 0.1},
    "rnn-gradient-decay": {"hidden_size": 2, "length": 2},
    "lstm-forget-gate": {"hidden_size": 2, "length": 2},
    "parallelism": {"batch_size": 1, "seq_len": 2, "hidden_size": 4, "heads": 1, "repeats": 1},
    "memory-capacity": {"hidden_size": 2, "samples": 100},
    "long-range": {"distance": 1, "seeds": 1, "hidden_size": 2},
    "long-range+train": {"distance": 1, "seeds": 1, "hidden_size": 2, "train": True, "steps": 1},
    "bptt-memory": {"length": 8, "batch_size": 1, "hidden_size": 1},
    "positional-encoding": {"positions": 2, "d_model": 2},
    "attention-scaling": {"d_k": 1, "keys": 2, "queries": 1},
}
# Below these, a run's counted part is lost in the noise and fits nothing (see `sweep`).
FIT_SECONDS = 0.5
FIT_BYTES = 32 * MIB

# The defaults, and points that move each driver, each a few seconds at most.
POINTS: dict[str, list[Point]] = {
    "effective-context": [{}, {"gamma": 0.99}, {"gamma": 0.999}, {"gamma": 0.9995}],
    "rnn-gradient-decay": [
        {"hidden_size": 16, "length": 40},
        {},
        {"hidden_size": 32, "length": 1000},
        {"hidden_size": 128, "length": 300},
        {"hidden_size": 256, "length": 1000},
    ],
    "lstm-forget-gate": [
        {},
        {"hidden_size": 64, "length": 10},
        {"hidden_size": 128, "length": 5},
        {"hidden_size": 256, "length": 3},
        {"length": 1000},
        {"hidden_size": 256, "length": 100},
    ],
    "parallelism": [
        {},
        {"batch_size": 8, "seq_len": 256, "hidden_size": 64, "repeats": 1},
        {"batch_size": 8, "seq_len": 1024, "hidden_size": 32, "heads": 2, "repeats": 1},
        {"batch_size": 4, "seq_len": 256, "hidden_size": 256, "repeats": 1, "cell": "lstm"},
        {"layers": 2, "repeats": 1},
    ],
    "memory-capacity": [
        {},
        {"hidden_size": 128, "samples": 5000},
        {"hidden_size": 32, "samples": 20000, "lags": 256},
        {"activation": "tanh", "samples": 20000},
    ],
    "long-range": [
        {},
        {"train": True},
        {"train": True, "steps": 200},
        {"model": "attention", "distance": 150, "seeds": 1, "train": True, "steps": 2},
        {"model": "rnn", "distance": 300, "hidden_size": 256, "seeds": 1},
        {"model": "rnn", "distance": 1000, "hidden_size": 128, "seeds": 2},
        {"model": "lstm", "distance": 300, "hidden_size": 256, "seeds": 1, "dtype": "float64"},
        {"model": "lstm", "distance": 100, "seeds": 1, "train": True, "steps": 100},
        {"model": "attention", "hidden_size": 128, "seeds": 2, "train": True, "steps": 100},
        {"model": "rnn", "distance": 50, "seeds": 10, "train": True, "steps": 50},
    ],
    "bptt-memory": [
        {},
        {"length": 64},
        {"length": 1024, "batch_size": 8, "hidden_size": 64},
        {"length": 512, "batch_size": 8, "hidden_size": 64, "heads": 8},
        {"length": 2048, "batch_size": 8, "hidden_size": 128},
    ],
    "positional-encoding": [
        {},
        {"positions": 1200},
        {"positions": 2000},
        {"positions": 4000, "d_model": 256},
    ],
    "attention-scaling": [
        {},
        {"keys": 128, "queries": 1024},
        {"d_k": 1024, "keys": 32, "queries": 4096},
        {"keys": 512, "queries": 256},
    ],
}


def median_seconds(fn: Callable[[], object], repeats: int = 5) -> float:
    """Median wall time of `fn()` after one warm-up call."""
    fn()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def matmul_rate(dtype: torch.dtype, n: int = 512) -> float:
    """FLOP/s of an n×n matmul."""
    a, b = torch.randn(n, n, dtype=dtype), torch.randn(n, n, dtype=dtype)
    return 2 * n**3 / median_seconds(lambda: a @ b)


def svd_rate(n: int = 256) -> float:
    """n³ per second of a spectral norm (an SVD), float64."""
    a = torch.randn(8, n, n, dtype=torch.float64)
    return 8 * n**3 / median_seconds(lambda: torch.linalg.matrix_norm(a, ord=2), repeats=3)


def byte_rate(n: int = 1 << 24) -> float:
    """Bytes/s an elementwise float32 op streams (read two, write one)."""
    a, b = torch.randn(n), torch.randn(n)
    return 12 * n / median_seconds(lambda: a * b)


def op_seconds(n: int = 20_000) -> float:
    """Seconds per small eager op recorded by autograd (dispatch + graph node)."""
    x = torch.ones(4, requires_grad=True)

    def ops() -> None:
        y = x
        for _ in range(n):
            y = y * 1.0

    return median_seconds(ops, repeats=3) / n


def chain_step_seconds(n: int = 5_000) -> float:
    """Seconds per effective-context step: a multiply, its autograd derivative, the product."""
    decay = torch.tensor(0.5, dtype=torch.float64)

    def steps() -> None:
        h = torch.ones((), dtype=torch.float64)
        tangent = torch.ones((), dtype=torch.float64)
        for _ in range(n):
            previous = h.detach().requires_grad_(True)
            h = decay * previous
            (local,) = torch.autograd.grad(h, previous)
            tangent = tangent * local

    return median_seconds(steps, repeats=3) / n


def jacobian_seconds(keys: int = 512, queries: int = 64) -> float:
    """Seconds per softmax-Jacobian element built and normed by attention-scaling."""
    from studykit.experiments.attention_scaling import _jacobian_norms, jacobian_buffer

    p = torch.softmax(torch.randn(queries, keys), dim=-1)
    buffer = jacobian_buffer(queries, keys, "cpu")
    seconds = median_seconds(lambda: _jacobian_norms(p, buffer, lambda: None), repeats=3)
    return seconds / (queries * keys * keys)


def constants(names: list[str]) -> None:
    """Measure the constants of costs.py here, print them, and use them for the sweep."""
    rates = {
        "F32_FLOPS": matmul_rate(torch.float32),
        "F64_FLOPS": matmul_rate(torch.float64),
        "SVD_RATE": svd_rate(),
        "BYTE_RATE": byte_rate(),
        "OP_SECONDS": op_seconds(),
        "CHAIN_STEP_SECONDS": chain_step_seconds(),
        "JACOBIAN_SECONDS": jacobian_seconds(),
        "TORCH_MIB": round(statistics.median(ready_child_bytes() for _ in range(3)) / MIB),
    }
    for key, value in rates.items():
        print(f"{key}: Final = {value:.3g}")
        setattr(costs, key, value)
    floors = {
        floor: measure(floor.partition("+")[0], params)
        for floor, params in TINY.items()
        if floor.partition("+")[0] in names
    }
    ready = rates["TORCH_MIB"] * MIB
    for floor, got in floors.items():
        costs.FLOOR_MIB[floor] = round(max(got.peak_bytes - ready, 0) / MIB)
        costs.FLOOR_SECONDS[floor] = round(got.seconds, 2)  # SPARE_SECONDS comes on top
    for label, table in (("FLOOR_MIB", costs.FLOOR_MIB), ("FLOOR_SECONDS", costs.FLOOR_SECONDS)):
        print(f"{label}: Final[dict[str, float]] = {{")
        for floor in floors:
            print(f'    "{floor}": {table[floor]},')
        print("}", flush=True)


def mark(ratio: float) -> str:
    """`LOW` where the measurement is over the estimate, `high` where under half of it."""
    return "LOW " if ratio > 1 else "high" if ratio < 0.5 else "    "


Row = tuple[str, Point, Cost, float, Measured]


def sweep(names: list[str], *, fit: bool) -> None:
    """Measure every point; fit each experiment's TIME_SCALE (worst measured/counted work)
    and, when `fit`, show the estimates as they are with it, else as costs.py has them."""
    rows: list[Row] = []
    for name in names:
        experiment = registry.get(name)
        assert experiment.estimate is not None
        for params in POINTS[name]:
            cost = experiment.estimate(validate(experiment, params))
            work = (cost.seconds - cost.fixed_seconds) / costs.TIME_SCALE[name]
            rows.append((name, params, cost, work, measure(name, params)))
            print(f"measured {name} {params}", file=sys.stderr, flush=True)
    scales: dict[str, float] = {}
    for name, _, cost, work, got in rows:
        if got.seconds - cost.fixed_seconds >= max(FIT_SECONDS, cost.fixed_seconds / 4):
            ratio = (got.seconds - cost.fixed_seconds) / work
            scales[name] = max(scales.get(name, 0.0), ratio)
    print("# The worst measured/counted ratio of the work past the floor, over the points")
    print("# where it took at least 0.5 s and a quarter of the floor (the floor is noisy).")
    print("TIME_SCALE: Final[dict[str, float]] = {")
    for name in names:
        fitted = f"{math.ceil(scales[name] * 100) / 100}" if name in scales else "1.0  # too small"
        print(f'    "{name}": {fitted},')
    print("}")
    print(
        f"\n{'experiment':<20} {'params':<58} {'MiB est':>8} {'got':>6} {'got/est':>8}"
        f" {'s est':>7} {'got':>6} {'got/est':>8}"
    )
    for name, params, cost, work, got in rows:
        seconds = cost.seconds
        if fit:
            seconds = cost.fixed_seconds + math.ceil(scales.get(name, 1.0) * 100) / 100 * work
        memory, ratio = got.peak_bytes / cost.peak_bytes, got.seconds / seconds
        print(
            f"{name:<20} {params!s:<58.58} {cost.peak_bytes / MIB:>8.0f} "
            f"{got.peak_bytes / MIB:>6.0f} {memory:>6.2f} {mark(memory)}"
            f"{seconds:>7.2f} {got.seconds:>6.2f} {ratio:>6.2f} {mark(ratio)}"
        )
    small = [
        (got.peak_bytes - cost.fixed_bytes + costs.MARGIN_MIB * MIB, name, params)
        for name, params, cost, _, got in rows
        if cost.peak_bytes - cost.fixed_bytes < FIT_BYTES
    ]
    if small:
        most, name, params = max(small, key=lambda row: row[0])
        print(f"# runs counting < 32 MiB: at most {most / MIB:.0f} MiB over torch and their "
              f"floor ({name} {params}); MARGIN_MIB covers it")  # fmt: skip


def main() -> None:
    """Constants, then the sweep."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=[], help="experiments to measure")
    parser.add_argument("--sweep", action="store_true", help="only the sweep, no constants")
    args = parser.parse_args()
    names: list[str] = list(args.only or registry.names())
    print(f"# {machine_description('cpu')}, torch {torch.__version__}, {time.strftime('%Y-%m-%d')}")
    if not args.sweep:
        constants(names)
    sweep(names, fit=not args.sweep)


if __name__ == "__main__":
    main()

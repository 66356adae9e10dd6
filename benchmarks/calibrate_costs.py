"""Measure the constants of studykit/experiments/costs.py on this machine and print them.

Run once per machine (`python benchmarks/calibrate_costs.py`), paste the printed block into
costs.py with the machine's name. Each rate is the median of a few runs of a typical kernel;
each floor is a tiny run of the experiment in a fresh process (what importing its torch parts
and first-use kernels cost, before any size-dependent memory).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch

from studykit.experiments.device import machine_description
from studykit.experiments.peak import measure_many

# The smallest run each experiment accepts: what remains is its fixed floor.
TINY: dict[str, dict[str, float | int | str]] = {
    "effective-context": {"gamma": 0.1},
    "rnn-gradient-decay": {"hidden_size": 2, "length": 2},
    "lstm-forget-gate": {"hidden_size": 2, "length": 2},
    "parallelism": {"batch_size": 1, "seq_len": 2, "hidden_size": 4, "heads": 1, "repeats": 1},
    "memory-capacity": {"hidden_size": 2, "samples": 100},
    "long-range": {"distance": 1, "seeds": 1, "hidden_size": 2},
    "bptt-memory": {"length": 8, "batch_size": 1, "hidden_size": 1},
    "positional-encoding": {"positions": 2, "d_model": 2},
    "attention-scaling": {"d_k": 1, "keys": 2, "queries": 1},
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


def dual_step_seconds(n: int = 5_000) -> float:
    """Seconds per effective-context step: a forward-mode dual multiply and its tangent."""
    import torch.autograd.forward_ad as fwad

    decay = torch.tensor(0.5, dtype=torch.float64)

    def steps() -> None:
        with fwad.dual_level():
            h = fwad.make_dual(  # type: ignore[no-untyped-call]
                torch.ones((), dtype=torch.float64), torch.ones((), dtype=torch.float64)
            )
            for _ in range(n):
                h = decay * h
                tangent = fwad.unpack_dual(h).tangent  # type: ignore[no-untyped-call]
            assert tangent is not None

    return median_seconds(steps, repeats=3) / n


def jacobian_seconds(keys: int = 512, queries: int = 64) -> float:
    """Seconds per softmax-Jacobian element built and normed by attention-scaling."""
    from studykit.experiments.attention_scaling import _jacobian_norms, jacobian_buffer

    p = torch.softmax(torch.randn(queries, keys), dim=-1)
    buffer = jacobian_buffer(queries, keys, "cpu")
    seconds = median_seconds(lambda: _jacobian_norms(p, buffer, lambda: None), repeats=3)
    return seconds / (queries * keys * keys)


def main() -> None:
    """Print the constants block for costs.py."""
    print(f"# {machine_description('cpu')}, torch {torch.__version__}, {time.strftime('%Y-%m-%d')}")
    print(f"F32_FLOPS = {matmul_rate(torch.float32):.3g}")
    print(f"F64_FLOPS = {matmul_rate(torch.float64):.3g}")
    print(f"SVD_RATE = {svd_rate():.3g}")
    print(f"BYTE_RATE = {byte_rate():.3g}")
    print(f"OP_SECONDS = {op_seconds():.3g}")
    print(f"DUAL_STEP_SECONDS = {dual_step_seconds():.3g}")
    print(f"JACOBIAN_SECONDS = {jacobian_seconds():.3g}")
    floors = dict(zip(TINY, measure_many(list(TINY.items())), strict=True))
    print("FLOOR_MIB = {")
    for name, got in floors.items():
        print(f'    "{name}": {got.extra_bytes / 2**20:.0f},')
    print("}")
    print("FLOOR_SECONDS = {")
    for name, got in floors.items():
        print(f'    "{name}": {got.seconds:.2f},')
    print("}")


if __name__ == "__main__":
    main()

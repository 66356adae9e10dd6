"""Machine constants for the experiments' cost estimates, and the one way they become a Cost.

Measured once by `benchmarks/calibrate_costs.py` on the development machine: Intel Xeon
(2 vCPUs shared with other jobs, 23 GiB), torch 2.13.0+cpu, 2026-12-02. Another CPU is
faster or slower by a roughly constant factor; memory counts do not depend on the machine.
"""

from __future__ import annotations

from typing import Final

from studykit.experiments.base import Cost

MIB: Final = 1 << 20

# Rates of typical kernels: matmul FLOP/s, SVD (n³ per second), elementwise bytes per second.
F32_FLOPS: Final = 3.0e10
F64_FLOPS: Final = 1.5e10
SVD_RATE: Final = 6.0e8
BYTE_RATE: Final = 3.0e9
# One small eager op recorded by autograd (dispatch and graph node), and one forward-mode
# step of effective-context (a dual multiply and unpacking its tangent, mostly Python).
OP_SECONDS: Final = 1.0e-5
DUAL_STEP_SECONDS: Final = 2.0e-4

# What a tiny run adds over a bare `import torch` process: the torch parts it imports
# (forward-mode AD, vmap, checkpointing, transformer layers) and first-use kernels.
FLOOR_MIB: Final[dict[str, float]] = {
    "effective-context": 81,
    "rnn-gradient-decay": 45,
    "lstm-forget-gate": 88,
    "parallelism": 10,
    "memory-capacity": 11,
    "long-range": 26,
    "bptt-memory": 79,
    "positional-encoding": 8,
    "attention-scaling": 8,
}
FLOOR_SECONDS: Final[dict[str, float]] = {
    "effective-context": 1.0,
    "rnn-gradient-decay": 0.3,
    "lstm-forget-gate": 1.0,
    "parallelism": 0.1,
    "memory-capacity": 0.05,
    "long-range": 0.15,
    "bptt-memory": 1.0,
    "positional-encoding": 0.03,
    "attention-scaling": 0.03,
}


def cost(
    name: str,
    *,
    peak_bytes: float,
    drivers: tuple[str, ...],
    f32_flops: float = 0.0,
    f64_flops: float = 0.0,
    svd_n3: float = 0.0,
    bytes_moved: float = 0.0,
    ops: float = 0.0,
    seconds: float = 0.0,
) -> Cost:
    """A Cost from counted work and memory, plus the experiment's measured floor."""
    time = (
        FLOOR_SECONDS[name]
        + f32_flops / F32_FLOPS
        + f64_flops / F64_FLOPS
        + svd_n3 / SVD_RATE
        + bytes_moved / BYTE_RATE
        + ops * OP_SECONDS
        + seconds
    )
    return Cost(int(FLOOR_MIB[name] * MIB + peak_bytes), time, drivers)

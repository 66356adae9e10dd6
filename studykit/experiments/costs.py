"""Machine constants for the experiments' cost estimates, and the one way they become a Cost.

Measured once by `benchmarks/calibrate_costs.py` on the development machine: Intel Xeon,
2 vCPUs, 23 GiB, torch 2.13.0+cpu, 2026-12-02, in a quiet moment. When other jobs share the
CPU, runs take up to several times longer (SVDs most: up to ~50×, their threads contend).
Another CPU is faster or slower by a roughly constant factor; memory does not depend on it.
"""

from __future__ import annotations

from typing import Final

from studykit.experiments.base import Cost

MIB: Final = 1 << 20

# Rates of typical kernels: matmul FLOP/s, SVD (n³ per second), elementwise bytes per second.
F32_FLOPS: Final = 2.24e10
F64_FLOPS: Final = 2.41e10
SVD_RATE: Final = 3.24e9
BYTE_RATE: Final = 6.82e9
# One small eager op recorded by autograd (dispatch and graph node), one forward-mode step of
# effective-context (a dual multiply and unpacking its tangent, mostly Python), and one
# element of attention-scaling's softmax Jacobians (built and normed in place, 512 keys).
OP_SECONDS: Final = 5.82e-06
DUAL_STEP_SECONDS: Final = 0.000213
JACOBIAN_SECONDS: Final = 5.5e-09

# What a tiny run adds over a bare `import torch` process: the torch parts it imports
# (forward-mode AD, vmap, checkpointing, transformer layers) and first-use kernels.
FLOOR_MIB: Final[dict[str, float]] = {
    "effective-context": 94,
    "rnn-gradient-decay": 52,
    "lstm-forget-gate": 102,
    "parallelism": 16,
    "memory-capacity": 16,
    "long-range": 35,
    "bptt-memory": 90,
    "positional-encoding": 12,
    "attention-scaling": 13,
}
FLOOR_SECONDS: Final[dict[str, float]] = {
    "effective-context": 1.64,
    "rnn-gradient-decay": 0.49,
    "lstm-forget-gate": 1.44,
    "parallelism": 0.09,
    "memory-capacity": 0.04,
    "long-range": 0.19,
    "bptt-memory": 1.46,
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

"""Machine constants for the experiments' cost estimates, and the one way they become a Cost.

Measured by `benchmarks/calibrate_costs.py` on the development machine: Intel Xeon, 2 vCPUs
shared with other jobs (load 5-7), 23 GiB, torch 2.13.0+cpu with one thread as a run's child
has it, 2026-12-04. Memory is the run's whole process: a child with torch imported, the torch
parts the experiment loads (its floor), and what it counts. Time is the floor plus counted
work at these rates, times the experiment's fitted scale. Rates come from one calibration,
scales from it and a second sweep, floors and torch's footprint are the worst of four that
day: estimates err high at that load (on a quiet machine runs take a half to a third of
them). Another CPU is faster or slower by a roughly constant factor; memory does not depend
on it.
"""

from __future__ import annotations

from typing import Final

from studykit.experiments.base import Cost

MIB: Final = 1 << 20

# Rates of typical kernels: matmul FLOP/s, SVD (n³ per second), elementwise bytes per second.
F32_FLOPS: Final = 1.31e11
F64_FLOPS: Final = 3.5e10
SVD_RATE: Final = 4.97e9
BYTE_RATE: Final = 2.97e9
# One small eager op recorded by autograd (dispatch and graph node), one step of
# effective-context (a multiply, its derivative by autograd.grad, the chain's product), and one
# element of attention-scaling's softmax Jacobians (built and normed in place, 512 keys).
OP_SECONDS: Final = 9.66e-06
CHAIN_STEP_SECONDS: Final = 5.28e-05
JACOBIAN_SECONDS: Final = 3.53e-09

# A child with torch imported, waiting for its request (VmRSS): part of every run's peak.
# It depends on the CPU, as torch loads the kernels the CPU can use: 228 MiB here (AMD EPYC),
# 256 MiB on an Intel Xeon, 279 MiB and then about 310 MiB on CI machines (inferred from a
# tiny long-range run reaching 350 MiB there). The worst seen, rounded up, so that a budget
# of exactly the estimate carries a run on any of them.
TORCH_MIB: Final = 320
# Run-to-run spread of a peak (first-use pages, thread stacks, the CPU's own kernels for the
# experiment) and of a run's time (a busy machine's scheduling), added to every estimate.
MARGIN_MIB: Final = 32
SPARE_SECONDS: Final = 0.5

# What a tiny run adds over that child: the torch parts it imports (forward-mode AD, vmap,
# checkpointing, transformer layers; torch._dynamo, which torch.optim loads) and first-use
# kernels. `long-range+train` is a tiny run with training, used in place of `long-range`.
FLOOR_MIB: Final[dict[str, float]] = {
    "effective-context": 0,  # no torch part beyond the child's since it left forward-mode AD
    "rnn-gradient-decay": 52,
    "lstm-forget-gate": 93,
    "parallelism": 17,
    "memory-capacity": 17,
    "long-range": 34,
    "long-range+train": 102,
    "bptt-memory": 84,
    "positional-encoding": 13,
    "attention-scaling": 13,
}
FLOOR_SECONDS: Final[dict[str, float]] = {
    "effective-context": 0.02,
    "rnn-gradient-decay": 0.93,
    "lstm-forget-gate": 3.19,
    "parallelism": 0.03,
    "memory-capacity": 0.02,
    "long-range": 0.13,
    "long-range+train": 3.01,
    "bptt-memory": 2.58,
    "positional-encoding": 0.01,
    "attention-scaling": 0.01,
}
# Fitted: the worst ratio of measured to counted work over two sweeps, the calibration's and
# a check 20 minutes later (1.0: no point took long enough past its floor to fit).
TIME_SCALE: Final[dict[str, float]] = {
    "effective-context": 1.0,  # its step is measured as such (CHAIN_STEP_SECONDS)
    "rnn-gradient-decay": 3.98,
    "lstm-forget-gate": 1.1,
    "parallelism": 1.69,
    "memory-capacity": 0.52,
    "long-range": 1.68,
    "bptt-memory": 7.65,
    "positional-encoding": 1.0,
    "attention-scaling": 0.47,
}


def cost(
    name: str,
    *,
    peak_bytes: float,
    drivers: tuple[str, ...],
    floor: str = "",
    f32_flops: float = 0.0,
    f64_flops: float = 0.0,
    svd_n3: float = 0.0,
    bytes_moved: float = 0.0,
    ops: float = 0.0,
    chain_steps: float = 0.0,
    jacobian_elements: float = 0.0,
) -> Cost:
    """A Cost from counted work and memory, scaled as fitted, over torch and the floor
    (`floor` names another floor than the experiment's own, e.g. `long-range+train`)."""
    work = (
        f32_flops / F32_FLOPS
        + f64_flops / F64_FLOPS
        + svd_n3 / SVD_RATE
        + bytes_moved / BYTE_RATE
        + ops * OP_SECONDS
        + chain_steps * CHAIN_STEP_SECONDS
        + jacobian_elements * JACOBIAN_SECONDS
    )
    fixed = int((TORCH_MIB + FLOOR_MIB[floor or name] + MARGIN_MIB) * MIB)
    fixed_seconds = FLOOR_SECONDS[floor or name] + SPARE_SECONDS
    return Cost(
        peak_bytes=fixed + int(peak_bytes),
        seconds=fixed_seconds + TIME_SCALE[name] * work,
        drivers=drivers,
        fixed_bytes=fixed,
        fixed_seconds=fixed_seconds,
    )

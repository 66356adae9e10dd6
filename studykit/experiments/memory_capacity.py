"""memory-capacity: how much of the input k steps back a linear readout recovers from h_t."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from studykit.experiments.base import (
    Answer,
    Cost,
    Experiment,
    Outcome,
    Param,
    Params,
    Plot,
    RunContext,
    Series,
    Table,
)
from studykit.experiments.common import generator, orthogonal, pick_ks
from studykit.experiments.costs import cost

if TYPE_CHECKING:
    import torch

PARAMS = (
    Param("hidden_size", "int", 64, "state size d (the bound on total capacity)", low=1, high=2048),
    Param("lags", "int", 0, "largest lag k tested; 0 means 2 × hidden_size", low=0, high=8192),
    Param(
        "rho",
        "float",
        0.95,
        "spectral radius of the recurrent matrix",
        low=0,
        high=1,
        low_open=True,
        high_open=True,
    ),
    Param("activation", "choice", "linear", "state update", choices=("linear", "tanh")),
    Param(
        "samples",
        "int",
        4000,
        "time steps used to fit and test the readouts",
        low=100,
        high=200_000,
    ),
)
_WASHOUT = 200
_BIAS_SHARE = 0.01  # a chance floor this share of d or more is worth a warning


def held_out_r2(x: torch.Tensor, targets: torch.Tensor, split: int) -> list[float]:
    """Least-squares readouts fit on the first `split` rows; r² of each on the rest.

    r² is the squared correlation of prediction and target: 1 = fully recovered, 0 = none.
    """
    import torch

    fit = torch.linalg.lstsq(x[:split], targets[:split]).solution
    pred, truth = x[split:] @ fit, targets[split:]
    pc, tc = pred - pred.mean(0), truth - truth.mean(0)
    r2: list[float] = (
        (pc * tc).sum(0) ** 2 / ((pc**2).sum(0) * (tc**2).sum(0)).clamp_min(1e-300)
    ).tolist()
    return r2


def _few_samples_note(held_out: int, chance: float, d: int) -> str:
    """The warning sentence when held-out steps are few for this many lags."""
    return (
        f"Dhyan do: sirf {held_out} held-out steps hain, isliye bina memory ke bhi har lag "
        f"par r² ≈ 1/{held_out - 1} aata hai — chance se {chance:.1f} (d ka {chance / d:.0%}) "
        "capacity mein jud jaata hai, yaani ye estimate upar ki taraf biased hai; samples "
        "badhao."
    )


def estimate(params: Params) -> Cost:
    """States (steps × d), lag targets (samples × lags), lstsq's copies and the r² terms."""
    d, samples = int(params["hidden_size"]), int(params["samples"])
    lags = int(params["lags"]) or 2 * d
    total = _WASHOUT + lags + samples
    # Targets once, lstsq's copies of A and B (3/4 of the samples), then predictions, centred
    # copies and their products on the held-out quarter. The chance floor repeats the fit on
    # fresh inputs of the same shape after the targets are gone: twice the work, not the peak.
    floats = total * (d + 1) + samples * lags * (1 + 0.75 + 1.5) + 0.75 * samples * d
    return cost(
        "memory-capacity",
        peak_bytes=8 * floats,
        f64_flops=total * 2 * d * d + 2 * 0.75 * samples * (2 * d * d + 4 * d * lags),
        bytes_moved=2 * 8 * 10 * samples * lags,
        ops=total * 6,
        drivers=("samples", "hidden_size", "lags"),
    )


def run(params: Params, ctx: RunContext) -> Outcome:
    """Drive a random RNN with i.i.d. input; least-squares readouts of u_{t-k} from h_t."""
    import torch

    d, rho = int(params["hidden_size"]), float(params["rho"])
    lags = int(params["lags"]) or 2 * d
    samples, tanh = int(params["samples"]), params["activation"] == "tanh"
    gen = generator(ctx.seed)
    dt = torch.float64
    w = (rho * orthogonal(d, generator=gen, dtype=dt)).to(ctx.device)
    w_in = torch.randn(d, generator=gen, dtype=dt).to(ctx.device) * (0.1 if tanh else 1.0)
    total = _WASHOUT + lags + samples
    u = (torch.rand(total, generator=gen, dtype=dt) * 2 - 1).to(ctx.device)
    states = torch.empty(total, d, dtype=dt, device=ctx.device)
    h = torch.zeros(d, dtype=dt, device=ctx.device)
    for t in range(total):
        ctx.check()
        if t % 500 == 0:
            ctx.step(0.6 * t / total, f"driving step {t}")
        pre = w @ h + w_in * u[t]
        h = torch.tanh(pre) if tanh else pre
        states[t] = h
    ctx.step(0.6, "fitting readouts")
    start = _WASHOUT + lags
    x = states[start:]
    targets = torch.stack([u[start - k : total - k] for k in range(1, lags + 1)], dim=1)
    split = int(0.75 * samples)
    r2 = held_out_r2(x, targets, split)
    del targets
    ctx.step(0.8, "chance floor")
    # The same readouts of inputs h_t never saw: what chance alone adds on the held-out steps.
    unseen = torch.rand(samples, lags, generator=gen, dtype=dt).to(ctx.device) * 2 - 1
    chance = float(sum(held_out_r2(x, unseen, split)))
    capacity = float(sum(r2))
    biased = chance >= _BIAS_SHARE * d
    half = next((k + 1 for k, v in enumerate(r2) if v < 0.5), -1)
    answers = (
        Answer("capacity", "total memory capacity ∑ₖ rₖ² (held-out)", capacity, "steps"),
        Answer("bound", "bound: state size d", d, "steps"),
        Answer("capacity_share", "capacity / d", capacity / d),
        Answer("half_lag", "first lag with r² < 0.5", half, "steps"),
        Answer("chance_capacity", "∑ₖ rₖ² for inputs hₜ never saw (chance floor)", chance),
        Answer(
            "few_samples",
            f"1 if the chance floor is ≥ {_BIAS_SHARE:.0%} of d (capacity biased upward)",
            int(biased),
        ),
    )
    table = Table(
        ("lag k", "r² (input k steps back)"),
        tuple((str(k), f"{r2[k - 1]:.3f}") for k in pick_ks(lags)),
    )
    explanation = (
        f"hₜ sirf {d} numbers ka hai, isliye ye zyada se zyada ~{d} purane inputs "
        f"(linear readout se) yaad rakh sakta hai. Measured total capacity {capacity:.1f} "
        f"= {capacity / d:.0%} of d; lag {half} ke baad r² 0.5 se neeche. "
        f"{'tanh saturation capacity aur kam karta hai. ' if tanh else ''}"
        "Jitna bhi lamba sequence ho, fixed-size state ek bottleneck hai."
    )
    if biased:
        explanation += " " + _few_samples_note(samples - split, chance, d)
    ks = tuple(float(k) for k in range(1, lags + 1))
    plot = Plot(
        "recovering the input k steps back",
        "lag k",
        "r²",
        (Series("r²", ks, tuple(r2)),),
    )
    assert math.isfinite(capacity)
    return Outcome(answers, explanation, plot, table)


EXPERIMENT = Experiment(
    name="memory-capacity",
    title="Fixed-size memory: how far back can hₜ reach?",
    summary="Readouts of the input k steps back from hₜ; total capacity against the bound d.",
    params=PARAMS,
    run=run,
    estimate=estimate,
)

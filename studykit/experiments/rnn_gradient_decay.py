"""rnn-gradient-decay: ‖∂h_T/∂h_{T-k}‖ through a tanh RNN with W_hh at spectral radius ρ."""

from __future__ import annotations

import math

from studykit.experiments.base import (
    Answer,
    ClosedForm,
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
from studykit.text.unicodemath import superscript

PARAMS = (
    Param(
        "rho",
        "float",
        0.95,
        "spectral radius ρ of Wₕₕ (an orthogonal matrix times ρ); the note calls it γ",
        low=0,
        high=1.5,
        low_open=True,
        aliases=("gamma",),
    ),
    Param("hidden_size", "int", 64, "hidden units d", low=1, high=1024),
    Param("length", "int", 300, "sequence length T", low=1, high=5000),
    Param(
        "input_scale",
        "float",
        0.0,
        "std of the random inputs; 0 keeps tanh in its linear regime (tanh'(0) = 1)",
        low=0,
        high=100,
    ),
)
# Work per backward segment (a batched d×d step and one SVD each, ~24 d³ flops): about 0.2 s
# here, so a cancel lands well within a second.
_SEGMENT_FLOPS = 2e8


def segment_steps(d: int) -> int:
    """Steps of the batched backward pass per autograd call (at least one)."""
    return max(1, int(_SEGMENT_FLOPS // (24 * d**3)))


def estimate(params: Params) -> Cost:
    """Forward graph (a state and ~1 KiB of autograd nodes per step) and one backward segment."""
    d, length = int(params["hidden_size"]), int(params["length"])
    span = min(length, segment_steps(d))
    forward = length * (3 * 8 * d + 1024)
    # A segment's Jacobians are held three times (the grads, their stack, the SVD's copy),
    # plus a few d × d temporaries of the batched step; ~200 B of Python floats per step.
    segment = (3 * span + 4) * 8 * d * d
    return cost(
        "rnn-gradient-decay",
        peak_bytes=forward + segment + 200 * length,
        f64_flops=length * (4 * d * d + 2 * d**3),
        svd_n3=length * d**3,
        ops=length * 12,
        drivers=("hidden_size", "length"),
    )


def run(params: Params, ctx: RunContext) -> Outcome:
    """Unroll the RNN, then one batched backward pass gives ∂h_T/∂h_t for every t."""
    import torch

    rho, d = float(params["rho"]), int(params["hidden_size"])
    length, scale = int(params["length"]), float(params["input_scale"])
    gen = generator(ctx.seed)
    # float64: ρ^k underflows float32 (1e-38) long before float64 (1e-308).
    dt = torch.float64
    w_hh = (rho * orthogonal(d, generator=gen, dtype=dt)).to(ctx.device)
    w_xh = (torch.randn(d, d, generator=gen, dtype=dt) / math.sqrt(d)).to(ctx.device)
    inputs = (scale * torch.randn(length, d, generator=gen, dtype=dt)).to(ctx.device)
    h = torch.zeros(d, dtype=dt, device=ctx.device, requires_grad=True)
    states = [h]
    for t in range(length):
        if t % 64 == 0:
            ctx.step(0.5 * t / length, f"forward step {t}")
        h = torch.tanh(w_hh @ h + w_xh @ inputs[t])
        states.append(h)
    # Row i of every Jacobian ∂h_T/∂h_t comes from backpropagating the basis vector e_i, a
    # few steps at a time: each call frees its part of the graph and a cancel lands between.
    jac = torch.eye(d, dtype=dt, device=ctx.device)
    norms = torch.linalg.matrix_norm(jac.unsqueeze(0), ord=2).tolist()  # index k: k steps back
    span = segment_steps(d)
    for end in range(length, 0, -span):
        ctx.step(0.5 + 0.5 * (length - end) / length, f"backward from step {end}")
        start = max(0, end - span)
        rows = torch.autograd.grad(
            states[end], states[start:end], grad_outputs=jac, is_grads_batched=True
        )
        norms.extend(torch.linalg.matrix_norm(torch.stack(rows[::-1]), ord=2).tolist())
        jac = rows[0]
        del rows
    bound = [rho**k for k in range(length + 1)]
    ks = list(range(length + 1))
    below = next((k for k, n in enumerate(norms) if n <= 0.01), -1)
    ratio = norms[-1] / bound[-1] if bound[-1] > 0 else math.nan
    answers = (
        Answer("norm_at_T", f"‖∂h[T]/∂h[0]‖ (k = {length})", norms[-1]),
        Answer("bound_at_T", f"ρ{superscript(str(length))}", bound[-1]),
        Answer("ratio_at_T", "measured / ρᵏ at k = T", ratio),
        Answer("k_1_percent", "first k with ‖∂h[T]/∂h[T-k]‖ ≤ 0.01", below, "steps"),
    )
    table = Table(
        ("k", "‖∂h[T]/∂h[T-k]‖", "ρᵏ"),
        tuple((str(k), f"{norms[k]:.4e}", f"{bound[k]:.4e}") for k in pick_ks(length)),
    )
    regime = (
        "Input zero hai, isliye tanh′(0) = 1 aur W orthogonal × ρ: norm bilkul ρᵏ hai."
        if scale == 0
        else "Inputs non-zero hain, tanh′ < 1 hota hai, isliye norm ρᵏ se bhi tez girta hai."
    )
    explanation = (
        f"Har step Jacobian diag(tanh′) · Wₕₕ se multiply hota hai. ρ = {rho}, d = {d}: "
        f"k = {length} steps par gradient norm {norms[-1]:.3e} hai (ρᵏ = {bound[-1]:.3e}). "
        f"{regime} Door ke tokens tak signal exponentially kam pahunchta hai."
    )
    plot = Plot(
        "gradient norm vs distance",
        "k (steps back)",
        "‖∂h[T]/∂h[T-k]‖",
        (
            Series("measured", tuple(map(float, ks)), tuple(norms)),
            Series("ρᵏ", tuple(map(float, ks)), tuple(bound)),
        ),
        log_y=True,
    )
    return Outcome(answers, explanation, plot, table)


EXPERIMENT = Experiment(
    name="rnn-gradient-decay",
    title="Vanishing gradient in a tanh RNN",
    summary="‖∂h[T]/∂h[T-k]‖ for every k through a tanh RNN with Wₕₕ at spectral radius ρ.",
    params=PARAMS,
    run=run,
    estimate=estimate,
    # Zero input keeps tanh' = 1 and W_hh is ρ times an orthogonal matrix: the norm is ρ^k.
    closed_forms=(
        ClosedForm("norm_at_T", "rho**length", rel_tol=1e-9, when=(("input_scale", 0.0),)),
        ClosedForm("ratio_at_T", "1", rel_tol=1e-9, when=(("input_scale", 0.0),)),
    ),
)

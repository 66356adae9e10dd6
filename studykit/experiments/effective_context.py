"""effective-context: how many steps until the gradient through h_t = γ h_{t-1} hits a threshold."""

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
    format_value,
)
from studykit.experiments.costs import cost

PARAMS = (
    Param(
        "gamma",
        "float",
        0.95,
        "decay per step γ of the linear recurrence hₜ = γ hₜ₋₁",
        low=0,
        high=1,
        low_open=True,
        high_open=True,
        aliases=("rho",),
    ),
    Param(
        "threshold",
        "float",
        0.01,
        "gradient size that counts as forgotten",
        low=0,
        high=1,
        low_open=True,
        high_open=True,
    ),
    Param("max_steps", "int", 100_000, "give up after this many steps", low=1, high=10_000_000),
)
_CHUNK = 256
# Per step kept until the end: the gradient (a float in a list and in the plot's y tuple), k
# (an int in a list) and k again as a float for the plot's x tuple.
_BYTES_PER_STEP = 32 + 36 + 32 + 16


def estimate(params: Params) -> Cost:
    """The loop stops at k* = ⌈log thr / log γ⌉ or max_steps, in whole chunks."""
    gamma, threshold = float(params["gamma"]), float(params["threshold"])
    limit = int(params["max_steps"])
    k_star = math.ceil(math.log(threshold) / math.log(gamma))
    steps = min(limit, -(-min(k_star, limit) // _CHUNK) * _CHUNK)
    return cost(
        "effective-context",
        peak_bytes=steps * _BYTES_PER_STEP,
        chain_steps=steps,
        drivers=("max_steps", "gamma"),  # a lower threshold costs more: not one to lower
    )


def run(params: Params, ctx: RunContext) -> Outcome:
    """Unroll the recurrence with autograd until ∂h_k/∂h_0 ≤ threshold."""
    import torch

    gamma, threshold = float(params["gamma"]), float(params["threshold"])
    limit = int(params["max_steps"])
    # float64: γ^k reaches 1e-300 before it underflows, far beyond any threshold we accept.
    # Autograd gives each step's local derivative ∂h_k/∂h_{k-1}, and the chain rule multiplies
    # them into ∂h_k/∂h_0 in one pass (the same products forward-mode AD would carry, without
    # its decompositions, whose first use imports ~1.4 s of torch); no closed form is used to
    # decide when to stop.
    decay = torch.tensor(gamma, dtype=torch.float64, device=ctx.device)
    grads: list[float] = [1.0]
    found: int | None = None
    h = torch.ones((), dtype=torch.float64, device=ctx.device)
    tangent = torch.ones((), dtype=torch.float64, device=ctx.device)
    while found is None and len(grads) <= limit:
        ctx.step(len(grads) / limit, f"step {len(grads)}")
        tangents = []
        for _ in range(min(_CHUNK, limit + 1 - len(grads))):
            previous = h.detach().requires_grad_(True)
            h = decay * previous
            (local,) = torch.autograd.grad(h, previous)
            tangent = tangent * local
            tangents.append(tangent)
        for value in torch.stack(tangents).tolist():
            grads.append(value)
            if value <= threshold * (1 + 1e-12):
                found = len(grads) - 1
                break
    raw = math.log(threshold) / math.log(gamma)
    ceiling = math.ceil(raw - 1e-12)
    measured = found if found is not None else -1
    ks = list(range(len(grads)))
    if found is None:  # k* lies past max_steps: say so, and what to raise (not a mismatch)
        k_label = f"steps to the threshold: not reached within max_steps = {limit}"
        at_label = f"∂hₖ/∂h₀ at k = max_steps = {limit}"
    else:
        k_label = "steps until the gradient reaches the threshold (autograd)"
        at_label = "∂hₖ/∂h₀ at that k"
    answers = (
        Answer("k", k_label, measured, "steps"),
        Answer("raw", "log(threshold) / log(γ)", raw, "steps"),
        Answer("k_star", "ceiling k* = ⌈log(threshold) / log(γ)⌉", ceiling, "steps"),
        Answer("gradient_at_k", at_label, grads[measured], ""),
    )
    picks = sorted({1, 2, 5, 10, 20, 50, 100, 200, 500, measured} & set(ks))
    table = Table(
        ("k", "∂hₖ/∂h₀", "γᵏ"),
        tuple((str(k), f"{grads[k]:.4e}", f"{gamma**k:.4e}") for k in picks),
    )
    decay_text = (
        f"γ = {gamma} par har step gradient ko γ se multiply karta hai, isliye ∂hₖ/∂h₀ = γᵏ. "
    )
    if found is None:
        explanation = decay_text + (
            f"Formula k* = ⌈log(thr)/log(γ)⌉ = {ceiling} steps max_steps = {limit} se aage "
            f"hai: {limit} steps tak gradient {format_value(grads[-1])} hi raha, threshold "
            f"{threshold} tak nahi aaya. max_steps ko kam se kam {ceiling} karo "
            f"(--set max_steps={ceiling}), tab autograd k dikhayega."
        )
    else:
        agreement = "se match karta hai" if measured == ceiling else "se alag hai (float rounding)"
        explanation = decay_text + (
            f"Autograd ne dikhaya ki k = {measured} steps ke baad gradient "
            f"{threshold} tak aa gaya; formula ⌈log(thr)/log(γ)⌉ = {ceiling} {agreement}. "
            "Is se door ka token practically gradient nahi bhejta: yahi effective context hai."
        )
    plot = Plot(
        "gradient through hₜ = γ hₜ₋₁",
        "k (steps back)",
        "∂hₖ/∂h₀",
        (
            Series("autograd", tuple(map(float, ks)), tuple(grads)),
            Series("threshold", (0.0, float(ks[-1])), (threshold, threshold)),
        ),
        log_y=True,
    )
    return Outcome(answers, explanation, plot, table)


EXPERIMENT = Experiment(
    name="effective-context",
    title="Effective context of a decaying recurrence",
    summary="k where the gradient through hₜ = γ hₜ₋₁ falls to a threshold (autograd).",
    params=PARAMS,
    run=run,
    estimate=estimate,
    closed_forms=(
        ClosedForm("k", "ceiling(log(threshold)/log(gamma))", abs_tol=0),
        ClosedForm("k_star", "ceiling(log(threshold)/log(gamma))", abs_tol=0),
        ClosedForm("raw", "log(threshold)/log(gamma)", rel_tol=1e-12),
    ),
)

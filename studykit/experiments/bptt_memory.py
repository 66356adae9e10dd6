"""bptt-memory: bytes autograd saves for backward vs. T, with and without checkpointing."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

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
from studykit.experiments.costs import cost

if TYPE_CHECKING:
    import torch

PARAMS = (
    Param("length", "int", 512, "longest sequence T (also T/8, T/4, T/2)", low=8, high=65_536),
    Param("batch_size", "int", 16, "sequences per batch", low=1, high=4096),
    Param("hidden_size", "int", 128, "width d", low=1, high=8192),
    Param("chunk", "int", 0, "checkpoint chunk; 0 means ⌈√T⌉", low=0, high=65_536),
)


def estimate(params: Params) -> Cost:
    """At T: the unrolled RNN's graph, or explicit attention's scores, whichever is larger."""
    top, b, d = int(params["length"]), int(params["batch_size"]), int(params["hidden_size"])
    lengths = {max(1, top // 8), max(1, top // 4), max(1, top // 2), top}
    # Plain RNN: a B × d state and ~1 KiB of nodes per step. Attention: x, its projection
    # to q, k, v and the output (~5 B·T·d), scores and softmax (2 B·T²), one more during it.
    plain = top * (4 * b * d + 1024)
    attention = 4 * (5 * b * top * d + 3 * b * top * top)
    steps = 2 * sum(lengths) + math.ceil(math.sqrt(top))
    return cost(
        "bptt-memory",
        peak_bytes=4 * 2 * b * top * d + max(plain, attention),
        f32_flops=sum(2 * b * t * d * 3 * d + 4 * b * t * t * d for t in lengths)
        + steps * 4 * b * d * d,
        bytes_moved=sum(4 * 4 * b * t * t for t in lengths),
        ops=steps * 8,
        drivers=("length", "batch_size", "hidden_size"),
    )


def saved_bytes(build: Callable[[], object], existing: list[torch.Tensor]) -> int:
    """Bytes autograd keeps for backward while `build()` runs, beyond `existing` tensors.

    Inputs and weights exist anyway; only storages autograd holds on to besides them count.
    """
    import torch

    skip = {t.untyped_storage().data_ptr() for t in existing}
    seen: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        if storage.data_ptr() not in skip:
            seen[storage.data_ptr()] = storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        build()
    return sum(seen.values())


def _rnn(
    cell: torch.nn.RNNCell, x: torch.Tensor, chunk: int | None, check: Callable[[], None]
) -> torch.Tensor:
    """Unrolled RNN; with `chunk`, each chunk is recomputed in backward (checkpointing)."""
    import torch
    from torch.utils.checkpoint import checkpoint

    h = torch.zeros(x.shape[1], cell.hidden_size, device=x.device)

    def segment(h: torch.Tensor, xs: torch.Tensor) -> torch.Tensor:
        for t in range(xs.shape[0]):
            check()
            h = cell(xs[t], h)
        return h

    if chunk is None:
        return segment(h, x)
    for start in range(0, x.shape[0], chunk):
        # Reentrant checkpoint saves only the chunk's inputs, through our hook.
        out = checkpoint(segment, h, x[start : start + chunk], use_reentrant=True)
        assert isinstance(out, torch.Tensor)
        h = out
    return h


def _attention(x: torch.Tensor, proj: torch.nn.Linear) -> torch.Tensor:
    """Explicit single-head self-attention: softmax(QKᵀ/√d) V, scores kept for backward."""
    import torch

    q, k, v = proj(x).chunk(3, dim=-1)
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    out: torch.Tensor = torch.softmax(scores, dim=-1) @ v
    return out


def run(params: Params, ctx: RunContext) -> Outcome:
    """Measure saved bytes at T/8, T/4, T/2 and T for the three set-ups."""
    import torch

    top, b, d = int(params["length"]), int(params["batch_size"]), int(params["hidden_size"])
    cell = torch.nn.RNNCell(d, d).to(ctx.device)
    proj = torch.nn.Linear(d, 3 * d).to(ctx.device)
    lengths = sorted({max(1, top // 8), max(1, top // 4), max(1, top // 2), top})
    rows = []
    plain, ckpt, attn = [], [], []
    for i, t in enumerate(lengths):
        ctx.step(i / len(lengths), f"T = {t}")
        chunk = int(params["chunk"]) or math.ceil(math.sqrt(t))
        x = torch.randn(t, b, d, device=ctx.device, requires_grad=True)
        weights = [*cell.parameters(), *proj.parameters()]
        plain.append(saved_bytes(partial(_rnn, cell, x, None, ctx.check), [x, *weights]))
        ckpt.append(saved_bytes(partial(_rnn, cell, x, chunk, ctx.check), [x, *weights]))
        xa = torch.randn(b, t, d, device=ctx.device, requires_grad=True)
        attn.append(saved_bytes(partial(_attention, xa, proj), [xa, *weights]))
        rows.append((str(t), str(chunk), _mib(plain[-1]), _mib(ckpt[-1]), _mib(attn[-1])))
    # One chunk's activations are rebuilt during backward: the peak on top of the boundaries.
    chunk = int(params["chunk"]) or math.ceil(math.sqrt(top))
    x = torch.randn(min(chunk, top), b, d, device=ctx.device, requires_grad=True)
    recompute = saved_bytes(lambda: _rnn(cell, x, None, ctx.check), [x, *cell.parameters()])
    growth = math.log(attn[-1] / attn[-2]) / math.log(lengths[-1] / lengths[-2])
    scores = b * top * top * 4
    answers = (
        Answer("rnn_bytes_per_step", "RNN saved bytes per time step (at T)", plain[-1] / top, "B"),
        Answer("rnn_mib", f"RNN saved for backward at T = {top}", plain[-1] / 2**20, "MiB"),
        Answer("checkpoint_mib", f"with checkpointing (chunk {chunk})", ckpt[-1] / 2**20, "MiB"),
        Answer(
            "checkpoint_peak_mib",
            "checkpointing + one chunk recomputed",
            (ckpt[-1] + recompute) / 2**20,
            "MiB",
        ),
        Answer("attention_mib", f"explicit attention saved at T = {top}", attn[-1] / 2**20, "MiB"),
        Answer("attention_growth", "attention growth exponent between the last two T", growth),
        Answer("scores_mib", f"one B×T×T float32 score matrix (B = {b})", scores / 2**20, "MiB"),
    )
    table = Table(
        ("T", "chunk", "RNN (MiB)", "RNN + checkpoint (MiB)", "attention (MiB)"), tuple(rows)
    )
    explanation = (
        f"BPTT har step ka hidden state backward ke liye rakhta hai: T = {top} par "
        f"{plain[-1] / 2**20:.1f} MiB, T ke saath linear. Checkpointing (chunk ≈ √T) sirf chunk "
        f"boundaries rakhta hai: {ckpt[-1] / 2**20:.2f} MiB (+ ek chunk recompute ke waqt). "
        f"Explicit attention T×T scores rakhta hai: {attn[-1] / 2**20:.1f} MiB, growth exponent "
        f"{growth:.2f} (T² term dominate karta hai jab T ≫ d)."
    )
    xs = tuple(float(t) for t in lengths)
    plot = Plot(
        "bytes saved for backward",
        "T",
        "MiB",
        (
            Series("RNN", xs, tuple(v / 2**20 for v in plain)),
            Series("RNN + checkpoint", xs, tuple(v / 2**20 for v in ckpt)),
            Series("attention", xs, tuple(v / 2**20 for v in attn)),
        ),
        log_y=True,
    )
    return Outcome(answers, explanation, plot, table)


def _mib(n: int) -> str:
    return f"{n / 2**20:.2f}"


EXPERIMENT = Experiment(
    name="bptt-memory",
    title="Memory for backpropagation through time",
    summary="Bytes saved for backward vs. T: RNN, RNN with checkpointing, explicit attention.",
    params=PARAMS,
    run=run,
    estimate=estimate,
    # One float32 B × d hidden state per step is kept for backward (plus a few bytes of
    # bookkeeping per step, hence the tolerance).
    closed_forms=(
        ClosedForm("rnn_bytes_per_step", "4*batch_size*hidden_size", rel_tol=0.05, abs_tol=16),
        ClosedForm("scores_mib", "4*batch_size*length**2/2**20", rel_tol=1e-12),
    ),
)

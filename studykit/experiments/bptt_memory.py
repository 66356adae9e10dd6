"""bptt-memory: bytes autograd saves for backward vs. T, with and without checkpointing."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from studykit.experiments.base import (
    Answer,
    ClosedForm,
    Cost,
    Experiment,
    Outcome,
    Param,
    ParamError,
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
    Param(
        "heads",
        "int",
        1,
        "attention heads (must divide hidden_size); each keeps its own T×T weights",
        low=1,
        high=64,
    ),
)


def estimate(params: Params) -> Cost:
    """At T: the unrolled RNN's graph, or explicit attention's scores, whichever is larger."""
    top, b, d = int(params["length"]), int(params["batch_size"]), int(params["hidden_size"])
    heads = int(params["heads"])
    lengths = {max(1, top // 8), max(1, top // 4), max(1, top // 2), top}
    # Plain RNN: a B × d state and ~1 KiB of nodes per step. Attention: x, its projection
    # to q, k, v and the output (~5 B·T·d), and per head its scores, scaled scores and kept
    # softmax (3 B·T²): only the softmax stays alive, but the allocator keeps the pages of
    # the other two as the next head allocates (measured: ~3 B·T² more per head).
    plain = top * (4 * b * d + 1024)
    attention = 4 * (5 * b * top * d + 3 * heads * b * top * top)
    steps = 2 * sum(lengths) + math.ceil(math.sqrt(top))
    return cost(
        "bptt-memory",
        peak_bytes=4 * 2 * b * top * d + max(plain, attention),
        f32_flops=sum(2 * b * t * d * 3 * d + 4 * b * t * t * d for t in lengths)
        + steps * 4 * b * d * d,
        bytes_moved=sum(4 * 4 * heads * b * t * t for t in lengths),
        ops=steps * 8,
        drivers=("length", "batch_size", "hidden_size", "heads"),
    )


@dataclass
class Saved:
    """What autograd saved for backward while a graph was built (seen by saved_tensors_hooks).

    `tensors` counts every save, `inputs` those of tensors that exist anyway (inputs and
    weights); `elements` are those of the distinct storages saved, inputs and weights
    included; `new_elements` and `bytes` only of storages beyond them; `square_bytes` of
    T × T ones.
    """

    tensors: int = 0
    inputs: int = 0
    elements: int = 0
    new_elements: int = 0
    bytes: int = 0
    square_bytes: int = 0


def saved(build: Callable[[], object], existing: list[torch.Tensor], square: int = 0) -> Saved:
    """Count what autograd saves while `build()` runs; `square` = T marks T × T weights."""
    import torch

    skip = {t.untyped_storage().data_ptr() for t in existing}
    out, storages = Saved(), {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        key = storage.data_ptr()
        out.tensors += 1
        out.inputs += key in skip
        if key not in storages:
            storages[key] = storage.nbytes()
            out.elements += storage.nbytes() // t.element_size()
            if key not in skip:
                out.new_elements += storage.nbytes() // t.element_size()
                out.bytes += storage.nbytes()
                if square and t.shape[-2:] == (square, square):
                    out.square_bytes += storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        build()
    return out


def saved_bytes(build: Callable[[], object], existing: list[torch.Tensor]) -> int:
    """Bytes autograd keeps for backward while `build()` runs, beyond `existing` tensors.

    Inputs and weights exist anyway; only storages autograd holds on to besides them count.
    """
    return saved(build, existing).bytes


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


def _attention(
    x: torch.Tensor, proj: torch.nn.Linear, heads: int, check: Callable[[], None]
) -> torch.Tensor:
    """Explicit self-attention, head by head: softmax(Q_h K_hᵀ/√d_h) V_h, weights kept."""
    import torch

    q, k, v = proj(x).chunk(3, dim=-1)
    width = q.shape[-1] // heads
    outs = []
    for h in range(heads):
        check()
        part = slice(h * width, (h + 1) * width)
        scores = q[..., part] @ k[..., part].transpose(-1, -2) / math.sqrt(width)
        outs.append(torch.softmax(scores, dim=-1) @ v[..., part])
    out: torch.Tensor = outs[0] if heads == 1 else torch.cat(outs, dim=-1)
    return out


def _exponent(sizes: list[int], lengths: list[int]) -> float:
    """How `sizes` grows with T between the last two lengths: 1 linear, 2 quadratic (0 when
    there is only one length)."""
    if len(lengths) < 2 or sizes[-2] <= 0 or sizes[-1] <= 0:
        return 0.0
    return math.log(sizes[-1] / sizes[-2]) / math.log(lengths[-1] / lengths[-2])


def run(params: Params, ctx: RunContext) -> Outcome:
    """Measure saved bytes at T/8, T/4, T/2 and T for the three set-ups."""
    import torch

    top, b, d = int(params["length"]), int(params["batch_size"]), int(params["hidden_size"])
    heads = int(params["heads"])
    if d % heads:
        raise ParamError(f"parameter `heads` must divide hidden_size ({d}); got {heads}")
    cell = torch.nn.RNNCell(d, d).to(ctx.device)
    proj = torch.nn.Linear(d, 3 * d).to(ctx.device)
    lengths = sorted({max(1, top // 8), max(1, top // 4), max(1, top // 2), top})
    rows = []
    plain, ckpt, attn = [], [], []
    rnn_saves: list[Saved] = []
    attn_at_top = Saved()
    squares: list[int] = []  # bytes of the T×T softmax weights autograd saved, per length
    for i, t in enumerate(lengths):
        ctx.step(i / len(lengths), f"T = {t}")
        chunk = int(params["chunk"]) or math.ceil(math.sqrt(t))
        x = torch.randn(t, b, d, device=ctx.device, requires_grad=True)
        weights = [*cell.parameters(), *proj.parameters()]
        rnn_saves.append(saved(partial(_rnn, cell, x, None, ctx.check), [x, *weights]))
        plain.append(rnn_saves[-1].bytes)
        ckpt.append(saved_bytes(partial(_rnn, cell, x, chunk, ctx.check), [x, *weights]))
        xa = torch.randn(b, t, d, device=ctx.device, requires_grad=True)
        build = partial(_attention, xa, proj, heads, ctx.check)
        attn_at_top = saved(build, [xa, *weights], square=t)
        attn.append(attn_at_top.bytes)
        squares.append(attn_at_top.square_bytes)
        rows.append((str(t), str(chunk), _mib(plain[-1]), _mib(ckpt[-1]), _mib(attn[-1])))
    # One chunk's activations are rebuilt during backward: the peak on top of the boundaries.
    chunk = int(params["chunk"]) or math.ceil(math.sqrt(top))
    x = torch.randn(min(chunk, top), b, d, device=ctx.device, requires_grad=True)
    recompute = saved_bytes(lambda: _rnn(cell, x, None, ctx.check), [x, *cell.parameters()])
    growth = _exponent(attn, lengths)
    rnn_at_top = rnn_saves[-1]
    per_step = _bytes_per_step(rnn_saves[-2:], lengths[-2:], x.element_size())
    scores = b * top * top * 4
    answers = (
        Answer(
            "rnn_bytes_per_step",
            "RNN: bytes autograd saves per time step (xₜ and hₜ; slope from T/2 to T)",
            per_step,
            "B",
        ),
        Answer(
            "rnn_mib",
            f"RNN: states h₀ … h[T] saved at T = {top} (beyond inputs and weights)",
            plain[-1] / 2**20,
            "MiB",
        ),
        Answer("checkpoint_mib", f"with checkpointing (chunk {chunk})", ckpt[-1] / 2**20, "MiB"),
        Answer(
            "checkpoint_peak_mib",
            "checkpointing + one chunk recomputed",
            (ckpt[-1] + recompute) / 2**20,
            "MiB",
        ),
        Answer("attention_mib", f"explicit attention saved at T = {top}", attn[-1] / 2**20, "MiB"),
        Answer("attention_growth", "attention growth exponent between the last two T", growth),
        Answer(
            "rnn_growth",
            "RNN: growth exponent of the saved states between the last two T",
            _exponent(plain, lengths),
        ),
        Answer(
            "weights_growth",
            "growth exponent of the saved T×T softmax weights between the last two T",
            _exponent(squares, lengths),
        ),
        Answer("scores_mib", f"one B×T×T float32 score matrix (B = {b})", scores / 2**20, "MiB"),
        Answer(
            "weights_mib",
            f"T×T softmax weights saved, {heads} head{'s' if heads > 1 else ''} (B = {b})",
            attn_at_top.square_bytes / 2**20,
            "MiB",
        ),
        Answer(
            "rnn_state_elements",
            "RNN: elements saved beyond inputs and weights (h₀ … h[T])",
            rnn_at_top.new_elements,
        ),
        *_counts("rnn", "RNN", rnn_at_top),
        *_counts("attention", "attention", attn_at_top),
    )
    table = Table(
        ("T", "chunk", "RNN (MiB)", "RNN + checkpoint (MiB)", "attention (MiB)"), tuple(rows)
    )
    explanation = (
        f"BPTT har step ka input xₜ aur hidden state hₜ backward ke liye rakhta hai "
        f"({per_step:.0f} B per step). x waise bhi memory mein hai; naye states h₀ … h[T]: "
        f"T = {top} par {plain[-1] / 2**20:.1f} MiB, T ke saath linear. Checkpointing "
        f"(chunk ≈ √T) sirf chunk boundaries rakhta hai: {ckpt[-1] / 2**20:.2f} MiB "
        "(+ ek chunk recompute ke waqt). "
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


def _bytes_per_step(runs: list[Saved], lengths: list[int], element_size: int) -> float:
    """What one more time step adds to everything autograd saves, inputs included.

    Each step saves its input x_t and the new state h_t (the next step reads it as h_{t-1}):
    2·B·d numbers. Taken as the slope between two lengths, so what is saved once per
    sequence (h_0, the weights) is not spread over the steps.
    """
    (short, long), (t_short, t_long) = runs, lengths
    return (long.elements - short.elements) * element_size / (t_long - t_short)


def _counts(key: str, label: str, got: Saved) -> tuple[Answer, ...]:
    """How many tensors autograd saved at T, how many were inputs or weights, their elements."""
    return (
        Answer(f"{key}_saved_tensors", f"{label}: tensors saved for backward at T", got.tensors),
        Answer(f"{key}_saved_inputs", f"{label}: of those, inputs and weights", got.inputs),
        Answer(
            f"{key}_saved_elements",
            f"{label}: elements in the saved storages (inputs and weights included)",
            got.elements,
        ),
    )


def _mib(n: int) -> str:
    return f"{n / 2**20:.2f}"


EXPERIMENT = Experiment(
    name="bptt-memory",
    title="Memory for backpropagation through time",
    summary="Bytes saved for backward vs. T: RNN, RNN with checkpointing, explicit attention.",
    params=PARAMS,
    run=run,
    estimate=estimate,
    # Each step keeps two float32 B × d tensors for backward: its input x_t and its state h_t.
    closed_forms=(
        ClosedForm("rnn_bytes_per_step", "8*batch_size*hidden_size", rel_tol=1e-12),
        ClosedForm("scores_mib", "4*batch_size*length**2/2**20", rel_tol=1e-12),
        # Each head's softmax output, B × T × T floats, is what softmax and weights·V keep.
        ClosedForm("weights_mib", "4*heads*batch_size*length**2/2**20", rel_tol=1e-12),
        # W_hh·h_{t-1} keeps every state h_0 … h_T; each step also keeps its input x_t, and
        # the weights W_ih, W_hh are saved as they are (biases need nothing).
        ClosedForm("rnn_state_elements", "(length + 1)*batch_size*hidden_size", rel_tol=1e-12),
        ClosedForm(
            "rnn_saved_elements",
            "(2*length + 1)*batch_size*hidden_size + 2*hidden_size**2",
            rel_tol=1e-12,
        ),
        # The input x and projection weight, the fused q, k, v, and each head's T × T weights.
        ClosedForm(
            "attention_saved_elements",
            "4*batch_size*length*hidden_size + 3*hidden_size**2 + heads*batch_size*length**2",
            rel_tol=1e-12,
        ),
    ),
)

"""parallelism: sequential steps, FLOPs, graph depth and wall time, RNN/LSTM vs. attention."""

from __future__ import annotations

from studykit.experiments.base import (
    Answer,
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
from studykit.experiments.common import graph_depth, synchronize, timed
from studykit.experiments.costs import cost

PARAMS = (
    Param("batch_size", "int", 32, "sequences per batch B", low=1, high=4096),
    Param("seq_len", "int", 512, "tokens per sequence T", low=1, high=16_384),
    Param("hidden_size", "int", 128, "model width d", low=2, high=8192),
    Param("layers", "int", 1, "stacked layers L", low=1, high=24),
    Param("cell", "choice", "rnn", "recurrent cell", choices=("rnn", "lstm")),
    Param("heads", "int", 4, "attention heads (must divide hidden_size)", low=1, high=64),
    Param("repeats", "int", 3, "timed runs (median) after one warm-up", low=1, high=100),
)


def estimate(params: Params) -> Cost:
    """Inputs, the encoder's activations and B·heads·T² scores, the batch-1 graph for depths."""
    b, t, d = int(params["batch_size"]), int(params["seq_len"]), int(params["hidden_size"])
    layers, heads, repeats = int(params["layers"]), int(params["heads"]), int(params["repeats"])
    gates = 4 if params["cell"] == "lstm" else 1
    weights = layers * (2 * gates + 12) * d * d
    # No-grad forward: x and the RNN output; the encoder keeps qkv, FF and norms (~10 B·T·d)
    # and one layer's scores (softmax in place) at a time.
    forward = 2 * b * t * d + 10 * b * t * d + b * heads * t * t
    # Depths: batch 1 with autograd, every layer's scores and softmax kept, T unrolled cells.
    depths = layers * (2 * heads * t * t + 12 * t * d) + t * (4 * gates * d + 300)
    rnn_flops, _, attn_flops = flops(params)
    return cost(
        "parallelism",
        peak_bytes=4 * (weights + forward + depths),
        f32_flops=(repeats + 1) * (rnn_flops + attn_flops) + attn_flops / b,
        bytes_moved=(repeats + 1) * layers * b * heads * t * t * 4 * 4,
        ops=(repeats + 1) * layers * t * 4 * gates + t * 40 * gates,
        drivers=("seq_len", "batch_size", "heads", "hidden_size", "layers", "repeats"),
    )


def run(params: Params, ctx: RunContext) -> Outcome:
    """Time forward passes of nn.RNN/nn.LSTM and nn.TransformerEncoder on the device."""
    import torch

    b, t, d = int(params["batch_size"]), int(params["seq_len"]), int(params["hidden_size"])
    layers, heads, cell = int(params["layers"]), int(params["heads"]), str(params["cell"])
    if d % heads:
        raise ParamError(f"parameter `heads` must divide hidden_size ({d}); got {heads}")
    repeats = int(params["repeats"])
    dev = ctx.device
    rnn_cls = torch.nn.LSTM if cell == "lstm" else torch.nn.RNN
    rnn = rnn_cls(d, d, num_layers=layers, batch_first=True).to(dev).train(False)
    layer = torch.nn.TransformerEncoderLayer(
        d, heads, dim_feedforward=4 * d, batch_first=True, dropout=0.0
    )
    encoder = (
        torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False).to(dev).train(False)
    )
    x = torch.randn(b, t, d, device=dev)
    ctx.step(0.05, "graph depth")
    depth_rnn, depth_attn = _depths(rnn, encoder, t, d, cell, ctx)
    ctx.step(0.2, f"timing {cell}")
    with torch.no_grad():
        rnn_s = timed(lambda: rnn(x), dev, repeats, ctx.check)
        ctx.step(0.5, "timing transformer")
        attn_s = timed(lambda: encoder(x), dev, repeats, ctx.check)
    synchronize(dev)
    rnn_flops, self_attn_flops, attn_flops = flops(params)
    ratio = rnn_s / attn_s
    answers = (
        Answer("rnn_steps", f"{cell} sequential steps (T × L)", t * layers, "steps"),
        Answer("attention_steps", "transformer sequential steps (L)", layers, "steps"),
        Answer(
            "rnn_depth",
            f"{cell} autograd critical path (one layer unrolled, T = {t})",
            depth_rnn,
            "nodes",
        ),
        Answer(
            "attention_depth",
            f"transformer autograd critical path ({layers} layers)",
            depth_attn,
            "nodes",
        ),
        Answer("rnn_gflop", f"{cell} forward FLOPs", rnn_flops / 1e9, "GFLOP"),
        Answer("attention_gflop", "transformer forward FLOPs", attn_flops / 1e9, "GFLOP"),
        Answer(
            "self_attention_gflop",
            "of which self-attention (QKV, QKᵀ, weights·V, output projection)",
            self_attn_flops / 1e9,
            "GFLOP",
        ),
        Answer("rnn_ms", f"{cell} forward wall time on {dev}", rnn_s * 1e3, "ms"),
        Answer("attention_ms", f"transformer forward wall time on {dev}", attn_s * 1e3, "ms"),
        Answer("speedup", f"{cell} time / transformer time (>1: transformer faster)", ratio, "×"),
    )
    table = Table(
        ("model", "sequential steps", "graph depth", "GFLOP", "time (ms)", "GFLOP/s"),
        (
            (
                cell,
                str(t * layers),
                str(depth_rnn),
                f"{rnn_flops / 1e9:.2f}",
                f"{rnn_s * 1e3:.1f}",
                f"{rnn_flops / rnn_s / 1e9:.1f}",
            ),
            (
                "transformer",
                str(layers),
                str(depth_attn),
                f"{attn_flops / 1e9:.2f}",
                f"{attn_s * 1e3:.1f}",
                f"{attn_flops / attn_s / 1e9:.1f}",
            ),
        ),
    )
    faster = "transformer" if ratio > 1 else cell
    why = (
        "GPU par hazaaron cores ek saath saare T tokens process karte hain, jabki RNN ko T "
        "steps ek ke baad ek chalane padte hain."
        if dev == "cuda"
        else f"CPU par sirf kuch cores hain: transformer ko {attn_flops / rnn_flops:.1f}× zyada "
        "FLOPs karne padte hain, aur parallelism ka fayda tabhi dikhta hai jab hardware "
        "itna parallel ho (GPU)."
    )
    explanation = (
        f"RNN ko {t * layers} sequential steps chahiye, transformer ko sirf {layers}; autograd "
        f"graph ka critical path {depth_rnn} vs {depth_attn} nodes. Is machine ({dev}) par "
        f"{faster} faster nikla: {cell} {rnn_s * 1e3:.1f} ms, transformer {attn_s * 1e3:.1f} ms "
        f"(ratio {ratio:.2f}×). {why} Purane notes ka '~50×' hardware par depend karta hai."
    )
    plot = Plot(
        "forward wall time (ms)",
        "0 = " + cell + ", 1 = transformer",
        "ms",
        (Series("wall time", (0.0, 1.0), (rnn_s * 1e3, attn_s * 1e3)),),
    )
    return Outcome(answers, explanation, plot, table)


def flops(params: Params) -> tuple[int, int, int]:
    """Forward FLOPs (2 per multiply-add): the RNN, the encoder's self-attention, the encoder.

    Self-attention: Q, K, V and output projections 4·2Td², scores QKᵀ and weights·V 2·2T²d;
    the feed-forward (d → 4d → d) adds 2·8Td². Softmax, norms and biases are left out.
    """
    b, t, d = int(params["batch_size"]), int(params["seq_len"]), int(params["hidden_size"])
    layers, gates = int(params["layers"]), 4 if params["cell"] == "lstm" else 1
    rnn = 2 * layers * b * t * gates * 2 * d * d
    self_attention = 2 * layers * b * (4 * t * d * d + 2 * t * t * d)
    return rnn, self_attention, self_attention + 2 * layers * b * 8 * t * d * d


def _depths(
    rnn: object, encoder: object, t: int, d: int, cell: str, ctx: RunContext
) -> tuple[int, int]:
    """Critical paths with batch 1: an unrolled cell (nn.RNN is one fused node) and the encoder."""
    import torch as tt

    dev = ctx.device
    step = tt.nn.LSTMCell(d, d) if cell == "lstm" else tt.nn.RNNCell(d, d)
    step = step.to(dev)
    x = tt.randn(t, 1, d, device=dev, requires_grad=True)
    h = tt.zeros(1, d, device=dev)
    state: object = (h, h.clone()) if cell == "lstm" else h
    for i in range(t):
        ctx.check()
        state = step(x[i], state)
    last = state[0] if isinstance(state, tuple) else state
    assert isinstance(last, tt.Tensor) and callable(encoder)
    encoded = encoder(tt.randn(1, t, d, device=dev, requires_grad=True))
    return graph_depth(last), graph_depth(encoded)


EXPERIMENT = Experiment(
    name="parallelism",
    title="Sequential RNN vs. parallel attention",
    summary="Sequential steps, FLOPs, autograd depth and wall time: RNN/LSTM vs. transformer.",
    params=PARAMS,
    run=run,
    estimate=estimate,
)

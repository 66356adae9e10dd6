"""long-range: the gradient reaching distance k relative to distance 1, and optional training."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from functools import partial
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
from studykit.experiments.costs import cost

if TYPE_CHECKING:
    import torch

MODELS = ("rnn", "lstm", "attention")
PARAMS = (
    Param("model", "choice", "all", "which model(s)", choices=(*MODELS, "all")),
    Param("distance", "int", 20, "dependency distance k", low=1, high=2000),
    Param("seeds", "int", 5, "independent initialisations (and training runs)", low=1, high=100),
    Param("hidden_size", "int", 32, "model width", low=2, high=1024),
    Param("train", "bool", False, "also train on a copy-the-first-token task", unit=""),
    Param("steps", "int", 300, "training steps per run", low=1, high=100_000),
    Param(
        "dtype",
        "choice",
        "float32",
        "precision of weights, inputs and gradients (float64 resolves ratios below ~1e-38)",
        choices=("float32", "float64"),
    ),
)
_CLASSES = 4


def estimate(params: Params) -> Cost:
    """Per model and seed: the profile pass (batch 16), then training steps (batch 64) and
    the no-grad test batch of 512; memory for the largest of them."""
    kinds = MODELS if params["model"] == "all" else (str(params["model"]),)
    t, seeds, d = int(params["distance"]) + 1, int(params["seeds"]), int(params["hidden_size"])
    train, steps = bool(params["train"]), int(params["steps"])
    size = 8 if params["dtype"] == "float64" else 4
    peak, flops, moved, ops = 0.0, 0.0, 0.0, 0.0
    for kind in kinds:
        per_token, per_pair = _floats_kept(kind, d)
        batches = [16] + ([64] if train else [])
        kept = max(bb * t * (per_token + per_pair * t) for bb in batches)
        # The no-grad test batch of 512 keeps one layer's activations at a time: attention's
        # q, k, v, output and FF (~5 d) with scores and softmax; a recurrent model's in and out.
        test = 512 * t * (5 * d + 2 * t if kind == "attention" else 3 * d) if train else 0
        peak = max(peak, size * (max(kept, test) + 12 * d * d))
        # The profile's batch of 16 keeps its matmuls too thin for the full rate (~1/3).
        profile = _pass(kind, 16, t, d, backward=True)
        passes = [(3 * profile[0], profile[1], profile[2])]
        if kind != "attention":
            # Its gradient underflows to subnormals beyond ~150 steps in float32 (~1200 in
            # float64), and each of those steps runs many times slower (no flush here).
            onset = 150 if size == 4 else 1200
            slow, _, _ = _pass(kind, 16, max(t - onset, 0), d, backward=True)
            passes.append((_SUBNORMAL * slow, 0.0, 0.0))
        if train:
            f, b, o = _pass(kind, 64, t, d, backward=True)
            passes.append((f * steps, b * steps, (o + _STEP_OPS) * steps))
            passes.append(_pass(kind, 512, t, d, backward=False))
        flops += seeds * sum(p[0] for p in passes)
        moved += seeds * size * sum(p[1] for p in passes)
        ops += seeds * sum(p[2] for p in passes)
    return cost(
        "long-range",
        peak_bytes=peak,
        floor="long-range+train" if train else "",
        f32_flops=flops if size == 4 else 0.0,
        f64_flops=flops if size == 8 else 0.0,
        bytes_moved=moved,
        ops=ops,
        drivers=("steps", "seeds", "distance", "hidden_size")
        if train
        else ("distance", "seeds", "hidden_size"),
    )


_GATES = {"rnn": 1, "lstm": 4, "attention": 0}
# A training step beyond the model's passes: the batch, the loss, zero_grad and Adam's update.
_STEP_OPS = 60
# How much slower a backward step on subnormal floats ran (a distance-300 profile, measured).
_SUBNORMAL = 60


def _pass(kind: str, batch: int, t: int, d: int, *, backward: bool) -> tuple[float, float, float]:
    """Flops, floats moved and small ops of one pass (forward, and backward if asked)."""
    times = 3 if backward else 1
    if kind == "attention":
        # q, k, v, output and the 2d-wide FF per token; scores and softmax per token pair.
        flops = batch * 2 * t * (8 * d * d + 2 * t * d)
        return times * flops, times * batch * t * (4 * t + 40 * d), times * 40
    # Per time step: input and hidden matmuls of each gate, and four small calls inside the
    # fused layer (oneDNN runs the whole sequence as one op; measured ~4 ops' time a step).
    flops = batch * t * 4 * _GATES[kind] * d * d
    moved = batch * t * (4 * _GATES[kind] + 2) * d
    return times * flops, times * moved, times * t * 4


def _floats_kept(kind: str, d: int) -> tuple[int, int]:
    """Floats autograd keeps per sequence position, and per position pair (attention scores)."""
    if kind == "attention":
        return 16 * d, 3  # qkv, FF (2d wide), norms; scores, softmax and its grad
    return (2 + 6 * _GATES[kind]) * d, 0  # inputs and per-step hidden state and gates


class _Model:
    """Embedding → rnn / lstm / one self-attention layer → linear head on the last position."""

    def __init__(self, kind: str, d: int, length: int, device: str, dtype: torch.dtype) -> None:
        import torch

        self.kind = kind
        self.embed = torch.nn.Linear(_CLASSES + 1, d).to(device, dtype)
        self.head = torch.nn.Linear(d, _CLASSES).to(device, dtype)
        self.core: torch.nn.Module
        if kind == "attention":
            from studykit.experiments.positional_encoding import encodings

            pe = encodings(length, d + d % 2, 10_000.0, device)
            assert isinstance(pe, torch.Tensor)
            self.pe = pe[:, :d].to(dtype)
            self.core = torch.nn.TransformerEncoderLayer(
                d, 1, dim_feedforward=2 * d, dropout=0.0, batch_first=True
            ).to(device, dtype)
        else:
            cls = torch.nn.LSTM if kind == "lstm" else torch.nn.RNN
            self.core = cls(d, d, batch_first=True).to(device, dtype)

    def parameters(self) -> list[torch.nn.Parameter]:
        return [*self.embed.parameters(), *self.core.parameters(), *self.head.parameters()]

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """Embedded inputs (B, T, d), which the gradient is measured against."""
        e: torch.Tensor = self.embed(x.to(self.embed.weight.dtype))  # drawn in float32
        return e + self.pe if self.kind == "attention" else e

    def forward(self, e: torch.Tensor) -> torch.Tensor:
        """Logits at the last position."""
        out = self.core(e)
        out = out[0] if isinstance(out, tuple) else out
        head: torch.Tensor = self.head(out[:, -1])
        return head


def _batch(batch: int, length: int, device: str, gen: torch.Generator) -> tuple[object, object]:
    """Copy task: the class of the first token must come out at the last position."""
    import torch

    labels = torch.randint(0, _CLASSES, (batch,), generator=gen)
    x = torch.zeros(batch, length, _CLASSES + 1)
    x[torch.arange(batch), 0, labels] = 1.0
    x[:, 1:, _CLASSES] = torch.randn(batch, length - 1, generator=gen)  # distractor noise
    return x.to(device), labels.to(device)


def _gradient_profile(model: _Model, length: int, device: str, gen: torch.Generator) -> list[float]:
    """‖∂y/∂e_{T-j}‖ / ‖∂y/∂e_{T-1}‖ for j = 1 … T-1 (mean over a batch), at the current weights."""
    import torch

    x, _ = _batch(16, length, device, gen)
    assert isinstance(x, torch.Tensor)
    e = model.features(x).detach().requires_grad_(True)
    model.forward(e).sum().backward()  # type: ignore[no-untyped-call]
    assert e.grad is not None
    norms = e.grad.norm(dim=-1).mean(0)  # per position
    last = float(norms[length - 2])
    return [float(norms[length - 1 - j]) / last for j in range(1, length)]


def _train(
    model: _Model,
    length: int,
    steps: int,
    ctx: RunContext,
    gen: torch.Generator,
    report: Callable[[int], None],
) -> float:
    """Adam on the copy task; held-out accuracy at the end. `report(step)` every 10 steps."""
    import torch

    device = ctx.device
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    # Gradients from far back underflow to subnormal floats, which the CPU handles ~100x
    # slower: a distance over ~150 made each step 5-15x slower. Training ignores values that
    # small; the profile above, measured before, keeps them.
    flushing = torch.set_flush_denormal(True)
    try:
        for step in range(steps):
            ctx.check()
            if step % 10 == 0:
                report(step)
            x, y = _batch(64, length, device, gen)
            assert isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor)
            loss = torch.nn.functional.cross_entropy(model.forward(model.features(x)), y)
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
        with torch.no_grad():
            x, y = _batch(512, length, device, gen)
            assert isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor)
            return float((model.forward(model.features(x)).argmax(-1) == y).float().mean())
    finally:
        if flushing:
            torch.set_flush_denormal(False)


def _report(ctx: RunContext, label: str, done: int, total: int, steps: int, step: int) -> None:
    """Progress within one training run, as a share of all runs."""
    ctx.step((done + step / steps) / total, f"{label}: training step {step}")


def run(params: Params, ctx: RunContext) -> Outcome:
    """For each model and seed: the gradient profile at init, then (optionally) train."""
    import torch

    from studykit.experiments.common import checked_autograd, generator

    kinds = MODELS if params["model"] == "all" else (str(params["model"]),)
    k, seeds, d = int(params["distance"]), int(params["seeds"]), int(params["hidden_size"])
    train, steps = bool(params["train"]), int(params["steps"])
    dtype = torch.float64 if params["dtype"] == "float64" else torch.float32
    length = k + 1  # the first token sits k steps before the last
    profiles: dict[str, list[list[float]]] = {kind: [] for kind in kinds}
    accuracy: dict[str, list[float]] = {kind: [] for kind in kinds}
    total, done = len(kinds) * seeds, 0
    for kind in kinds:
        for s in range(seeds):
            ctx.step(done / total, f"{kind}, seed {s}")
            torch.manual_seed(ctx.seed * 1000 + s)
            gen = generator(ctx.seed * 1000 + s)
            model = _Model(kind, d, length, ctx.device, dtype)
            with checked_autograd(ctx.check):
                profiles[kind].append(_gradient_profile(model, length, ctx.device, gen))
                if train:
                    report = partial(_report, ctx, f"{kind}, seed {s}", done, total, steps)
                    accuracy[kind].append(_train(model, length, steps, ctx, gen, report))
            done += 1
    mean_profile = {
        kind: [statistics.fmean(p[j] for p in runs) for j in range(k)]
        for kind, runs in profiles.items()
    }
    answers: list[Answer] = []
    for kind in kinds:
        answers.append(
            Answer(
                f"{kind}_ratio",
                f"{kind}: gradient at distance {k} / at distance 1 (init)",
                mean_profile[kind][k - 1],
            )
        )
    if train:
        for kind in kinds:
            wins = sum(a >= 0.9 for a in accuracy[kind])
            answers.append(
                Answer(
                    f"{kind}_success",
                    f"{kind}: runs reaching ≥ 90% accuracy after {steps} steps",
                    wins / seeds,
                    f"of {seeds}",
                )
            )
    rows = []
    for kind in kinds:
        acc = accuracy[kind]
        rows.append(
            (
                kind,
                f"{mean_profile[kind][k - 1]:.3e}",
                f"{statistics.fmean(acc):.2f}" if acc else "—",
                f"{sum(a >= 0.9 for a in acc)}/{seeds}" if acc else "—",
            )
        )
    table = Table(("model", f"grad ratio at k = {k}", "mean accuracy", "runs ≥ 90%"), tuple(rows))
    trained = ""
    if train:
        trained = (
            " Training ke baad: "
            + ", ".join(
                f"{kind} {sum(a >= 0.9 for a in accuracy[kind])}/{seeds} runs ≥ 90%"
                for kind in kinds
            )
            + f" (chance = {1 / _CLASSES:.0%})."
        )
    explanation = (
        f"Distance {k} se aane wala gradient, distance 1 ke relative, initialisation par: "
        + ", ".join(f"{kind} {mean_profile[kind][k - 1]:.2e}" for kind in kinds)
        + ". Recurrent models mein ye k ke saath exponentially girta hai; attention mein har "
        "position ka seedha connection hai, isliye ratio distance se lagbhag independent hai."
        + trained
    )
    xs = tuple(float(j) for j in range(1, k + 1))
    plot = Plot(
        "gradient reaching distance k (relative to k = 1)",
        "distance k",
        "‖∂y/∂x[T-k]‖ / ‖∂y/∂x[T-1]‖",
        tuple(
            Series(kind, xs, tuple(max(v, 1e-300) for v in mean_profile[kind])) for kind in kinds
        ),
        log_y=True,
    )
    assert all(math.isfinite(v) for prof in mean_profile.values() for v in prof)
    return Outcome(tuple(answers), explanation, plot, table)


EXPERIMENT = Experiment(
    name="long-range",
    title="Long-range dependencies: RNN, LSTM and attention",
    summary="Gradient at distance k relative to distance 1 at init; optional training success.",
    params=PARAMS,
    run=run,
    estimate=estimate,
)

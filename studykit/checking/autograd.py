"""Jacobians, chain rules and norm bounds of a recurrence, against torch autograd in float64.

A tanh RNN (`h_t = tanh(W_hh h_{t-1} + W_xh x_t + b_h)`) and an LSTM's cell state along its
direct path (`c_t = f_t ⊙ c_{t-1} + i_t ⊙ c̃_t`, the gates held fixed) are run on seeded
samples; a bound must hold on every sample, including the ones where it is tight. Every
size is the checker's own and small (4 units, at most 5 steps, 8 samples; a scalar cell
state over at most MAX_CELL_STEPS steps), so a check costs milliseconds. torch is imported
inside the functions.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Final, cast

from studykit.checking.relations import Outcome, agrees
from studykit.checking.texforms import (
    CellGradient,
    Factor,
    Jacobian,
    NormBound,
    Partial,
    formula,
)
from studykit.expressions.statements import statements
from studykit.expressions.texnodes import written_number

if TYPE_CHECKING:
    import torch

HIDDEN: Final = 4
INPUTS: Final = 3
STEPS: Final = 5
# Random weights at a few scales, then the cases where a bound is tight: W = s·(orthogonal)
# with zero inputs makes tanh' = 1 everywhere and ‖∂h_T/∂h_1‖ = s^{T-1} exactly.
_RANDOM_SCALES: Final = (0.5, 1.0, 2.0, 0.5, 1.0, 2.0)
_TIGHT_SCALES: Final = (0.5, 1.5)
MAX_CELL_STEPS: Final = 10_000  # a scalar step each: milliseconds
REL_TOL: Final = 1e-9
SHAPES: Final = "the factors do not multiply in the written order"


@dataclass(frozen=True)
class Sample:
    """One seeded recurrence: weights, the inputs of each step and what the forward pass gives."""

    w: torch.Tensor
    wx: torch.Tensor
    b: torch.Tensor
    h0: torch.Tensor
    xs: torch.Tensor  # (STEPS + 1, INPUTS); row 0 unused
    forget: torch.Tensor  # an LSTM's forget gates per step, (STEPS + 1, HIDDEN)
    write: torch.Tensor  # i_t ⊙ c̃_t per step

    def step(self, state: str, k: int, previous: torch.Tensor) -> torch.Tensor:
        if state == "c":
            return self.forget[k] * previous + self.write[k]
        return (self.w @ previous + self.wx @ self.xs[k] + self.b).tanh()

    def states(self, state: str) -> list[torch.Tensor]:
        found = [self.h0]
        for k in range(1, STEPS + 1):
            found.append(self.step(state, k, found[-1]))
        return found

    def pre_activation(self, k: int) -> torch.Tensor:
        previous = self.states("h")[k - 1]
        return self.w @ previous + self.wx @ self.xs[k] + self.b

    def tanh_prime(self, k: int) -> torch.Tensor:
        return 1 - self.pre_activation(k).tanh() ** 2


def samples() -> Iterator[Sample]:
    import torch

    generator = torch.Generator().manual_seed(20251205)
    f64 = torch.float64

    def normal(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=generator, dtype=f64)

    for scale in _RANDOM_SCALES:
        gates = torch.sigmoid(normal(STEPS + 1, HIDDEN))
        w = scale * normal(HIDDEN, HIDDEN) / math.sqrt(HIDDEN)
        write = torch.sigmoid(normal(STEPS + 1, HIDDEN)) * normal(STEPS + 1, HIDDEN).tanh()
        yield Sample(
            w, normal(HIDDEN, INPUTS), normal(HIDDEN), normal(HIDDEN), normal(STEPS + 1, INPUTS),
            gates, write,
        )  # fmt: skip
    for scale in _TIGHT_SCALES:
        orthogonal, _ = torch.linalg.qr(normal(HIDDEN, HIDDEN))
        zeros = torch.zeros(STEPS + 1, HIDDEN, dtype=f64)
        yield Sample(
            scale * orthogonal, normal(HIDDEN, INPUTS), torch.zeros(HIDDEN, dtype=f64),
            torch.zeros(HIDDEN, dtype=f64), torch.zeros(STEPS + 1, INPUTS, dtype=f64),
            torch.full((STEPS + 1, HIDDEN), scale, dtype=f64), zeros,
        )  # fmt: skip


def reference(sample: Sample, item: Partial, steps: dict[str, int]) -> torch.Tensor:
    """∂(state p)/∂(state q) by autograd; for the loss L = Σ h_T, a 1×d row."""
    import torch

    start = item.wrt.at(steps)
    end = item.of.at(steps) if item.of is not None else steps["T"]
    before = sample.states(item.state)[start]

    def forward(state: torch.Tensor) -> torch.Tensor:
        for k in range(start + 1, end + 1):
            state = sample.step(item.state, k, state)
        return state

    jacobian = torch.autograd.functional.jacobian  # untyped in torch
    matrix = cast("torch.Tensor", jacobian(forward, before))  # type: ignore[no-untyped-call]
    return matrix.sum(dim=0, keepdim=True) if item.of is None else matrix


def _step_values(indices: list[Partial]) -> Iterator[dict[str, int]]:
    """Each assignment of t and T under which every index is a step 0…STEPS, in order."""
    seen: set[tuple[int, ...]] = set()
    for big in range(1, STEPS + 1):
        for small in range(1, big + 1):
            steps = {"T": big, "t": small}
            ends = [(p.of.at(steps) if p.of else big, p.wrt.at(steps)) for p in indices]
            # ∂L/∂h_T has both ends at T: the loss is read at T itself.
            if all(0 <= low <= high <= STEPS for high, low in ends) and all(
                low < high or p.of is None for p, (high, low) in zip(indices, ends, strict=True)
            ):
                key = tuple(value for pair in ends for value in pair)
                if key not in seen:
                    seen.add(key)
                    yield steps


def _expanded(factors: tuple[Factor, ...], steps: dict[str, int]) -> list[Factor] | None:
    """The factors with each `\\cdots` replaced by the one-step Jacobians it stands for.

    None when these steps are too few for the factors written around the `\\cdots`
    (`\\partial h_{T-2}` written before `\\cdots \\partial h_2` needs T ≥ 4).
    """
    from studykit.checking.texforms import Index

    ends = [f.partial.of.at(steps) for f in factors if f.partial and f.partial.of]
    pairs_in_order = list(pairwise(ends))
    if not (all(a > b for a, b in pairs_in_order) or all(a < b for a, b in pairs_in_order)):
        return None  # the factors written around `\\cdots` overlap at these steps
    found: list[Factor] = []
    for k, factor in enumerate(factors):
        if factor.kind != "dots":
            found.append(factor)
            continue
        left = found[-1] if found else None
        right = factors[k + 1] if k + 1 < len(factors) else None
        if not (left and right and left.partial and right.partial and right.partial.of):
            return None
        state, low, high = (
            left.partial.state,
            left.partial.wrt.at(steps),
            right.partial.of.at(steps),
        )
        if high <= low:  # ∂h_T/∂h_{T-1} ⋯ ∂h_2/∂h_1
            pairs = [(j, j - 1) for j in range(low, high, -1)]
        elif left.partial.of is not None and left.partial.of.at(steps) <= right.partial.wrt.at(
            steps
        ):  # ∂h_2/∂h_1 ⋯ ∂h_T/∂h_{T-1}
            first, last = left.partial.of.at(steps), right.partial.wrt.at(steps)
            pairs = [(j + 1, j) for j in range(first, last)]
        else:
            return None
        found += [
            Factor("partial", Partial(Index(None, p), Index(None, q), state)) for p, q in pairs
        ]
    return found


def _product(sample: Sample, factors: list[Factor], steps: dict[str, int]) -> torch.Tensor | None:
    import torch

    result: torch.Tensor | None = None
    for factor in factors:
        if factor.partial is not None:
            matrix = reference(sample, factor.partial, steps)
        elif factor.kind == "diag-tanh'" and factor.step is not None:
            matrix = torch.diag(sample.tanh_prime(factor.step.at(steps)))
        elif factor.kind == "diag-f" and factor.step is not None:
            matrix = torch.diag(sample.forget[factor.step.at(steps)])
        else:
            matrix = sample.w.T if factor.kind == "W^T" else sample.w
        if result is not None and result.shape[-1] != matrix.shape[0]:
            return None
        result = matrix if result is None else result @ matrix
    return result


def check_jacobian(form: Jacobian) -> Outcome | None:
    written = [f.partial for f in form.factors if f.partial is not None]
    checked = 0
    for steps in _step_values([form.target, *written]):
        if not all(0 < f.step.at(steps) <= STEPS for f in form.factors if f.step is not None):
            continue
        factors = _expanded(form.factors, steps)
        if factors is None:
            continue
        for sample in samples():
            expected = reference(sample, form.target, steps)
            got = _product(sample, factors, steps)
            where = ", ".join(f"{name} = {value}" for name, value in steps.items())
            if got is None or got.shape != expected.shape:
                return Outcome("wrong", f"{SHAPES} (at {where}): {_SHAPE_HINT}")
            if not close(got, expected):
                error = float((got - expected).abs().max())
                return Outcome(
                    "wrong",
                    f"torch autograd (float64, {HIDDEN} units, at {where}) gives a different "
                    f"Jacobian: the written product is off by up to {error:.3g}",
                )
            checked += 1
    if not checked:
        return None
    return Outcome("verified")


_SHAPE_HINT: Final = "∂L/∂h is a row, so the chain rule's product starts with it"


def close(got: torch.Tensor, expected: torch.Tensor) -> bool:
    import torch

    return bool(torch.allclose(got, expected, rtol=REL_TOL, atol=1e-12))


def check_bound(form: NormBound) -> Outcome | None:
    import torch

    bound = formula(form.bound, {"S", "M", "G", "T", "t"})
    if bound is None:
        return None
    target = form.target
    for steps in _step_values([target]):
        end = target.of.at(steps) if target.of is not None else steps["T"]
        start = target.wrt.at(steps)
        for sample in samples():
            jacobian = reference(sample, target, steps)
            norm = float(torch.linalg.matrix_norm(jacobian, ord=2))
            norm = norm**2 if form.squared else norm
            step = steps["t"] if "t" in form.bound else end
            values = {
                "S": float(torch.linalg.matrix_norm(sample.w, ord=2)),
                "M": float(sample.tanh_prime(step).max()),
                "G": max(float(sample.tanh_prime(k).max()) for k in range(start + 1, end + 1)),
                **steps,
            }
            limit = bound.evaluate(values)
            holds = norm < limit if form.relation == "<" else norm <= limit * (1 + REL_TOL)
            if not holds:
                where = ", ".join(f"{name} = {value}" for name, value in steps.items())
                return Outcome(
                    "wrong",
                    f"sampled counterexample (float64, {HIDDEN} units, at {where}): the norm is "
                    f"{norm:.6g} but the bound gives {limit:.6g}",
                    f"{limit:.6g}",
                    f"{norm:.6g}",
                )
    return Outcome("verified")


def check_cell_gradient(form: CellGradient, known: Mapping[str, float]) -> Outcome | None:
    """∂c_p/∂c_q along the cell state with the forget gate fixed at the `f` the text gives."""
    import torch

    forget = known.get("f")
    end, start = form.target.of.at({}) if form.target.of else 0, form.target.wrt.at({})
    chains = statements(form.written)
    node = chains[0].sides[0].node if len(chains) == 1 and chains[0].sides else None
    written = written_number(node) if node is not None else None
    if forget is None or written is None or not 0 <= start < end <= MAX_CELL_STEPS:
        return None
    first = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    state = first
    for _ in range(start, end):
        state = forget * state + 0.25  # what the input gate writes does not change ∂c/∂c
    (gradient,) = torch.autograd.grad(state, first)
    computed = float(gradient)
    if agrees(computed, form.relation, written):
        return Outcome("verified")
    shown = f"{float(written[0]):.6g}"
    return Outcome(
        "wrong",
        f"torch autograd along the cell state (f = {forget:g}, {end - start} steps) gives "
        f"{computed:.6g}, not {shown} to the written digits",
        shown,
        f"{computed:.6g}",
    )

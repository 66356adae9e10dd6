"""`bptt-memory`'s bytes per step are what autograd saves at one step of an unrolled RNN."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from studykit.experiments.runner import run_in_process

if TYPE_CHECKING:
    from torch import Tensor

torch = pytest.importorskip("torch")


def saved_per_step(batch: int, width: int, steps: int) -> list[int]:
    """Bytes of the memory autograd first saves at each step (weights left out).

    A saved tensor is told apart by its storage, offset and size, so the step's slice of the
    input `x[t]` counts as its own, and a state saved twice (as one step's output and the
    next step's input) counts once, at the step that made it.
    """
    cell = torch.nn.RNNCell(width, width)
    weights = {p.untyped_storage().data_ptr() for p in cell.parameters()}
    x = torch.randn(steps, batch, width, requires_grad=True)
    seen: set[tuple[int, int, int]] = set()
    per_step: list[int] = []

    def pack(t: Tensor) -> Tensor:
        key = (t.untyped_storage().data_ptr(), int(t.storage_offset()), t.numel())
        if key[0] not in weights and key not in seen:
            seen.add(key)
            per_step[-1] += t.numel() * t.element_size()
        return t

    h = torch.zeros(batch, width)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        for step in range(steps):
            per_step.append(0)
            h = cell(x[step], h)
    return per_step


@pytest.mark.parametrize(("batch", "width"), [(4, 128), (16, 128), (1, 8)])
def test_bytes_per_step_are_what_autograd_saves_at_a_step(batch: int, width: int) -> None:
    per_step = saved_per_step(batch, width, steps=6)
    state = batch * width * 4  # one float32 B × d tensor
    # The first step also saves h_0; every step saves its x_t and its new h_t.
    assert per_step == [3 * state] + [2 * state] * 5
    result = run_in_process(
        "bptt-memory", {"length": 16, "batch_size": batch, "hidden_size": width}, device="cpu"
    )
    got = {a.key: a.value for a in result.outcome.answers}
    assert got["rnn_bytes_per_step"] == per_step[-1]

"""A cancel lands within a second mid-training, mid-backward and mid-Jacobian, in-process."""

from __future__ import annotations

import time

import pytest

from studykit.experiments.base import Cancelled
from studykit.experiments.common import checked_autograd
from studykit.experiments.runner import run_in_process

torch = pytest.importorskip("torch")


class CancelAfter:
    """A cancel flag that turns True `delay` s after the first progress message starting so.

    The prefix names a point past the first step of the loop under test, whose one-time
    imports (torch.optim, vmap) would otherwise be measured instead of the loop.
    """

    def __init__(self, prefix: str, delay: float = 0.3) -> None:
        self.prefix, self.delay = prefix, delay
        self.flagged_at: float | None = None
        self.seen: list[str] = []

    def progress(self, fraction: float, message: str) -> None:
        self.seen.append(message)
        if self.flagged_at is None and message.startswith(self.prefix):
            self.flagged_at = time.perf_counter() + self.delay

    def __call__(self) -> bool:
        return self.flagged_at is not None and time.perf_counter() >= self.flagged_at


@pytest.mark.parametrize(
    ("name", "params", "prefix"),
    [
        # Adam steps on the copy task, each checked; flagged 20 steps in.
        (
            "long-range",
            {"model": "rnn", "distance": 10, "train": True, "steps": 100_000, "seeds": 1},
            "rnn, seed 0: training step 20",
        ),
        # The batched backward pass of the Jacobians, segment by segment; 3 segments in.
        ("rnn-gradient-decay", {"hidden_size": 256, "length": 1000}, "backward from step 997"),
        # Softmax Jacobians of 1500 keys (9 MB each), block by block.
        ("attention-scaling", {"keys": 1500}, "d_k = 64"),
        # nn.RNN over 2000 steps: checked at each autograd node as the graph is built.
        ("long-range", {"model": "rnn", "distance": 2000, "hidden_size": 512}, "rnn, seed 0"),
    ],
    ids=["training", "batched-backward", "softmax-jacobian", "nn-rnn-forward"],
)
def test_cancel_lands_within_a_second(name: str, params: dict[str, object], prefix: str) -> None:
    flag = CancelAfter(prefix)
    with pytest.raises(Cancelled):
        # In this process and unbudgeted: these sizes are over the default budget on purpose.
        run_in_process(name, params, device="cpu", progress=flag.progress, cancelled=flag)
    assert flag.flagged_at is not None, f"never reached {prefix!r}: {flag.seen}"
    took = time.perf_counter() - flag.flagged_at
    print(f"{name} {params}: cancelled {took:.3f} s after the flag")
    assert took < 1.0


def test_one_long_backward_stops_within_a_second() -> None:
    # One backward() through nn.RNN over 1000 steps takes seconds here; its nodes check.
    rnn = torch.nn.RNN(384, 384, batch_first=True)
    x = torch.randn(16, 1000, 384, requires_grad=True)
    deadline = [float("inf")]

    def check() -> None:
        if time.perf_counter() >= deadline[0]:
            raise Cancelled("cancelled")

    with checked_autograd(check):
        loss = rnn(x)[0][:, -1].sum()
    # Its nodes unpack their saved tensors in the first ~half of it (0.26 s of 0.56 s on the
    # development machine): the flag must come while they still run.
    deadline[0] = time.perf_counter() + 0.1
    with pytest.raises(Cancelled):
        loss.backward()
    took = time.perf_counter() - deadline[0]
    print(f"nn.RNN backward: cancelled {took:.3f} s after the flag")
    assert 0 <= took < 1.0

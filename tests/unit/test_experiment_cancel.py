"""A cancel lands within a second mid-training, mid-backward and mid-Jacobian, in-process."""

from __future__ import annotations

import time

import pytest

from studykit.experiments.base import Cancelled
from studykit.experiments.runner import run_experiment

pytest.importorskip("torch")


class CancelAfter:
    """A cancel flag that turns True `delay` s after the first progress message starting so.

    The prefix names a point past the first step of the loop under test, whose one-time
    imports (torch.optim, vmap) would otherwise be measured instead of the loop.
    """

    def __init__(self, prefix: str, delay: float) -> None:
        self.prefix, self.delay = prefix, delay
        self.flagged_at: float | None = None
        self.seen: list[str] = []

    def progress(self, fraction: float, message: str) -> None:
        self.seen.append(message)
        if self.flagged_at is None and message.startswith(self.prefix):
            self.flagged_at = time.perf_counter() + self.delay

    def __call__(self) -> bool:
        return self.flagged_at is not None and time.perf_counter() >= self.flagged_at


def latency(name: str, params: dict[str, object], flag: CancelAfter) -> float:
    """Seconds from the flag turning True to Cancelled coming out of the run."""
    with pytest.raises(Cancelled):
        run_experiment(name, params, device="cpu", progress=flag.progress, cancelled=flag)
    assert flag.flagged_at is not None, f"never reached {flag.prefix!r}: {flag.seen}"
    return time.perf_counter() - flag.flagged_at


@pytest.mark.parametrize(
    ("name", "params", "prefix"),
    [
        # Adam steps on the copy task: thousands of steps, each checked.
        (
            "long-range",
            {"model": "lstm", "distance": 100, "train": True, "steps": 100_000, "seeds": 1},
            "lstm, seed 0: training step 100",
        ),
        # One backward() through nn.RNN over 2000 steps: checked at its autograd nodes.
        ("long-range", {"model": "rnn", "distance": 2000, "hidden_size": 512, "seeds": 3}, "rnn"),
        # The batched backward pass of the Jacobians, segment by segment.
        ("rnn-gradient-decay", {"hidden_size": 256, "length": 2000}, "backward from step 1990"),
        # Softmax Jacobians of 1500 keys (9 MB each), block by block.
        ("attention-scaling", {"keys": 1500}, ""),
    ],
    ids=["training", "rnn-backward", "batched-backward", "softmax-jacobian"],
)
def test_cancel_lands_within_a_second(name: str, params: dict[str, object], prefix: str) -> None:
    flag = CancelAfter(prefix, delay=0.3)
    took = latency(name, params, flag)
    print(f"{name} {params}: cancelled {took:.3f} s after the flag")
    assert took < 1.0

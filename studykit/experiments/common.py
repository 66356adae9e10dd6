"""Small torch helpers the experiments share (torch is imported inside each function)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch


def orthogonal(size: int, *, generator: torch.Generator, dtype: torch.dtype) -> torch.Tensor:
    """A random orthogonal matrix (QR of a Gaussian, signs fixed so it is Haar-distributed)."""
    import torch

    gauss = torch.randn(size, size, generator=generator, dtype=torch.float64)
    q, r = torch.linalg.qr(gauss)
    q = q * torch.sign(torch.diagonal(r)).unsqueeze(0)
    out: torch.Tensor = q.to(dtype)
    return out


def generator(seed: int) -> torch.Generator:
    """A CPU generator seeded for this run (tensors are moved to the device after)."""
    import torch

    gen = torch.Generator()
    gen.manual_seed(seed)
    return gen


def pick_ks(length: int) -> list[int]:
    """A few distances from 1 to `length` for a table: 1, 2, 5, 10, 20, 50, ... and `length`."""
    out: list[int] = []
    base = 1
    while base <= length:
        out.extend(k for k in (base, 2 * base, 5 * base) if k <= length)
        base *= 10
    return sorted({*out, length})


def synchronize(device: str) -> None:
    """Wait for queued GPU work, so wall times measure it."""
    if device == "cuda":
        import torch

        torch.cuda.synchronize()


def graph_depth(output: torch.Tensor) -> int:
    """Longest chain of autograd nodes from `output` back to a leaf: the critical path."""
    root = output.grad_fn
    if root is None:
        return 0
    depth: dict[object, int] = {}
    stack: list[tuple[object, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if node in depth:
            continue
        children = [n for n, _ in getattr(node, "next_functions", ()) if n is not None]
        if expanded:
            depth[node] = 1 + max((depth[c] for c in children), default=0)
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in children if c not in depth)
    return depth[root]


def timed(fn: object, device: str, repeats: int, check: Callable[[], None] = lambda: None) -> float:
    """Median wall time of `fn()` over `repeats` runs after one warm-up (GPU synchronised)."""
    import statistics

    assert callable(fn)
    check()
    fn()
    synchronize(device)
    samples = []
    for _ in range(repeats):
        check()
        start = time.perf_counter()
        fn()
        synchronize(device)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


@contextmanager
def checked_autograd(check: Callable[[], None], every: float = 0.05) -> Iterator[None]:
    """Call `check` (at most every `every` s) as autograd saves and reuses tensors.

    Graphs built inside get a cancel check at every node of their forward and backward
    passes, so one long `backward()` (e.g. through nn.RNN) still stops within a moment.
    """
    import torch

    last = [time.perf_counter()]

    def tick(tensor: torch.Tensor) -> torch.Tensor:
        now = time.perf_counter()
        if now - last[0] >= every:
            last[0] = now
            check()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(tick, tick):
        yield

"""The sinusoidal encoding and scaled dot-product attention, against torch references.

The reference encoding is built as the transformer's reference code builds it (sin at even
columns, cos at odd ones, base 10000); attention is torch's `scaled_dot_product_attention`.
A written formula is evaluated by the project's expression parser at every column of a few
sizes (d up to 512, or the one d the text gives, at most MAX_PE_DIM).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from studykit.checking.autograd import REL_TOL, SHAPES, close
from studykit.checking.relations import Outcome
from studykit.checking.texforms import Attention, Encoding, EncodingNorm, Softmax, formula

if TYPE_CHECKING:
    import torch

_PE_DIMS: Final = (4, 16, 64)
_PE_NORM_DIMS: Final = (4, 16, 64, 512)
_POSITIONS: Final = (0, 1, 5, 37, 1000)
MAX_PE_DIM: Final = 8192  # a d the text gives: 1001 positions × d float64, 64 MiB at most


def encoding(positions: int, d: int) -> torch.Tensor:
    """The sinusoidal encoding as the transformer's reference code builds it."""
    import torch

    position = torch.arange(positions, dtype=torch.float64).unsqueeze(1)
    rate = torch.exp(torch.arange(0, d, 2, dtype=torch.float64) * (-math.log(10000.0) / d))
    table = torch.zeros(positions, d, dtype=torch.float64)
    table[:, 0::2] = torch.sin(position * rate)
    table[:, 1::2] = torch.cos(position * rate)
    return table


def check_encoding(form: Encoding) -> Outcome | None:
    written = formula(form.formula, {"P", "i", "d"})
    if written is None:
        return None
    column = "2i+1" if form.odd else "2i"
    for d in _PE_DIMS:
        table = encoding(max(_POSITIONS) + 1, d)
        for i in sorted({0, 1, d // 4, d // 2 - 1}):  # first, last and between: enough
            for pos in _POSITIONS:
                got = written.evaluate({"P": pos, "i": i, "d": d})
                expected = float(table[pos, 2 * i + form.odd])
                if not math.isclose(got, expected, rel_tol=REL_TOL, abs_tol=1e-12):
                    return Outcome(
                        "wrong",
                        f"at pos = {pos}, i = {i}, d = {d} the formula gives {got:.6g}; the "
                        f"reference sinusoidal encoding (sin at 2i, cos at 2i+1, base 10000) "
                        f"has {expected:.6g} at column {column}",
                        f"{expected:.6g}",
                        f"{got:.6g}",
                    )
    return Outcome("verified")


def check_encoding_norm(form: EncodingNorm, known: Mapping[str, float]) -> Outcome | None:
    import torch

    written = formula(form.formula, {"d", "P"})
    if written is None:
        return None
    dims: tuple[int, ...] = _PE_NORM_DIMS
    if "d" not in written.names:  # `\\|PE\\| = \\sqrt{256}` after `d = 512`: that d only
        given = known.get("d")
        if given is None or not given.is_integer() or not 2 <= given <= MAX_PE_DIM:
            return None
        dims = (int(given),)
    for d in dims:
        table = encoding(max(_POSITIONS) + 1, d)
        for pos in _POSITIONS:
            norm = float(torch.linalg.vector_norm(table[pos]))
            expected = norm**2 if form.squared else norm
            got = written.evaluate({"d": d, "P": pos})
            if not math.isclose(got, expected, rel_tol=REL_TOL):
                return Outcome(
                    "wrong",
                    f"at d = {d}, pos = {pos} the reference encoding's norm"
                    f"{'²' if form.squared else ''} is {expected:.6g}, the formula gives {got:.6g}",
                    f"{expected:.6g}",
                    f"{got:.6g}",
                )
    return Outcome("verified")


def check_attention(form: Attention) -> Outcome | None:
    import torch

    scale = formula(form.scale, {"d_k"})
    if scale is None or not set(form.written) <= {form.query, form.key, form.value}:
        return None
    generator = torch.Generator().manual_seed(20251205)
    for d_k in (4, 16):
        q, k, v = (torch.randn(n, m, generator=generator, dtype=torch.float64)
                   for n, m in ((5, d_k), (6, d_k), (6, 3)))  # fmt: skip
        given = {form.query: q, form.key: k, form.value: v}
        a, b, c = (given[name] for name in form.written)
        expected = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        if a.shape[1] != b.shape[1] or b.shape[0] != c.shape[0]:
            return Outcome("wrong", f"{SHAPES}: softmax({form.written[0]}{form.written[1]}^⊤)")
        got = torch.softmax(a @ b.T / scale.evaluate({"d_k": d_k}), dim=-1) @ c
        if got.shape != expected.shape or not close(got, expected):
            return Outcome(
                "wrong",
                f"differs from torch's scaled_dot_product_attention (float64, d_k = {d_k}): "
                "the reference is softmax(QK^⊤/√d_k)V",
            )
    return Outcome("verified")


def check_softmax(form: Softmax) -> Outcome | None:
    """Attention weights written out, against torch's softmax over each row of scores."""
    import torch

    size = 5
    scores = torch.randn(
        size, size, generator=torch.Generator().manual_seed(7), dtype=torch.float64
    )
    expected = torch.softmax(scores, dim=-1)
    outer = {form.row, form.column}
    if not set(form.top) <= outer or not set(form.bottom) <= outer | {form.over}:
        return None
    for i in range(size):
        for j in range(size):
            given = {form.row: i, form.column: j}
            top = scores[given[form.top[0]], given[form.top[1]]].exp()
            bottom = sum(
                float(scores[({**given, form.over: k})[form.bottom[0]],
                             ({**given, form.over: k})[form.bottom[1]]].exp())
                for k in range(size)
            )  # fmt: skip
            got = float(top) / bottom
            if not math.isclose(got, float(expected[i, j]), rel_tol=REL_TOL):
                return Outcome(
                    "wrong",
                    f"differs from torch.softmax over each row of the scores (float64, "
                    f"{size}×{size}) at {form.row} = {i}, {form.column} = {j}: the weights of "
                    f"one {form.row} must be normalised over its {form.column}",
                )
    return Outcome("verified")

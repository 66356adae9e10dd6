"""Recognising, in TeX as the notes write it, the formulas that are checked numerically.

String work and the project's parser, no torch: an equation's sides become a form that
`autograd` or `references` evaluates against a reference. What no form recognises stays
None, and the equation is then skipped with a category.

- a Jacobian `\\frac{\\partial h_t}{\\partial h_{t-1}}` equal to a product of `\\mathrm{diag}(…)`,
  `W_{hh}` or `W_{hh}^\\top` factors, or to a chain of `\\frac{\\partial}{\\partial}` factors
  (with `\\cdots` for the factors in between);
- a norm bound `\\left\\| J \\right\\| \\le` an expression in `\\sigma_{\\max}(W_{hh})`,
  `\\max_i \\tanh'(a_{t,i})`, `\\max_{t,i} \\tanh'(a_{t,i})` and names defined earlier;
- the sinusoidal encoding `PE_{(pos, 2i)} = …`, `PE_{(pos, 2i+1)} = …`, and `\\|PE(pos)\\|`;
- attention `\\mathrm{Attention}(Q, K, V) = \\mathrm{softmax}(\\frac{QK^\\top}{s}) V`, and
  weights written out: `\\alpha_{ij} = \\frac{\\exp(e_{ij})}{\\sum_{k=1}^{T} \\exp(e_{ik})}`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from studykit.checking.relations import expression
from studykit.expressions import Expression, ExpressionError
from studykit.expressions.statements import statements
from studykit.expressions.texlex import TexError
from studykit.expressions.texnodes import names

# Step indices a formula may write: `t`, `t-1`, `T`, `T-2`, `1`, `50`.
_INDEX: Final = re.compile(r"^(?:([tT])([+-]\d+)?|(\d+))$")
_SIZING: Final = re.compile(r"\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big)(?![A-Za-z])")
_NAMED: Final = re.compile(r"\\(?:mathrm|operatorname|text)\{(\w+)\}")


@dataclass(frozen=True, slots=True)
class Index:
    """A step index: `base` (t or T, or None for a number) plus `offset`."""

    base: str | None
    offset: int

    def at(self, steps: Mapping[str, int]) -> int:
        return self.offset + (steps[self.base] if self.base else 0)


@dataclass(frozen=True, slots=True)
class Partial:
    """`\\partial X_p / \\partial Y_q`; `of` is None for the loss `L`."""

    of: Index | None
    wrt: Index
    state: str  # h (a tanh RNN's state) or c (an LSTM's cell state)


@dataclass(frozen=True, slots=True)
class Factor:
    """One factor of a written product: a Jacobian, `\\cdots`, a diagonal or W_hh."""

    kind: str  # "partial", "dots", "diag-tanh'", "diag-f", "W", "W^T"
    partial: Partial | None = None
    step: Index | None = None  # the step of a diagonal factor's `a_t` or `f_t`


@dataclass(frozen=True, slots=True)
class Jacobian:
    target: Partial
    factors: tuple[Factor, ...]


@dataclass(frozen=True, slots=True)
class NormBound:
    target: Partial
    relation: str
    bound: str  # TeX over the names S (σ_max), M_step (max_i tanh'), G (max over t, i)
    squared: bool = False


@dataclass(frozen=True, slots=True)
class Encoding:
    odd: bool  # PE(pos, 2i+1)
    formula: str  # TeX over P (the position), i and d


@dataclass(frozen=True, slots=True)
class EncodingNorm:
    squared: bool
    formula: str  # TeX over d


@dataclass(frozen=True, slots=True)
class Attention:
    query: str
    key: str
    value: str
    written: tuple[str, str, str]  # the names in softmax(AB^T/s)C: A, B, C
    scale: str  # TeX over d_k


@dataclass(frozen=True, slots=True)
class CellGradient:
    """`\\partial c_{50} / \\partial c_0 \\approx 8.88 \\times 10^{-16}`: a number, with f given."""

    target: Partial
    relation: str
    written: str  # the right side's TeX


@dataclass(frozen=True, slots=True)
class Softmax:
    """`\\alpha_{ij} = \\frac{\\exp(e_{ij})}{\\sum_{k=1}^{T} \\exp(e_{ik})}`, by its indices."""

    row: str  # the weight's first index (i)
    column: str  # its second (j)
    top: tuple[str, str]  # e's indices in the numerator
    over: str  # the summation index (k)
    bottom: tuple[str, str]  # e's indices under the sum


Form = Jacobian | NormBound | Encoding | EncodingNorm | Attention | CellGradient | Softmax


def normal(tex: str) -> str:
    """`tex` without spacing, sizing and `\\mathrm`, one-letter scripts braced, ⊤ as T."""
    tex = _SIZING.sub("", tex)
    tex = _NAMED.sub(r"\1", tex)
    tex = re.sub(r"\\[,;:! ]|\s+", "", tex)
    tex = re.sub(r"\^\{\\top\}|\^\\top|\^\{T\}|\^T(?![\w{])", "^T", tex)
    tex = tex.replace("\\|", "‖").replace("\\Vert", "‖").replace("\\lVert", "‖")
    tex = tex.replace("\\rVert", "‖")
    return re.sub(r"_([A-Za-z0-9])", r"_{\1}", tex).rstrip(",.")


def index(text: str) -> Index | None:
    found = _INDEX.match(text)
    if found is None:
        return None
    if found.group(3) is not None:
        return Index(None, int(found.group(3)))
    return Index(found.group(1), int(found.group(2) or 0))


_PARTIAL: Final = re.compile(
    r"\\frac\{\\partial([a-zA-Z])(?:_\{([^{}]+)\})?\}\{\\partial([hc])_\{([^{}]+)\}\}"
)
_SLASH: Final = re.compile(r"\\partial([a-zA-Z])(?:_\{([^{}]+)\})?/\\partial([hc])_\{([^{}]+)\}")


def partial(tex: str) -> Partial | None:
    """`\\frac{\\partial h_t}{\\partial h_{t-1}}` (or with `/`) as a Partial."""
    found = _PARTIAL.fullmatch(tex) or _SLASH.fullmatch(tex)
    if found is None:
        return None
    name, of_text, state, wrt_text = found.groups()
    wrt = index(wrt_text)
    if wrt is None:
        return None
    if name == "L" and of_text is None:
        return Partial(None, wrt, state)
    of = index(of_text) if of_text is not None else None
    if name != state or of is None:
        return None
    return Partial(of, wrt, state)


_TANH_PRIME: Final = (
    r"\\tanh'\(a_\{([^{}]+)\}\)",
    r"1-\\tanh\^\{?2\}?\(a_\{([^{}]+)\}\)",
    r"1-h_\{([^{}]+)\}\^\{?2\}?",
)
_FACTORS: Final = [
    (re.compile(r"diag\((?:" + "|".join(_TANH_PRIME) + r")\)"), "diag-tanh'"),
    (re.compile(r"diag\(f_\{([^{}]+)\}\)"), "diag-f"),
    (re.compile(r"W_\{hh\}\^T"), "W^T"),
    (re.compile(r"W_\{hh\}"), "W"),
    (re.compile(r"\\cdots|\\dots"), "dots"),
    (re.compile(r"\\cdot|\\times"), ""),
    (
        re.compile(r"\\frac\{\\partial[a-zA-Z](?:_\{[^{}]+\})?\}\{\\partial[hc]_\{[^{}]+\}\}"),
        "partial",
    ),
]


def factors(tex: str) -> tuple[Factor, ...] | None:
    """A product written as factors, or None when any part is not a known factor."""
    found: list[Factor] = []
    rest = tex
    while rest:
        for pattern, kind in _FACTORS:
            match = pattern.match(rest)
            if match is None:
                continue
            rest = rest[match.end() :]
            if kind == "partial":
                item = partial(match.group(0))
                if item is None:
                    return None
                found.append(Factor("partial", partial=item))
            elif kind.startswith("diag"):
                step = index(next(group for group in match.groups() if group is not None))
                if step is None:
                    return None
                found.append(Factor(kind, step=step))
            elif kind:
                found.append(Factor(kind))
            break
        else:
            return None
    return tuple(found) if found else None


_NORM: Final = re.compile(r"‖(.+)‖(\^\{?2\}?)?")
_BOUND_NAMES: Final = [
    (re.compile(r"\\sigma_\{\\max\}\(W_\{hh\}\)"), "S"),
    (re.compile(r"\\max_\{t,i\}\\tanh'\(a_\{t,i\}\)"), "G"),
    (re.compile(r"\\max_\{i\}\\tanh'\(a_\{t,i\}\)"), "M"),
]


def bound_formula(tex: str, written: Mapping[str, str]) -> str | None:
    """The bound with σ_max, the maxima and earlier definitions (γ) put in as names."""
    for _ in range(4):  # a definition may use another one; a few levels are plenty
        for name, definition in written.items():
            tex = tex.replace(name, "(" + definition + ")")
    if re.search(r"(?<!\\)\b[SGM]\b", tex):
        return None  # the names stand for the maxima; a formula writing them itself is not ours
    for pattern, name in _BOUND_NAMES:
        tex = pattern.sub(" " + name + " ", tex)
    return None if "\\max" in tex or "\\sigma" in tex or "\\partial" in tex else tex


def recognise(left: str, relation: str, right: str, written: Mapping[str, str]) -> Form | None:
    """The form of `left relation right`, or None when it is none of the checked ones."""
    a, b = normal(left), normal(right)
    target = partial(a)
    if target is not None and relation == "=":
        product = factors(b)
        return Jacobian(target, product) if product is not None else None
    if target is not None and relation == "≈" and target.state == "c":
        numeric = target.of is not None and target.of.base is None and target.wrt.base is None
        return CellGradient(target, relation, right) if numeric else None
    norm = _NORM.fullmatch(a)
    if norm is not None:
        inner, squared = norm.group(1), norm.group(2) is not None
        if inner in ("PE(pos)", "PE") and relation == "=":
            return EncodingNorm(squared, _with_position(b))
        target = partial(inner)
        if target is not None and relation in ("≤", "<"):
            formula = bound_formula(b, {normal(k): normal(v) for k, v in written.items()})
            return NormBound(target, relation, formula, squared) if formula else None
        return None
    if relation != "=":
        return None
    return _softmax(a, b) or _encoding(a, b)


def _softmax(left: str, right: str) -> Softmax | None:
    weight = re.fullmatch(r"\\alpha_\{(\w)(\w)\}", left)
    written = re.fullmatch(
        r"\\frac\{\\exp\(e_\{(\w)(\w)\}\)\}"
        r"\{\\sum_\{(\w)=1\}\^\{?\w\}?\\exp\(e_\{(\w)(\w)\}\)\}",
        right,
    )
    if weight is None or written is None:
        return None
    top_row, top_column, over, bottom_row, bottom_column = written.groups()
    return Softmax(
        weight.group(1), weight.group(2), (top_row, top_column), over, (bottom_row, bottom_column)
    )


def _with_position(tex: str) -> str:
    return re.sub(r"(?<![A-Za-z\\])pos(?![A-Za-z])", "P", tex)


def _encoding(left: str, right: str) -> Form | None:
    found = re.fullmatch(r"PE(?:_\{\((pos),(2i(?:\+1)?)\)\}|\((pos),(2i(?:\+1)?)\))", left)
    if found is not None:
        parity = found.group(2) or found.group(4)
        return Encoding(parity == "2i+1", _with_position(right))
    attention = re.fullmatch(r"Attention\(([A-Z]),([A-Z]),([A-Z])\)", left)
    if attention is None:
        return None
    written = re.fullmatch(r"softmax\(\\frac\{([A-Z])([A-Z])\^T\}\{(.+)\}\)([A-Z])", right)
    if written is None:
        written = re.fullmatch(r"softmax\(([A-Z])([A-Z])\^T/(.+)\)([A-Z])", right)
    if written is None:
        return None
    first, second, scale, third = written.groups()
    query, key, value = attention.groups()
    return Attention(query, key, value, (first, second, third), scale)


def formula(tex: str, allowed: set[str]) -> Expression | None:
    """A scalar formula in TeX over `allowed` names, read by the project's parser."""
    try:
        chains = statements(tex)
    except TexError:
        return None
    if len(chains) != 1 or chains[0].relations or not chains[0].sides:
        return None
    node = chains[0].sides[0].node
    if node is None or not names(node) <= allowed:
        return None
    try:
        return expression(node, free=True)
    except ExpressionError:
        return None

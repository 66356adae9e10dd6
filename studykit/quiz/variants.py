"""Seeded variants of computed cards: drawing parameters, filling `{param}`, the expected answer."""

from __future__ import annotations

import itertools
import math
import random
import re
import secrets
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from studykit.content.model import Card, ParamSpec
from studykit.core.errors import StudykitError
from studykit.expressions import Expression, parse

Value = int | float

# `{name}` outside LaTeX grouping: `h_{t}`, `10^{k}`, `\frac{a}{b}` and `\mathrm{x}` are not
# placeholders because the brace follows `_`, `^`, `}` or a letter.
PLACEHOLDER: Final = re.compile(r"(?<![\w\\^_{}])\{([A-Za-z_][A-Za-z0-9_]*)\}")
# A range without a step is checked at this many evenly spaced points, endpoints included.
RANGE_CHECK_POINTS: Final = 11
# At most this many parameter combinations are checked per card (corners always included).
MAX_COMBINATIONS: Final = 200
# Sample values for a symbolic answer's own symbols when checking that it has a value.
SYMBOL_SAMPLES: Final = (0.7, 1.3, 2.1, -0.4)


class VariantError(StudykitError):
    """A card's parameters cannot be drawn (e.g. a choice that is not a number)."""


def new_seed() -> int:
    """A fresh seed for one review's variant (fits SQLite's INTEGER)."""
    return secrets.randbelow(2**31)


def format_number(value: float, digits: int = 6) -> str:
    """A number as a student reads it: integers whole, others to `digits` significant figures."""
    if isinstance(value, int):
        return str(int(value))
    if math.isfinite(value) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.{digits}g}"


def number_latex(value: float, digits: int = 6) -> str:
    """LaTeX of a number: `2.68 \\times 10^{-7}` rather than `2.68e-07`."""
    text = format_number(value, digits)
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    return rf"{mantissa} \times 10^{{{int(exponent)}}}"


def placeholders(text: str | None) -> list[str]:
    """The `{name}` placeholders in `text`, in order."""
    return [match.group(1) for match in PLACEHOLDER.finditer(text or "")]


def fill(text: str, values: Mapping[str, Value]) -> str:
    """`text` with each `{name}` of a drawn parameter replaced by its value."""

    def put(match: re.Match[str]) -> str:
        name = match.group(1)
        return format_number(values[name]) if name in values else match.group(0)

    return PLACEHOLDER.sub(put, text)


def _number(name: str, value: float | int | str) -> Value:
    if isinstance(value, bool):
        raise VariantError(f"parameter `{name}`: {value!r} is not a number")
    if isinstance(value, int | float):
        return value
    try:
        number = float(value)
    except ValueError:
        raise VariantError(f"parameter `{name}`: choice {value!r} is not a number") from None
    return int(number) if number.is_integer() and "." not in value else number


def _integral(*values: float | None) -> bool:
    return all(v is not None and float(v).is_integer() for v in values)


def _grid(name: str, spec: ParamSpec) -> list[Value]:
    """Every drawable value of a range with a step, in order."""
    assert spec.min is not None and spec.max is not None and spec.step is not None
    count = math.floor((spec.max - spec.min) / spec.step + 1e-9) + 1
    if count > 100_000:
        raise VariantError(f"parameter `{name}`: the range has {count} steps; at most 100000")
    whole = _integral(spec.min, spec.step)
    return [
        int(spec.min + k * spec.step) if whole else round(spec.min + k * spec.step, 12)
        for k in range(count)
    ]


def _round_in_range(value: float, low: float, high: float) -> float:
    """A drawn real, rounded so that it reads well: two digits below the range's width."""
    width = high - low
    decimals = 2 - math.floor(math.log10(width)) if width > 0 else 6
    return min(max(round(value, max(decimals, 0)), low), high)


def draw_value(name: str, spec: ParamSpec, rng: random.Random) -> Value:
    """One value of a parameter, drawn with `rng`."""
    if spec.choices is not None:
        return _number(name, rng.choice(spec.choices))
    assert spec.min is not None and spec.max is not None
    if spec.step is not None:
        return rng.choice(_grid(name, spec))
    if _integral(spec.min, spec.max):
        return rng.randint(int(spec.min), int(spec.max))
    return _round_in_range(rng.uniform(spec.min, spec.max), spec.min, spec.max)


def _spread(values: list[Value], count: int) -> list[Value]:
    """`count` evenly spaced entries of `values`, first and last included."""
    if len(values) <= count:
        return values
    picks = sorted({round(i * (len(values) - 1) / (count - 1)) for i in range(count)})
    return [values[i] for i in picks]


def check_points(name: str, spec: ParamSpec) -> list[Value]:
    """The values `studykit check` tries: every choice; a range's endpoints and grid points."""
    if spec.choices is not None:
        return [_number(name, choice) for choice in spec.choices]
    assert spec.min is not None and spec.max is not None
    if spec.step is not None:
        return _spread(_grid(name, spec), RANGE_CHECK_POINTS)
    if _integral(spec.min, spec.max):
        low, high = int(spec.min), int(spec.max)
        if high - low < RANGE_CHECK_POINTS:
            return list(range(low, high + 1))
        return _spread(list(range(low, high + 1)), RANGE_CHECK_POINTS)
    step = (spec.max - spec.min) / (RANGE_CHECK_POINTS - 1)
    inner = [
        _round_in_range(spec.min + k * step, spec.min, spec.max)
        for k in range(1, RANGE_CHECK_POINTS - 1)
    ]
    return sorted({spec.min, *inner, spec.max})


def combinations(card: Card) -> Iterator[dict[str, Value]]:
    """Parameter combinations to check: all, or corners plus a seeded sample when too many."""
    names = sorted(card.params)
    axes = [check_points(name, card.params[name]) for name in names]
    total = math.prod(len(axis) for axis in axes)
    if total <= MAX_COMBINATIONS:
        for point in itertools.product(*axes):
            yield dict(zip(names, point, strict=True))
        return
    rng = random.Random(card.id)
    seen: set[tuple[Value, ...]] = set()
    corners = [tuple(axis[0] for axis in axes), tuple(axis[-1] for axis in axes)]
    while len(seen) < MAX_COMBINATIONS:
        point = corners.pop() if corners else tuple(rng.choice(axis) for axis in axes)
        if point not in seen:
            seen.add(point)
            yield dict(zip(names, point, strict=True))


def representative(card: Card) -> list[dict[str, Value]]:
    """A few parameter combinations standing for all: the low corner, the middle, the high."""
    names = sorted(card.params)
    axes = [check_points(name, card.params[name]) for name in names]
    points: list[dict[str, Value]] = []
    for pick in (0, None, -1):
        point = {
            name: axis[len(axis) // 2 if pick is None else pick]
            for name, axis in zip(names, axes, strict=True)
        }
        if point not in points:
            points.append(point)
    return points


@lru_cache(maxsize=512)
def _parsed(text: str, names: frozenset[str], symbolic: bool) -> Expression:
    return parse(text, names=names, free_symbols=symbolic)


def answer_expression(card: Card) -> Expression:
    """The card's answer, parsed (ExpressionError if it is not a safe expression)."""
    assert card.answer is not None
    return _parsed(card.answer, frozenset(card.params), card.kind == "symbolic")


@dataclass(frozen=True)
class Variant:
    """One drawn version of a computed card: its seed and parameter values."""

    card: Card
    seed: int
    values: Mapping[str, Value]

    @property
    def answer(self) -> Expression:
        return answer_expression(self.card)

    @property
    def symbols(self) -> frozenset[str]:
        """Names a symbolic answer uses beyond its parameters (what a student may type)."""
        return self.answer.names - frozenset(self.card.params)

    def front(self) -> str:
        return fill(self.card.front, self.values)

    def back(self) -> str | None:
        return fill(self.card.back, self.values) if self.card.back else None

    def expected(self) -> float:
        """A numeric card's answer for these values (ExpressionError if it has none)."""
        return self.answer.evaluate(self.values)

    def expected_latex(self) -> str:
        """What the student should have typed: the value, or the symbolic answer's LaTeX."""
        if self.card.kind == "numeric":
            return number_latex(self.expected())
        return self.answer.substituted_latex(self.values)

    def steps_latex(self) -> str:
        """The worked steps: the formula, the values put in, then (numeric) the result."""
        parts = [self.answer.latex()]
        substituted = self.answer.substituted_latex(self.values)
        if substituted != parts[-1]:
            parts.append(substituted)
        if self.card.kind == "numeric":
            parts.append(number_latex(self.expected()))
        return " = ".join(parts)


def draw_variant(card: Card, seed: int) -> Variant:
    """The variant of `card` for `seed`: the same seed always gives the same values."""
    rng = random.Random(seed)
    values = {name: draw_value(name, card.params[name], rng) for name in sorted(card.params)}
    return Variant(card, seed, values)

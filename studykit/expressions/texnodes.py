"""The tree the LaTeX equation parser builds, and its text in our safe expression language."""

from __future__ import annotations

import keyword
from dataclasses import dataclass
from fractions import Fraction

from studykit.expressions.grammar import CONSTANTS, FUNCTIONS


@dataclass(frozen=True, slots=True)
class Num:
    """A number as written: digits, optional decimals (`16{,}384` arrives as `16384`)."""

    text: str

    @property
    def value(self) -> Fraction:
        return Fraction(self.text)

    @property
    def half_unit(self) -> Fraction:
        """Half a unit in the last written digit: `0.815` -> 0.0005, `748` -> 0.5."""
        decimals = len(self.text.partition(".")[2])
        return Fraction(1, 2 * 10**decimals)


@dataclass(frozen=True, slots=True)
class Name:
    """A variable: `ident` in the expression language, `shown` as the author wrote it."""

    ident: str
    shown: str


@dataclass(frozen=True, slots=True)
class Const:
    """`e` or `\\pi`."""

    ident: str  # "E" or "pi"


@dataclass(frozen=True, slots=True)
class Neg:
    operand: Node


@dataclass(frozen=True, slots=True)
class Bin:
    """`+ - * /` between two nodes; `written`: a `\\times` or `\\cdot` (`2.68 \\times 10^{-7}`)."""

    op: str
    left: Node
    right: Node
    written: bool = False


@dataclass(frozen=True, slots=True)
class Pow:
    base: Node
    exponent: Node


@dataclass(frozen=True, slots=True)
class Call:
    """An allowed function of the expression language (`log` with a base takes two args)."""

    function: str
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Scaled:
    """A side followed by a percent sign or a unit (`\\text{ MiB}`): value times `factor`."""

    operand: Node
    factor: Fraction
    label: str


Node = Num | Name | Const | Neg | Bin | Pow | Call | Scaled

_ADD, _MUL, _UNARY, _POW, _ATOM = 1, 2, 3, 4, 5


def ident_for(base: str, sub: str = "") -> str:
    """A safe expression name for a variable; built-in names and keywords get a trailing `_`."""
    ident = f"{base}_{sub}" if sub else base
    if keyword.iskeyword(ident) or ident in FUNCTIONS or ident in CONSTANTS:
        ident += "_"
    return ident


def names(node: Node) -> set[str]:
    """The variables in `node`."""
    return {name.ident for name in name_nodes(node)}


def name_nodes(node: Node) -> list[Name]:
    """Each variable in `node`, as written (once per ident)."""
    found: dict[str, Name] = {}
    stack: list[Node] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Name):
            found.setdefault(item.ident, item)
        elif isinstance(item, Neg | Scaled):
            stack.append(item.operand)
        elif isinstance(item, Bin):
            stack += [item.left, item.right]
        elif isinstance(item, Pow):
            stack += [item.base, item.exponent]
        elif isinstance(item, Call):
            stack += list(item.args)
    return list(found.values())


def written_number(node: Node) -> tuple[Fraction, Fraction] | None:
    """(value, half a unit in its last digit) when `node` is a number as written, else None.

    Written numbers: `748`, `-0.5`, `2.68 \\times 10^{-7}`, `10^{-7}`, `90\\%`, `64 \\text{ MiB}`.
    """
    if isinstance(node, Num):
        return node.value, node.half_unit
    if isinstance(node, Neg):
        inner = written_number(node.operand)
        return None if inner is None else (-inner[0], inner[1])
    if isinstance(node, Scaled):
        inner = written_number(node.operand)
        return None if inner is None else (inner[0] * node.factor, inner[1] * node.factor)
    power = _power_of_ten(node)
    if power is not None:
        return Fraction(10) ** power, Fraction(10) ** power / 2
    if isinstance(node, Bin) and node.op == "*" and node.written:
        mantissa, power = node.left, _power_of_ten(node.right)
        if isinstance(mantissa, Num) and power is not None:
            scale = Fraction(10) ** power
            return mantissa.value * scale, mantissa.half_unit * scale
    return None


def _power_of_ten(node: Node) -> int | None:
    if not (isinstance(node, Pow) and isinstance(node.base, Num) and node.base.text == "10"):
        return None
    exponent = node.exponent
    sign = 1
    if isinstance(exponent, Neg):
        sign, exponent = -1, exponent.operand
    if isinstance(exponent, Num) and "." not in exponent.text and len(exponent.text) <= 3:
        return sign * int(exponent.text)
    return None


def _fraction_text(value: Fraction) -> tuple[str, int]:
    if value.denominator == 1:
        return str(value.numerator), _ATOM
    return f"{value.numerator}/{value.denominator}", _MUL


def render(node: Node) -> str:
    """The node as text in the safe expression language (decimals as exact fractions)."""
    return _render(node)[0]


def _wrap(node: Node, below: int) -> str:
    text, level = _render(node)
    return f"({text})" if level < below else text


def _render(node: Node) -> tuple[str, int]:
    if isinstance(node, Num):
        return _fraction_text(node.value)
    if isinstance(node, Name | Const):
        return node.ident, _ATOM
    if isinstance(node, Neg):
        return "-" + _wrap(node.operand, _POW), _UNARY
    if isinstance(node, Scaled):
        factor, _ = _fraction_text(node.factor)
        return f"{_wrap(node.operand, _POW)}*({factor})", _MUL
    if isinstance(node, Bin):
        if node.op in "+-":
            right = _wrap(node.right, _MUL if node.op == "-" else _ADD)
            return f"{_wrap(node.left, _ADD)} {node.op} {right}", _ADD
        return f"{_wrap(node.left, _MUL)}{node.op}{_wrap(node.right, _UNARY)}", _MUL
    if isinstance(node, Pow):
        return f"{_wrap(node.base, _ATOM)}**{_wrap(node.exponent, _ATOM)}", _POW
    args = ", ".join(render(arg) for arg in node.args)
    return f"{node.function}({args})", _ATOM

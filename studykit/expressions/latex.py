"""LaTeX straight from the checked tree, in the author's order, with no sympy."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from studykit.expressions.grammar import ADDITIVE, MULTIPLICATIVE, RELATIONS, chain

_GREEK: Final = frozenset(
    {
        *("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota"),
        *("kappa", "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon"),
        *("phi", "chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi"),
        *("Sigma", "Upsilon", "Phi", "Psi", "Omega"),
    }
)
_LATEX_FUNCTIONS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "log": r"\log",
        "ln": r"\ln",
        "exp": r"\exp",
        "sin": r"\sin",
        "cos": r"\cos",
        "tan": r"\tan",
        "asin": r"\arcsin",
        "acos": r"\arccos",
        "atan": r"\arctan",
        "sinh": r"\sinh",
        "cosh": r"\cosh",
        "tanh": r"\tanh",
        "min": r"\min",
        "max": r"\max",
    }
)
_LATEX_RELATIONS: Final[Mapping[str, str]] = MappingProxyType(
    {"==": "=", "<": "<", "<=": r"\le", ">": ">", ">=": r"\ge"}
)
# precedence levels for parentheses
_ADD, _MUL, _UNARY, _POW, _ATOM = 1, 2, 3, 4, 5


def _latex_name(name: str) -> str:
    """`x`, `x_{1}`, `\\alpha_{t}`, `d_{model}`; a word name like `seq_len` whole and upright."""

    def word(part: str, *, upright: bool) -> str:
        if part in _GREEK:
            return "\\" + part
        text = part.replace("_", r"\_")
        return rf"\mathrm{{{text}}}" if upright and len(part) > 1 else text

    head, _, tail = name.partition("_")
    if tail and len(head) > 1 and head not in _GREEK:  # `seq_len` is one name, not seq sub len
        return word(name, upright=True)
    return word(head, upright=True) + (f"_{{{word(tail, upright=False)}}}" if tail else "")


def _latex_number(value: float) -> tuple[str, int]:
    level = _UNARY if value < 0 else _ATOM
    if isinstance(value, int):
        return str(value), level
    text = repr(float(value))
    if text.endswith(".0") and "e" not in text and abs(value) < 1e15:
        return text[:-2], level
    if "e" in text:
        mantissa, exponent = text.split("e")
        mantissa = mantissa.removesuffix(".0")
        power = rf"10^{{{int(exponent)}}}"
        return (power if mantissa == "1" else rf"{mantissa} \times {power}"), _MUL
    return text, level


class Latex:
    def __init__(self, values: Mapping[str, float]) -> None:
        self.values = values
        self.bound: set[str] = set()

    def top(self, node: ast.expr) -> str:
        if isinstance(node, ast.Compare):
            relation = RELATIONS[type(node.ops[0])]
            left, right = self.text(node.left), self.text(node.comparators[0])
            return f"{left} {_LATEX_RELATIONS[relation]} {right}"
        return self.text(node)

    def text(self, node: ast.expr) -> str:
        return self.node(node)[0]

    def wrap(self, node: ast.expr, below: int, *, signed: bool = True) -> str:
        """The node's LaTeX, in parentheses when it binds looser than `below` (or has a sign)."""
        text, level = self.node(node)
        if level < below or (not signed and text.startswith(("-", "+"))):
            return rf"\left({text}\right)"
        return text

    def node(self, node: ast.expr) -> tuple[str, int]:
        if isinstance(node, ast.Constant):
            assert isinstance(node.value, int | float)  # checked before
            return _latex_number(node.value)
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.UnaryOp):
            sign = "-" if isinstance(node.op, ast.USub) else "+"
            return sign + self.wrap(node.operand, _MUL, signed=False), _UNARY
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        return ast.unparse(node), _ATOM  # unreachable for a checked tree

    def name(self, name: str) -> tuple[str, int]:
        if name == "pi":
            return r"\pi", _ATOM
        if name == "E":
            return "e", _ATOM
        if name in self.values and name not in self.bound:
            return _latex_number(self.values[name])
        return _latex_name(name), _ATOM

    def binop(self, node: ast.BinOp) -> tuple[str, int]:
        if isinstance(node.op, ast.Pow):
            return f"{self.wrap(node.left, _ATOM)}^{{{self.text(node.right)}}}", _POW
        if isinstance(node.op, ADDITIVE):
            first, rest = chain(node, ADDITIVE)
            text = self.text(first)
            for op, operand in rest:
                sign, below = (" + ", _ADD) if op is ast.Add else (" - ", _MUL)
                text += sign + self.wrap(operand, below, signed=False)
            return text, _ADD
        first, rest = chain(node, MULTIPLICATIVE)
        text, level = self.node(first)
        before = first
        for op, operand in rest:
            if op is ast.Div:
                text, level = rf"\frac{{{text}}}{{{self.text(operand)}}}", _MUL
            elif self.juxtaposed(before, text, operand):
                text, level = f"{text}{self.text(operand)}", _MUL  # `2i`, as prose writes it
            else:
                if level < _MUL:
                    text = rf"\left({text}\right)"
                text, level = rf"{text} \cdot {self.wrap(operand, _POW, signed=False)}", _MUL
            before = operand
        return text, level

    def juxtaposed(self, left: ast.expr, text: str, right: ast.expr) -> bool:
        """A plain number times a symbol (`2i`, `2\\pi`), which prose writes without a dot."""
        if not isinstance(left, ast.Constant) or not text.replace(".", "").isdigit():
            return False
        if not isinstance(right, ast.Name) or right.id == "E":
            return False
        return right.id not in self.values or right.id in self.bound

    def call(self, node: ast.Call) -> tuple[str, int]:
        name = node.func.id if isinstance(node.func, ast.Name) else ""
        args = node.args
        if name == "sum":
            return self.sum(node)
        if name == "diff":
            var = args[1]
            assert isinstance(var, ast.Name)
            self.bound.add(var.id)
            try:
                body = rf"\frac{{d}}{{d{_latex_name(var.id)}}} {self.wrap(args[0], _POW)}"
            finally:
                self.bound.discard(var.id)
            if var.id in self.values and var.id not in self.bound:
                at = _latex_number(self.values[var.id])[0]
                return rf"\left. {body} \right|_{{{_latex_name(var.id)}={at}}}", _ATOM
            return body, _MUL
        inner = ", ".join(self.text(arg) for arg in args)
        if name == "sqrt":
            return rf"\sqrt{{{inner}}}", _ATOM
        if name in ("Abs", "abs"):
            return rf"\left|{inner}\right|", _ATOM
        if name == "floor":
            return rf"\left\lfloor {inner} \right\rfloor", _ATOM
        if name == "ceiling":
            return rf"\left\lceil {inner} \right\rceil", _ATOM
        if name == "log" and len(args) == 2:
            return rf"\log_{{{self.text(args[1])}}}\left({self.text(args[0])}\right)", _ATOM
        return rf"{_LATEX_FUNCTIONS[name]}\left({inner}\right)", _ATOM

    def sum(self, node: ast.Call) -> tuple[str, int]:
        body, var, low, high = node.args
        assert isinstance(var, ast.Name)
        limits = rf"_{{{_latex_name(var.id)}={self.text(low)}}}^{{{self.text(high)}}}"
        self.bound.add(var.id)
        try:
            return rf"\sum{limits} {self.wrap(body, _MUL)}", _MUL
        finally:
            self.bound.discard(var.id)

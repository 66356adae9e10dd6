"""The allowed grammar (relations, functions, constants) and AST helpers shared by its readers."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

RELATIONS: Final[Mapping[type[ast.cmpop], str]] = MappingProxyType(
    {ast.Eq: "==", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
)
# name -> (fewest, most) arguments
FUNCTIONS: Final[Mapping[str, tuple[int, int]]] = MappingProxyType(
    {
        "log": (1, 2),
        "ln": (1, 1),
        "exp": (1, 1),
        "sqrt": (1, 1),
        "sin": (1, 1),
        "cos": (1, 1),
        "tan": (1, 1),
        "asin": (1, 1),
        "acos": (1, 1),
        "atan": (1, 1),
        "sinh": (1, 1),
        "cosh": (1, 1),
        "tanh": (1, 1),
        "ceiling": (1, 1),
        "floor": (1, 1),
        "Abs": (1, 1),
        "abs": (1, 1),
        "min": (2, 32),
        "max": (2, 32),
        "sum": (4, 4),
        "diff": (2, 2),
    }
)
CONSTANTS: Final = frozenset({"pi", "E"})

ADDITIVE: Final = (ast.Add, ast.Sub)
MULTIPLICATIVE: Final = (ast.Mult, ast.Div)


def chain(node: ast.expr, ops: tuple[type[ast.operator], ...]) -> tuple[ast.expr, list[Any]]:
    """Flatten a left-nested chain like a + b - c without recursion: (a, [(Add, b), (Sub, c)])."""
    rest: list[tuple[type[ast.operator], ast.expr]] = []
    while isinstance(node, ast.BinOp) and isinstance(node.op, ops):
        rest.append((type(node.op), node.right))
        node = node.left
    rest.reverse()
    return node, rest


def literal(node: ast.expr) -> int | float | None:
    """The value of a plain number literal, optionally signed; None for anything else."""
    sign = 1
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        sign = -sign if isinstance(node.op, ast.USub) else sign
        node = node.operand
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        value = node.value
        assert isinstance(value, int | float)
        return sign * value
    return None

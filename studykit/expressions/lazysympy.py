"""sympy, imported only when first needed, and the small sympy helpers every step shares."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def sympy_module() -> Any:
    import sympy

    return sympy


def real_symbol(name: str) -> Any:
    return sympy_module().Symbol(name, real=True)


def integer_symbol(name: str) -> Any:
    return sympy_module().Symbol(name, integer=True)


def preorder(expr: Any) -> Iterator[Any]:
    """Every node of a sympy tree, without recursion."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        yield node
        stack.extend(node.args)


def to_sympy(value: int | float) -> Any:
    sp = sympy_module()
    return sp.Integer(value) if isinstance(value, int) else sp.Float(value)

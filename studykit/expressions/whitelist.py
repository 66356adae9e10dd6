"""Checking the parsed text against the whitelist, with no sympy involved."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from studykit.core.suggest import closest
from studykit.expressions.bounds import check_range
from studykit.expressions.errors import ExpressionError, Source
from studykit.expressions.grammar import (
    ADDITIVE,
    CONSTANTS,
    FUNCTIONS,
    MULTIPLICATIVE,
    RELATIONS,
    chain,
    literal,
)
from studykit.expressions.limits import MAX_DEPTH, MAX_EXPONENT, MAX_LITERAL_ABS, MAX_LITERAL_DIGITS
from studykit.expressions.scripts import script_note

_ALLOWED_FUNCTIONS: Final = ", ".join(FUNCTIONS)
_OPERATORS: Final[Mapping[type[ast.operator], str]] = MappingProxyType(
    {
        ast.Add: "+",
        ast.Sub: "-",
        ast.Mult: "*",
        ast.Div: "/",
        ast.Pow: "**",
        ast.FloorDiv: "//",
        ast.Mod: "%",
        ast.MatMult: "@",
        ast.LShift: "<<",
        ast.RShift: ">>",
        ast.BitOr: "|",
        ast.BitXor: "^",
        ast.BitAnd: "&",
    }
)
_OTHER_COMPARISONS: Final[Mapping[type[ast.cmpop], str]] = MappingProxyType(
    {ast.NotEq: "!=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
)
_FORBIDDEN: Final[Mapping[type[ast.AST], str]] = MappingProxyType(
    {
        ast.Attribute: "attribute access",
        ast.Subscript: "subscripts",
        ast.Slice: "slices",
        ast.Lambda: "lambdas",
        ast.ListComp: "comprehensions",
        ast.SetComp: "comprehensions",
        ast.DictComp: "comprehensions",
        ast.GeneratorExp: "generator expressions",
        ast.List: "lists",
        ast.Tuple: "tuples",
        ast.Set: "sets",
        ast.Dict: "dicts",
        ast.JoinedStr: "f-strings",
        ast.FormattedValue: "f-strings",
        ast.Starred: "starred arguments",
        ast.NamedExpr: "assignment expressions (:=)",
        ast.BoolOp: "`and`/`or`",
        ast.IfExp: "conditional expressions",
        ast.Await: "await",
        ast.Yield: "yield",
        ast.YieldFrom: "yield",
        ast.Compare: "comparisons inside an expression (only one, at the top, is allowed)",
    }
)


class Checker:
    def __init__(self, source: Source, names: frozenset[str], free_symbols: bool) -> None:
        self.source = source
        self.names = names
        self.free_symbols = free_symbols
        self.used: set[str] = set()
        self.bound: list[str] = []
        self.ever_bound: set[str] = set()

    def fail(self, node: ast.AST, message: str) -> ExpressionError:
        return self.source.error(node, message)

    def top(self, node: ast.expr) -> str | None:
        if not isinstance(node, ast.Compare):
            self.check(node, 1)
            return None
        if len(node.ops) != 1:
            raise self.fail(node, "chained comparisons are not allowed: {piece} ({where})")
        op = type(node.ops[0])
        if op not in RELATIONS:
            symbol = _OTHER_COMPARISONS.get(op, "?")
            raise self.fail(
                node, f"`{symbol}` is not an allowed comparison ({{where}}); use ==, <, <=, >, >="
            )
        self.check(node.left, 2)
        self.check(node.comparators[0], 2)
        return RELATIONS[op]

    def check(self, node: ast.expr, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise self.fail(
                node, f"nested more than {MAX_DEPTH} levels deep at {{piece}} ({{where}})"
            )
        if isinstance(node, ast.BinOp):
            self.binop(node, depth)
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, ast.USub | ast.UAdd):
                word = "not" if isinstance(node.op, ast.Not) else "~"
                raise self.fail(node, f"`{word}` is not allowed: {{piece}} ({{where}})")
            self.check(node.operand, depth + 1)
        elif isinstance(node, ast.Constant):
            self.constant(node)
        elif isinstance(node, ast.Name):
            self.name(node)
        elif isinstance(node, ast.Call):
            self.call(node, depth)
        else:
            kind = _FORBIDDEN.get(type(node), f"`{type(node).__name__}` syntax")
            error = self.fail(node, f"{kind} not allowed: {{piece}} ({{where}})")
            error.construct = type(node)
            raise error

    def binop(self, node: ast.BinOp, depth: int) -> None:
        op = type(node.op)
        if op in ADDITIVE or op in MULTIPLICATIVE:
            first, rest = chain(node, ADDITIVE if op in ADDITIVE else MULTIPLICATIVE)
            for operand in (first, *(item[1] for item in rest)):
                self.check(operand, depth + 1)
            return
        if op is not ast.Pow:
            symbol = _OPERATORS.get(op, "?")
            hint = "; use ** for powers" if op is ast.BitXor else ""
            raise self.fail(
                node, f"operator `{symbol}` is not allowed: {{piece}} ({{where}}){hint}"
            )
        exponent = literal(node.right)
        if exponent is not None and abs(exponent) > MAX_EXPONENT:
            raise self.fail(
                node, f"exponent too large in {{piece}} ({{where}}); at most {MAX_EXPONENT}"
            )
        self.check(node.left, depth + 1)
        self.check(node.right, depth + 1)

    def constant(self, node: ast.Constant) -> None:
        value = node.value
        if type(value) not in (int, float):
            kind = {
                str: "strings",
                bytes: "bytes",
                bool: "True/False",
                complex: "complex numbers",
            }.get(type(value), f"`{value!r}`")
            raise self.fail(node, f"{kind} not allowed: {{piece}} ({{where}})")
        text = self.source.segment(node).lower()
        mantissa = text.split("e")[0] if isinstance(value, float) else text
        digits = sum(char.isdigit() for char in mantissa)
        too_big = abs(value) >= 10**MAX_LITERAL_DIGITS if isinstance(value, int) else False
        if digits > MAX_LITERAL_DIGITS or too_big:
            raise self.fail(
                node, f"number {{piece}} has more than {MAX_LITERAL_DIGITS} digits ({{where}})"
            )
        if isinstance(value, float) and not abs(value) <= MAX_LITERAL_ABS:  # also inf and nan
            raise self.fail(node, "number {piece} is too large ({where}); at most 1e300")

    def name(self, node: ast.Name) -> None:
        name = node.id
        if name.startswith("__"):
            raise self.fail(node, "dunder names are not allowed: {piece} ({where})")
        if name in FUNCTIONS:
            raise self.fail(node, f"{{piece}} is a function; call it, e.g. {name}(x) ({{where}})")
        if name in CONSTANTS or name in self.bound:
            return
        if name in self.names or self.free_symbols:
            self.used.add(name)
            return
        note = script_note(name)
        raise self.fail(node, "unknown name {piece}" + note + " ({where}); " + self.declared(name))

    def declared(self, name: str) -> str:
        if not self.names:
            return "this expression takes no names"
        near = closest(name, sorted(self.names))
        hint = f"did you mean `{near}`? " if near else ""
        return hint + "declared: " + ", ".join(sorted(self.names))

    def call(self, node: ast.Call, depth: int) -> None:
        if not isinstance(node.func, ast.Name):
            self.check(node.func, depth + 1)  # names the attribute access or the like first
            raise self.fail(node, "only the listed functions can be called: {piece} ({where})")
        name = node.func.id
        if name not in FUNCTIONS:
            raise self.source.error(
                node.func,
                "{piece} is not an allowed function ({where}); allowed: " + _ALLOWED_FUNCTIONS,
            )
        if node.keywords:
            raise self.fail(node, "keyword arguments are not allowed: {piece} ({where})")
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.fail(arg, "starred arguments are not allowed: {piece} ({where})")
        fewest, most = FUNCTIONS[name]
        if not fewest <= len(node.args) <= most:
            wanted = str(fewest) if fewest == most else f"{fewest} to {most}"
            raise self.fail(
                node,
                f"`{name}` takes {wanted} arguments, got {len(node.args)}: {{piece}} ({{where}})",
            )
        if name == "sum":
            self.sum(node, depth)
            return
        if name == "diff":
            if not isinstance(node.args[1], ast.Name):
                raise self.fail(node.args[1], "diff needs a variable name, got {piece} ({where})")
            self.name(node.args[1])
            self.check(node.args[0], depth + 1)
            return
        for arg in node.args:
            self.check(arg, depth + 1)

    def sum(self, node: ast.Call, depth: int) -> None:
        body, var, low, high = node.args
        if not isinstance(var, ast.Name):
            raise self.fail(var, "sum needs a variable name, got {piece} ({where})")
        name = var.id
        if name.startswith("__") or name in FUNCTIONS or name in CONSTANTS:
            raise self.fail(var, "{piece} cannot be a sum variable ({where})")
        if name in self.names or name in self.bound:
            raise self.fail(var, "sum variable {piece} is already a name in use ({where})")
        self.check(low, depth + 1)
        self.check(high, depth + 1)
        first, last = literal(low), literal(high)
        if first is not None and last is not None:
            check_range(first, last, lambda message: self.fail(node, message))
        self.bound.append(name)
        self.ever_bound.add(name)
        try:
            self.check(body, depth + 1)
        finally:
            self.bound.pop()

"""What a text has defined so far (and its note or deck declared), and putting it into a side.

A text's `$T = 512$` defines T for the equations after it; a note's or deck's
`definitions:` are declared before any of its texts, and are never redefined by them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from studykit.expressions.statements import statements
from studykit.expressions.texlex import TexError
from studykit.expressions.texnodes import Bin, Call, Name, Neg, Node, Pow, Scaled, names

# Most nodes a side may grow to when earlier definitions are put in.
MAX_RESOLVED_NODES: Final = 200


@dataclass
class Context:
    """Variables defined earlier in the same text: name -> its written definition."""

    definitions: dict[str, Node] = field(default_factory=dict)
    # `\\gamma = \\sigma_{\\max}(W_{hh}) \\cdot …`: a name whose definition only the
    # numeric checks read, as TeX.
    written: dict[str, str] = field(default_factory=dict)
    # Symbols their note or deck declares (`definitions:`), with the declaration as written:
    # every other `symbol = …` is checked against it, never taken as a new definition.
    declared: dict[str, str] = field(default_factory=dict)

    def copy(self) -> Context:
        return Context(dict(self.definitions), dict(self.written), dict(self.declared))


def declare(says: str, context: Context) -> str | None:
    """Add the declaration `symbol = expression` to `context`; why it is not one, or None."""
    try:
        chains = [chain for chain in statements(says) if chain.relations]
    except TexError as error:
        return f"cannot read `{says}`: {error}"
    if len(chains) != 1 or chains[0].relations != ("=",) or chains[0].bindings:
        return f"`{says}` is not one `symbol = expression`"
    symbol, value = chains[0].sides[0].node, chains[0].sides[1].node
    if not isinstance(symbol, Name) or value is None:
        return f"`{says}`: the left side must be one symbol and the right side readable maths"
    if symbol.ident in names(value):
        return f"`{says}` uses `{symbol.shown}` on both sides"
    if symbol.ident in context.declared:
        return f"`{symbol.shown}` is already declared as `{context.declared[symbol.ident]}`"
    context.definitions[symbol.ident] = value
    context.declared[symbol.ident] = says.strip()
    return None


def has_formula(name: Name, context: Context) -> bool:
    definition = context.definitions.get(name.ident)
    return definition is not None and bool(names(definition))


def evaluable(node: Node, context: Context) -> bool:
    try:
        return not names(resolve(node, context))
    except TexError:
        return False


def resolve(node: Node, context: Context, *, active: frozenset[str] = frozenset()) -> Node:
    """`node` with each defined variable replaced by its definition (bounded in size)."""
    budget = [MAX_RESOLVED_NODES]
    return _resolve(node, context, active, budget)


def _resolve(node: Node, context: Context, active: frozenset[str], budget: list[int]) -> Node:
    budget[0] -= 1
    if budget[0] < 0:
        raise TexError("too large once earlier definitions are put in")
    if isinstance(node, Name):
        definition = context.definitions.get(node.ident)
        if definition is None or node.ident in active:
            return node
        return _resolve(definition, context, active | {node.ident}, budget)
    if isinstance(node, Neg):
        return Neg(_resolve(node.operand, context, active, budget))
    if isinstance(node, Scaled):
        return Scaled(_resolve(node.operand, context, active, budget), node.factor, node.label)
    if isinstance(node, Bin):
        left = _resolve(node.left, context, active, budget)
        return Bin(node.op, left, _resolve(node.right, context, active, budget), node.written)
    if isinstance(node, Pow):
        base = _resolve(node.base, context, active, budget)
        return Pow(base, _resolve(node.exponent, context, active, budget))
    if isinstance(node, Call):
        args = tuple(_resolve(arg, context, active, budget) for arg in node.args)
        return Call(node.function, args)
    return node

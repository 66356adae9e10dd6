"""Our LaTeX equation grammar against sympy's lark backend, on the bundled sides. Asserts nothing.

Counts the sides of every relation chain in the bundled notes, cards and claims that each
parser reads, how many of those are numbers with a value, and the wall time. sympy's lark
backend needs `lark` (not a studykit dependency); without it only our grammar is measured.
"""

from __future__ import annotations

import importlib.util
import math
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from studykit.checking.equations import maths_spans, without_cloze
from studykit.content.loading import load_library
from studykit.core.config import bundled_root
from studykit.expressions import parse
from studykit.expressions.statements import statements
from studykit.expressions.texlex import TexError
from studykit.expressions.texnodes import render


def bundled_sides(root: Path) -> list[str]:
    """The TeX of every side of every relation chain in the bundled content."""
    library = load_library(root)
    spans: list[str] = []
    for note in library.notes.values():
        for section in note.sections:
            spans += [tex for _, tex in maths_spans(section.body)]
            spans += [claim.says for claim in section.claims]
    for deck in library.decks.values():
        for card in deck.cards:
            front = without_cloze(card.front) if card.kind == "cloze" else card.front
            spans += [tex for text in (front, card.back or "") for _, tex in maths_spans(text)]
    sides: list[str] = []
    for tex in spans:
        try:
            chains = statements(tex)
        except TexError:
            continue
        sides += [side.tex for chain in chains if chain.relations for side in chain.sides]
    return sides


def ours(side: str) -> float | bool:
    """The side's value; True when it reads but has variables; False when it cannot be read."""
    (chain,) = statements(side + " = 0")
    node = chain.sides[0].node
    if node is None:
        return False
    expression = parse(render(node), free_symbols=True)
    return True if expression.names else expression.evaluate()


def theirs(side: str) -> float | bool:
    from sympy.parsing.latex import parse_latex

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expression = parse_latex(side, backend="lark")
    return True if expression.free_symbols else float(expression.evalf())


def measure(name: str, reader: Callable[[str], float | bool], sides: list[str]) -> dict[int, float]:
    """Sides read, and the value of each one that is a number (by its index in `sides`)."""
    values: dict[int, float] = {}
    read = 0
    started = time.perf_counter()
    for index, side in enumerate(sides):
        try:
            result = reader(side)
        except Exception:
            continue
        if result is not False:
            read += 1
        if isinstance(result, float):
            values[index] = result
    elapsed = time.perf_counter() - started
    print(f"{name:>6}: read {read}/{len(sides)} sides, {len(values)} numbers, {elapsed:.2f} s")
    return values


def main() -> None:
    sides = bundled_sides(bundled_root())
    print(f"{len(sides)} sides of relation chains in the bundled content")
    mine = measure("ours", ours, sides)
    if importlib.util.find_spec("lark") is None:
        print("  lark: not installed (pip install lark to compare sympy's lark backend)")
        return
    measure("lark", theirs, sides[:1])  # builds the grammar once
    other = measure("lark", theirs, sides)
    common = mine.keys() & other.keys()
    agree = sum(math.isclose(mine[k], other[k], rel_tol=1e-9) for k in common)
    print(f"values agree on {agree} of {len(common)} sides both read as numbers")


if __name__ == "__main__":
    main()

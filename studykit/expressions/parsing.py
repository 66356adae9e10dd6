"""parse(): text -> checked tree -> Expression, refusing anything off the whitelist."""

from __future__ import annotations

import ast
import warnings
from collections.abc import Collection
from typing import Any

from studykit.expressions.build import Builder
from studykit.expressions.errors import ExpressionError, Source, said
from studykit.expressions.expression import Expression
from studykit.expressions.grammar import CONSTANTS, FUNCTIONS
from studykit.expressions.lazysympy import sympy_module
from studykit.expressions.limits import MAX_DEPTH, MAX_LENGTH, TIME_LIMIT_S
from studykit.expressions.scripts import nfkc
from studykit.expressions.timelimit import with_time_limit
from studykit.expressions.whitelist import Checker


def parse(text: str, *, names: Collection[str] = (), free_symbols: bool = False) -> Expression:
    """Check `text` against the whitelist and build it; ExpressionError says what is wrong.

    `names` are the declared parameters; with `free_symbols`, any other plain name is a symbol
    too (for identities). One comparison (==, <, <=, >, >=) is allowed at the top; chained
    comparisons and `and`/`or` are not.
    """
    if not isinstance(text, str):
        raise ExpressionError(f"an expression must be text, got {type(text).__name__}")
    # Python reads names in NFKC form (`ｘ` is `x`); declared names are read the same way.
    text = nfkc(text)
    declared = frozenset(nfkc(name) for name in names)
    clash = sorted(declared & (FUNCTIONS.keys() | CONSTANTS))
    if clash:
        raise ExpressionError(
            f"`{clash[0]}` cannot be a parameter name: it is a built-in function or constant"
        )
    if len(text) > MAX_LENGTH:
        raise ExpressionError(
            f"expression is too long ({len(text)} characters; at most {MAX_LENGTH})"
        )
    stripped = text.strip()
    if not stripped:
        raise ExpressionError("expression is empty")
    source = Source(stripped)
    _check_brackets(source)
    tree = _parse_ast(source)
    checker = Checker(source, declared, free_symbols)
    relation = checker.top(tree.body)
    overlap = sorted(checker.used & checker.ever_bound)
    if overlap:
        raise ExpressionError(
            f"`{overlap[0]}` is used both as a sum variable and outside that sum in `{stripped}`",
            fragment=overlap[0],
        )

    def build() -> tuple[Any, Any]:
        builder = Builder(source)
        body = tree.body
        if isinstance(body, ast.Compare):
            return builder.node(body.left), builder.node(body.comparators[0])
        return builder.node(body), None

    sympy_module()  # imported outside the time limit: an interrupted import would stay broken
    try:
        lhs, rhs = with_time_limit(TIME_LIMIT_S, build, what=f"building `{stripped}`")
    except ExpressionError:
        raise
    except Exception as exc:  # sympy's own complaints about a checked tree, e.g. max(log(-1), 1)
        raise ExpressionError(
            f"`{stripped}` cannot be built: {said(exc)}", fragment=stripped
        ) from None
    return Expression(stripped, frozenset(checker.used), relation, tree.body, lhs, rhs)


def _check_brackets(source: Source) -> None:
    """Refuse deep bracket nesting before the parser sees it (brackets make no AST nodes)."""
    depth = 0
    for number, line in enumerate(source.lines, start=1):
        for column, char in enumerate(line, start=1):
            if char in "([{":
                depth += 1
                if depth > MAX_DEPTH:
                    raise ExpressionError(
                        f"brackets nested more than {MAX_DEPTH} deep "
                        f"({source.where(number, column)})",
                        fragment=line[column - 1 : column + 19],
                        column=column,
                        line=number,
                    )
            elif char in ")]}":
                depth -= 1


def _parse_ast(source: Source) -> ast.Expression:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings about content we reject anyway
            return ast.parse(source.text, mode="eval")
    except SyntaxError as exc:
        line = exc.lineno or 1
        column = exc.offset or 1
        reason = (exc.msg or "invalid syntax").split(" (")[0]
        line_text = source.lines[line - 1] if line <= len(source.lines) else ""
        fragment = line_text[max(column - 1, 0) : column + 19] or line_text[-20:]
        raise ExpressionError(
            f"not a valid expression: {reason} at `{fragment}` ({source.where(line, column)})",
            fragment=fragment,
            column=column,
            line=line,
        ) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ExpressionError(f"not a valid expression: {exc}") from None

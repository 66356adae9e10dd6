"""Maths expressions from content: a whitelist over Python's `ast`, built straight into sympy.

Content is never run as code: no eval/exec/compile of it, no sympify or parse_expr. The text is
parsed with `ast.parse(mode="eval")`, every node is checked against a short whitelist, and the
checked tree is turned into sympy objects by hand. sympy is imported inside the functions that
need it, so importing this package stays cheap.

Bounds that keep evaluation finite (see `limits`): source length, nesting depth, literal size,
exponent size and the growth of exact numbers, and the number of terms a `sum` may expand to.
The sympy steps also run under a time limit (`with_time_limit`) as a last line of defence.
"""

from __future__ import annotations

from studykit.expressions.errors import ExpressionError, ExpressionTimeout
from studykit.expressions.expression import Expression
from studykit.expressions.parsing import parse
from studykit.expressions.timelimit import with_time_limit

__all__ = [
    "Expression",
    "ExpressionError",
    "ExpressionTimeout",
    "parse",
    "with_time_limit",
]

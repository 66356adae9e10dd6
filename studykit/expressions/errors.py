"""The errors an expression raises, and the source positions they point at."""

from __future__ import annotations

import ast
import re

from studykit.core.errors import StudykitError


class ExpressionError(StudykitError):
    """An expression that is not allowed, or has no real value; names the piece and column."""

    def __init__(
        self,
        message: str,
        *,
        fragment: str | None = None,
        column: int | None = None,
        line: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.fragment = fragment
        self.column = column  # 1-based, within `line`
        self.line = line  # 1-based line of the expression text (>1 only for multi-line text)
        self.construct: type[ast.AST] | None = None
        """The syntax refused (`ast.Tuple` for `4, 5`), so that a caller can say it its way."""


class ExpressionTimeout(ExpressionError):
    """The sympy work behind an expression ran past its time limit."""


class Source:
    """The expression text, for columns and fragments in error messages."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines() or [""]

    def segment(self, node: ast.AST) -> str:
        piece = ast.get_source_segment(self.text, node) or ast.unparse(node)
        piece = " ".join(piece.split())
        return piece if len(piece) <= 60 else piece[:57] + "..."

    def position(self, node: ast.AST) -> tuple[int, int]:
        line = getattr(node, "lineno", 1)
        offset = getattr(node, "col_offset", 0)
        encoded = self.lines[line - 1].encode() if line <= len(self.lines) else b""
        return line, len(encoded[:offset].decode(errors="replace")) + 1

    def where(self, line: int, column: int) -> str:
        """`col 3`, or `line 2, col 3` when the text has more than one line."""
        return f"col {column}" if len(self.lines) == 1 else f"line {line}, col {column}"

    def error(self, node: ast.AST, message: str, *, fragment: str | None = None) -> ExpressionError:
        line, column = self.position(node)
        piece = self.segment(node) if fragment is None else fragment
        fill = {"{piece}": f"`{piece}`", "{where}": self.where(line, column)}
        return ExpressionError(
            re.sub(r"\{piece\}|\{where\}", lambda match: fill[match.group()], message),
            fragment=piece,
            column=column,
            line=line,
        )


def said(exc: BaseException) -> str:
    """sympy's message for an exception, on one line and short."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."

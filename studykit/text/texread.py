"""TeX's own structure, read one way for the maths renderer and the equation parser.

`tex_tokens` splits TeX as TeX's eyes do: control words `\\name`, control symbols `\\x`, runs
of white space, and single characters. The pieces tile the source, so a piece's place in it is
the sum of the lengths before it.

`TexReader` is a cursor over token texts that knows TeX's structure: a command's argument (a
`{…}` group or one token), an optional `[…]` argument, and the `^`/`_` scripts after a base.
What a group or a single token means is the subclass's to say (`until`, `single`): the
renderer makes Unicode text of them, the equation parser an expression tree.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from typing import Final, Generic, TypeVar

T = TypeVar("T")

_TOKEN: Final = re.compile(r"\\[A-Za-z]+|\\.|\s+|.", re.DOTALL)
_SCRIPTS: Final = ("^", "_")


def tex_tokens(tex: str) -> list[str]:
    """The TeX tokens of `tex` in order; joined, they are `tex` again."""
    return _TOKEN.findall(tex)


def is_command(token: str) -> bool:
    """True for a control word or symbol (`\\frac`, `\\,`); a lone `\\` at the end is not one."""
    return len(token) > 1 and token[0] == "\\"


class TexReader(ABC, Generic[T]):
    """A cursor over token texts, with TeX's structural reading; `pos` is the next token."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.pos = 0

    @abstractmethod
    def until(self, closer: str) -> T:
        """What the tokens up to `closer` mean, `closer` consumed."""

    @abstractmethod
    def single(self) -> T:
        """What the next token means as an argument on its own."""

    def group(self) -> T:
        """What a `{…}` group means, its `{` just read."""
        return self.until("}")

    def peek(self) -> str | None:
        return self.texts[self.pos] if self.pos < len(self.texts) else None

    def at(self, *texts: str) -> bool:
        return self.pos < len(self.texts) and self.texts[self.pos] in texts

    def skip_spaces(self) -> None:
        while self.at(" "):
            self.pos += 1

    def argument(self) -> T:
        """A command's argument: a `{…}` group or a single token, spaces before it skipped."""
        self.skip_spaces()
        if self.at("{"):
            self.pos += 1
            return self.group()
        return self.single()

    def option(self) -> T | None:
        """An optional `[…]` argument (`\\sqrt[3]{x}`), or None with only spaces consumed."""
        self.skip_spaces()
        if not self.at("["):
            return None
        self.pos += 1
        return self.until("]")

    def script(self, *marks: str) -> tuple[str, T] | None:
        """The next `^` or `_` (or one of `marks`) and its argument; spaces before the mark are
        skipped, as TeX skips them. None, with nothing consumed, when no such mark follows."""
        marks = marks or _SCRIPTS
        ahead = self.pos
        while ahead < len(self.texts) and self.texts[ahead] == " ":
            ahead += 1
        if ahead == len(self.texts) or self.texts[ahead] not in marks:
            return None
        self.pos = ahead + 1
        return self.texts[ahead], self.argument()

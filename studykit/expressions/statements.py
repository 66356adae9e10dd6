"""LaTeX equations -> relation chains, each side parsed by `texparse`.

A chain is split at `=`, `\\approx`, `<`, `\\le`, ... ; `\\quad`, `\\Rightarrow`, `;` separate
statements; `\\text{ at } T = 512` binds values; a unit (`\\text{ MiB}`) stays in its side; any
other `\\text{...}` ends the maths that is checked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from studykit.expressions.texlex import TexError, Token, tokenize
from studykit.expressions.texnodes import Node
from studykit.expressions.texparse import CLOSERS, OPENERS, RELATIONS, UNITS, parse_tokens

# Relations we recognise but do not check: the pair is skipped with this reason.
UNCHECKED: Final = frozenset(
    {r"\in", r"\notin", r"\sim", r"\simeq", r"\propto", r"\to", r"\mapsto", r"\ll", r"\gg"}
    | {r"\equiv", r"\cong", r"\subset", r"\subseteq", r"\approxeq"}
)
SEPARATORS: Final = frozenset(
    {r"\quad", r"\qquad", r"\Rightarrow", r"\implies", r"\iff", r"\Leftrightarrow", ";"}
)
BINDING_WORDS: Final = frozenset({"at", "for", "when", "with", "where"})
INFINITE: Final = frozenset({r"\infty", r"-\infty", r"+\infty"})


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a relation: its tree, or why it could not be read."""

    tex: str
    node: Node | None
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class Statement:
    """`a = b \\approx c`: sides and the relations between them, and values bound after it."""

    tex: str
    start: int  # index of its first character in the maths span
    sides: tuple[Side, ...]
    relations: tuple[str, ...]  # "=", "≈", "<", "≤", ">", "≥", "≠", or an unchecked command
    bindings: tuple[Statement, ...] = ()


@dataclass(frozen=True, slots=True)
class Interval:
    """`(a, b]`, `[a, \\infty)`: each bound (None where infinite) and whether it is included."""

    low: Side | None
    low_closed: bool
    high: Side | None
    high_closed: bool


def interval(tex: str) -> Interval | None:
    """The interval a side such as `(0, 1]` writes, or None when the side is not one."""
    try:
        tokens = tokenize(tex)
    except TexError:
        return None
    if len(tokens) < 5 or tokens[0].text not in {"(", "["} or tokens[-1].text not in {")", "]"}:
        return None
    inner = tokens[1:-1]
    depth = 0
    for token in inner:
        depth += (token.text in OPENERS) - (token.text in CLOSERS)
        if depth < 0:
            return None  # `(a) + (b]`: the first bracket closes before the end
    parts = _split_top(inner, ",")
    if depth != 0 or len(parts) != 2:
        return None
    low, high = (
        None if "".join(t.text for t in part) in INFINITE else _side(tex, part) for part in parts
    )
    return Interval(low, tokens[0].text == "[", high, tokens[-1].text == "]")


def statements(tex: str) -> list[Statement]:
    """The relation chains in one maths span; TexError when it cannot even be tokenised."""
    tokens = tokenize(tex)
    tokens, bindings = _cut_text(tex, tokens)
    found = [_statement(tex, part) for part in _split_statements(tokens)]
    bound = tuple(_statement(tex, part) for part in _split_top(bindings, ","))
    if found and bound:
        found[-1] = Statement(
            found[-1].tex, found[-1].start, found[-1].sides, found[-1].relations, bound
        )
    return found


def _cut_text(tex: str, tokens: list[Token]) -> tuple[list[Token], list[Token]]:
    """Tokens before the first prose `\\text{...}`, and those binding values after `at`/`for`."""
    for k, token in enumerate(tokens):
        if token.kind != "text" or token.text.strip() in UNITS:
            continue
        word = token.text.strip()
        if word in BINDING_WORDS:
            return tokens[:k], tokens[k + 1 :]
        return tokens[:k], []
    return tokens, []


def _split_top(tokens: list[Token], separator: Callable[[Token], bool] | str) -> list[list[Token]]:
    """Split at separators outside any brackets."""
    test = separator if callable(separator) else (lambda token: token.text == separator)
    parts: list[list[Token]] = [[]]
    depth = 0
    for token in tokens:
        if token.text in OPENERS:
            depth += 1
        elif token.text in CLOSERS:
            depth -= 1
        if depth == 0 and token.kind in ("command", "punct") and test(token):
            parts.append([])
        else:
            parts[-1].append(token)
    return [part for part in parts if part]


def _split_statements(tokens: list[Token]) -> list[list[Token]]:
    parts = _split_top(tokens, lambda token: token.text in SEPARATORS)
    result: list[list[Token]] = []
    for part in parts:
        pieces = _split_top(part, ",")
        if len(pieces) > 1 and all(_has_relation(piece) for piece in pieces):
            result += pieces
        else:
            result.append(part)
    return result


def _is_relation(token: Token) -> bool:
    return token.text in RELATIONS or token.text in UNCHECKED


def _has_relation(tokens: list[Token]) -> bool:
    return any(_is_relation(token) for token in tokens)


def _statement(tex: str, tokens: list[Token]) -> Statement:
    relations = [
        RELATIONS.get(token.text, token.text)
        for token in _top_level(tokens)
        if token.kind in ("command", "punct") and _is_relation(token)
    ]
    groups = _split_top(tokens, _is_relation) if relations else [tokens]
    start = tokens[0].start if tokens else 0
    end = tokens[-1].end if tokens else 0
    if len(groups) != len(relations) + 1:  # a relation with nothing on one side
        return Statement(tex[start:end], start, (), tuple(relations))
    sides = tuple(_side(tex, group) for group in groups)
    return Statement(tex[start:end], start, sides, tuple(relations))


def _top_level(tokens: list[Token]) -> list[Token]:
    depth = 0
    result = []
    for token in tokens:
        if token.text in OPENERS:
            depth += 1
        elif token.text in CLOSERS:
            depth -= 1
        elif depth == 0:
            result.append(token)
    return result


def _side(tex: str, tokens: list[Token]) -> Side:
    text = tex[tokens[0].start : tokens[-1].end].strip()
    try:
        return Side(text, parse_tokens(tokens))
    except TexError as error:
        return Side(text, None, str(error))
    except RecursionError:
        return Side(text, None, "nested too deeply")

"""LaTeX equations -> relation chains of small trees (`texnodes`), by our own grammar.

Reads what numeric prose uses: `\\frac`, `\\sqrt`, `^{}`, `\\times`, `\\cdot`, `\\log`, `\\ln`,
`\\log_2`, `\\exp`, trig and hyperbolic functions, `\\lceil\\rceil`, `\\lfloor\\rfloor`, `|x|`,
`\\left/\\right`, `16{,}384`, `\\%`, `\\sigma(x)` (the sigmoid), `\\tanh'`, `\\frac{d}{dz}`,
implicit products (`2\\pi`, `12Td^2`), plain variables (`x`, `\\gamma`, `d_k`, `k^*`).
`\\log` is the natural logarithm, as in the ML texts (`\\log_{10}` for base 10).
Anything else is refused with a reason, which the checker shows as why it skipped the equation.
A chain is split at `=`, `\\approx`, `<`, `\\le`, ... ; `\\quad`, `\\Rightarrow`, `;` separate
statements; `\\text{ at } T = 512` binds values; a unit (`\\text{ MiB}`) scales its side; any
other `\\text{...}` ends the maths that is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Final

from studykit.expressions.latex import _GREEK as GREEK
from studykit.expressions.limits import MAX_DEPTH
from studykit.expressions.texlex import TexError, Token, tokenize
from studykit.expressions.texnodes import (
    Bin,
    Call,
    Const,
    Name,
    Neg,
    Node,
    Num,
    Pow,
    Scaled,
    ident_for,
)

RELATIONS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "=": "=",
        "<": "<",
        ">": ">",
        r"\approx": "≈",
        r"\lt": "<",
        r"\gt": ">",
        r"\le": "≤",
        r"\leq": "≤",
        r"\leqslant": "≤",
        r"\ge": "≥",
        r"\geq": "≥",
        r"\geqslant": "≥",
        r"\ne": "≠",
        r"\neq": "≠",
    }
)
# Relations we recognise but do not check: the pair is skipped with this reason.
UNCHECKED: Final = frozenset(
    {r"\in", r"\notin", r"\sim", r"\simeq", r"\propto", r"\to", r"\mapsto", r"\ll", r"\gg"}
    | {r"\equiv", r"\cong", r"\subset", r"\subseteq", r"\approxeq"}
)
SEPARATORS: Final = frozenset(
    {r"\quad", r"\qquad", r"\Rightarrow", r"\implies", r"\iff", r"\Leftrightarrow", ";"}
)
BINDING_WORDS: Final = frozenset({"at", "for", "when", "with", "where"})
UNITS: Final[Mapping[str, Fraction]] = MappingProxyType(
    {
        "bytes": Fraction(1),
        "byte": Fraction(1),
        "KiB": Fraction(2**10),
        "MiB": Fraction(2**20),
        "GiB": Fraction(2**30),
    }
)
FUNCTIONS: Final[Mapping[str, str]] = MappingProxyType(
    {
        r"\log": "log",
        r"\ln": "ln",
        r"\exp": "exp",
        r"\sin": "sin",
        r"\cos": "cos",
        r"\tan": "tan",
        r"\arcsin": "asin",
        r"\arccos": "acos",
        r"\arctan": "atan",
        r"\sinh": "sinh",
        r"\cosh": "cosh",
        r"\tanh": "tanh",
        r"\min": "min",
        r"\max": "max",
    }
)
_FRACS: Final = frozenset({r"\frac", r"\dfrac", r"\tfrac"})
_PRODUCTS: Final = frozenset({r"\times", r"\cdot", "*"})
_OPENERS: Final = frozenset({"(", "[", "{", r"\lceil", r"\lfloor"})
_CLOSERS: Final = frozenset({")", "]", "}", r"\rceil", r"\rfloor"})
_NOT_ATOMS: Final = _PRODUCTS | _CLOSERS | {r"\div", r"\%", r"\pm", r"\mp", r"\cdots", r"\dots"}


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
        if token.text in _OPENERS:
            depth += 1
        elif token.text in _CLOSERS:
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
        if token.text in _OPENERS:
            depth += 1
        elif token.text in _CLOSERS:
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


def parse_tokens(tokens: list[Token]) -> Node:
    """One side's tree; TexError says what cannot be read."""
    parser = _Parser(tokens)
    node = parser.expr()
    if parser.pos < len(tokens):
        raise TexError(f"unexpected `{tokens[parser.pos].text}`")
    return node


class _Parser:
    """Recursive descent over one side's tokens (depth bounded by MAX_DEPTH)."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0
        self.in_abs = 0

    def peek(self, ahead: int = 0) -> Token | None:
        k = self.pos + ahead
        return self.tokens[k] if k < len(self.tokens) else None

    def at(self, *texts: str) -> bool:
        token = self.peek()
        return token is not None and token.kind != "text" and token.text in texts

    def take(self) -> Token:
        token = self.peek()
        if token is None:
            raise TexError("ends too early")
        self.pos += 1
        return token

    def expect(self, text: str) -> None:
        token = self.peek()
        if token is None or token.text != text:
            got = "the end" if token is None else f"`{token.text}`"
            raise TexError(f"expected `{text}`, found {got}")
        self.pos += 1

    def expr(self) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise TexError(f"nested more than {MAX_DEPTH} deep")
        try:
            node = self.term()
            while self.at("+", "-"):
                op = self.take().text
                node = Bin(op, node, self.term())
            return node
        finally:
            self.depth -= 1

    def signed(self) -> Node:
        if self.at("-"):
            self.take()
            return Neg(self.signed())
        if self.at("+"):
            self.take()
        return self.power()

    def term(self) -> Node:
        node = self.signed()
        while True:
            token = self.peek()
            if token is None:
                return node
            if token.kind == "text":
                unit = token.text.strip()
                if unit not in UNITS:
                    raise TexError(f"`\\text{{{token.text}}}` inside an expression")
                self.take()
                node = Scaled(node, UNITS[unit], unit)
            elif token.text in _PRODUCTS:
                self.take()
                node = Bin("*", node, self.signed(), written=token.text != "*")
            elif token.text in ("/", r"\div"):
                self.take()
                node = Bin("/", node, self.signed())
            elif self.starts_atom(token):
                if token.kind == "number":
                    raise TexError(f"a number (`{token.text}`) right after another factor")
                node = Bin("*", node, self.power())
            else:
                return node

    def starts_atom(self, token: Token) -> bool:
        if token.kind in ("number", "letter"):
            return True
        if token.kind == "command":
            return token.text not in _NOT_ATOMS and token.text not in RELATIONS
        return token.text in ("(", "[", "{") or (token.text == "|" and not self.in_abs)

    def power(self) -> Node:
        node = self.atom()
        if self.at("^"):
            self.take()
            node = Pow(node, self.script())
        if self.at(r"\%"):
            self.take()
            node = Scaled(node, Fraction(1, 100), "%")
        if self.at("!", "'"):
            raise TexError(f"`{self.take().text}` after a value is not checked")
        return node

    def script(self) -> Node:
        """The argument of `^`: a braced group or one character."""
        token = self.take()
        if token.text == "{":
            node = self.expr()
            self.expect("}")
            return node
        if token.kind == "number":
            if len(token.text) > 1:  # TeX takes one digit: `x^23` is x^2 * 3
                self.pos -= 1
                rest = token.text[1:]
                self.tokens[self.pos] = Token("number", rest, token.start + 1, token.end)
            return Num(token.text[0])
        if token.kind == "letter" or (token.kind == "command" and token.text[1:] in GREEK):
            return self.name_node(token)
        raise TexError(f"cannot read `^{token.text}`")

    def atom(self) -> Node:
        token = self.take()
        text = token.text
        if token.kind == "number":
            return Num(text)
        if token.kind == "letter":
            return self.name(token)
        if text in ("(", "[", "{"):
            node = self.expr()
            self.expect({"(": ")", "[": "]", "{": "}"}[text])
            return node
        if text == "|":
            self.in_abs += 1
            try:
                node = self.expr()
            finally:
                self.in_abs -= 1
            self.expect("|")
            return Call("Abs", (node,))
        if text in (r"\lceil", r"\lfloor"):
            node = self.expr()
            self.expect(r"\rceil" if text == r"\lceil" else r"\rfloor")
            return Call("ceiling" if text == r"\lceil" else "floor", (node,))
        if text in _FRACS:
            return self.fraction()
        if text == r"\sqrt":
            return self.root()
        if text in FUNCTIONS:
            return self.function(FUNCTIONS[text], text)
        if text == r"\pi":
            return Const("pi")
        if text == r"\sigma" and self.at("("):
            return _sigmoid(self.parenthesised())
        if token.kind == "command" and text.removeprefix("\\").removeprefix("var") in GREEK:
            return self.name(token)
        raise TexError(f"`{text}` is not something the checker evaluates")

    def parenthesised(self) -> Node:
        self.expect("(")
        node = self.expr()
        self.expect(")")
        return node

    def group(self) -> Node:
        if self.at("{"):
            self.take()
            node = self.expr()
            self.expect("}")
            return node
        return self.script()

    def fraction(self) -> Node:
        top, bottom = self.group(), self.group()
        if top == Name("d", "d") and isinstance(bottom, Bin) and bottom.left == top:
            variable = bottom.right
            if bottom.op == "*" and isinstance(variable, Name):
                return Call("diff", (self.argument(), variable))
        return Bin("/", top, bottom)

    def root(self) -> Node:
        degree: Node | None = None
        if self.at("["):
            self.take()
            degree = self.expr()
            self.expect("]")
        radicand = self.group()
        if degree is None:
            return Call("sqrt", (radicand,))
        return Pow(radicand, Bin("/", Num("1"), degree))

    def function(self, name: str, command: str) -> Node:
        base: Node | None = None
        if self.at("_"):
            self.take()
            if name != "log":
                raise TexError(f"`{command}_` over an index is not checked")
            base = self.script()
        exponent: Node | None = None
        if self.at("^"):
            self.take()
            exponent = self.script()
        prime = False
        if self.at("'"):
            self.take()
            prime = True
            if name != "tanh" or exponent is not None:
                raise TexError(f"the derivative `{command}'` is not checked")
        if self.at("("):
            self.take()
            args = [self.expr()]
            while self.at(","):
                self.take()
                args.append(self.expr())
            self.expect(")")
        else:
            token = self.peek()
            if token is None or not self.starts_atom(token):
                raise TexError(f"`{command}` without an argument")
            args = [self.argument()]
        if (name in ("min", "max")) != (len(args) > 1):
            raise TexError(f"`{command}` with {len(args)} argument(s)")
        if prime:
            return Bin("-", Num("1"), Pow(Call("tanh", tuple(args)), Num("2")))
        node: Node = Call(name, (*args, base) if base is not None else tuple(args))
        return node if exponent is None else Pow(node, exponent)

    def argument(self) -> Node:
        """A function's argument without parentheses: `\\sin 2x` -> 2x, `\\sin a \\cos b`."""
        node = self.power()
        while (token := self.peek()) is not None and self.starts_atom(token):
            if token.kind == "number" or token.text in FUNCTIONS or token.text in _FRACS:
                break
            node = Bin("*", node, self.power())
        return node

    def name(self, token: Token) -> Node:
        node = self.name_node(token)
        if self.at("(") and not isinstance(node, Const):
            raise TexError(f"`{node.shown}(…)`: a function the checker does not know")
        return node

    def name_node(self, token: Token) -> Name | Const:
        base = token.text.removeprefix("\\").removeprefix("var")
        shown = token.text
        sub = ""
        if self.at("_"):
            self.take()
            sub_tokens = self.script_tokens()
            if not all(
                item.kind == "letter" or (item.kind == "number" and "." not in item.text)
                for item in sub_tokens
            ):
                raw = "".join(item.text for item in sub_tokens)
                raise TexError(f"the subscript in `{shown}_{{{raw}}}` is not a plain name")
            sub = "".join(item.text for item in sub_tokens)
            shown += f"_{{{sub}}}"
        if self.at("^") and self.peek(1) is not None:
            after = self.tokens[self.pos + 1 : self.pos + 4]
            if after[:1] and after[0].text == "*":
                self.pos += 2
                return Name(ident_for(base, (sub + "_" if sub else "") + "star"), shown + "^*")
            if [item.text for item in after] == ["{", "*", "}"]:
                self.pos += 4
                return Name(ident_for(base, (sub + "_" if sub else "") + "star"), shown + "^*")
            if after[:1] and after[0].text in (r"\top", r"\prime"):
                raise TexError(f"`{shown}^{after[0].text}` (a transpose or prime) is not checked")
        if self.at("'"):
            raise TexError(f"`{shown}'` (a prime) is not checked")
        if shown == "e":
            return Const("E")
        return Name(ident_for(base, sub), shown)

    def script_tokens(self) -> list[Token]:
        token = self.take()
        if token.text != "{":
            return [token]
        found = []
        while not self.at("}"):
            found.append(self.take())
        self.take()
        return found


def _sigmoid(argument: Node) -> Node:
    return Bin("/", Num("1"), Bin("+", Num("1"), Call("exp", (Neg(argument),))))

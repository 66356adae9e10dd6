"""LaTeX -> one side's tree of small nodes (`texnodes`), by our own grammar.

Reads what numeric prose uses: `\\frac`, `\\sqrt`, `^{}`, `\\times`, `\\cdot`, `\\log`, `\\ln`,
`\\log_2`, `\\exp`, trig and hyperbolic functions, `\\lceil\\rceil`, `\\lfloor\\rfloor`, `|x|`,
`\\left/\\right`, `16{,}384`, `\\%`, `\\sigma(x)` (the sigmoid), `\\tanh'`, `\\frac{d}{dz}`,
implicit products (`2\\pi`, `12Td^2`), plain variables (`x`, `\\gamma`, `d_k`, `k^*`), a unit
(`\\text{ MiB}`) that scales its side. `\\log` is the natural logarithm, as in the ML texts
(`\\log_{10}` for base 10). Anything else is refused with a reason, which the checker shows as
why it skipped the equation. TeX's structure (arguments, `[…]`, scripts) is read by the
shared `TexReader`, as the maths renderer reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import Final

from studykit.expressions.latex import _GREEK as GREEK
from studykit.expressions.limits import MAX_DEPTH
from studykit.expressions.texlex import TexError, Token
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
from studykit.text.texread import TexReader

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
OPENERS: Final = frozenset({"(", "[", "{", r"\lceil", r"\lfloor"})
CLOSERS: Final = frozenset({")", "]", "}", r"\rceil", r"\rfloor"})
_NOT_ATOMS: Final = _PRODUCTS | CLOSERS | {r"\div", r"\%", r"\pm", r"\mp", r"\cdots", r"\dots"}


def parse_tokens(tokens: list[Token]) -> Node:
    """One side's tree; TexError says what cannot be read."""
    parser = _Parser(tokens)
    node = parser.expr()
    if parser.pos < len(tokens):
        raise TexError(f"unexpected `{tokens[parser.pos].text}`")
    return node


class _Parser(TexReader[Node]):
    """Recursive descent over one side's tokens (depth bounded by MAX_DEPTH)."""

    def __init__(self, tokens: list[Token]) -> None:
        # The reader sees a `\text{…}` token as the command it is, never as its body's text.
        super().__init__([r"\text" if token.kind == "text" else token.text for token in tokens])
        self.tokens = tokens
        self.depth = 0
        self.in_abs = 0

    def token(self, ahead: int = 0) -> Token | None:
        k = self.pos + ahead
        return self.tokens[k] if k < len(self.tokens) else None

    def take(self) -> Token:
        if self.pos >= len(self.tokens):
            raise TexError("ends too early")
        self.pos += 1
        return self.tokens[self.pos - 1]

    def expect(self, text: str) -> None:
        token = self.token()
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
            token = self.token()
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
        if (exponent := self.script("^")) is not None:
            node = Pow(node, exponent[1])
        if self.at(r"\%"):
            self.take()
            node = Scaled(node, Fraction(1, 100), "%")
        if self.at("!", "'"):
            raise TexError(f"`{self.take().text}` after a value is not checked")
        return node

    def until(self, closer: str) -> Node:
        node = self.expr()
        self.expect(closer)
        return node

    def single(self) -> Node:
        """One token as an argument (of `^`, `\\frac`, `\\sqrt`): a digit or a name."""
        token = self.take()
        if token.kind == "number":
            if len(token.text) > 1:  # TeX takes one digit: `x^23` is x^2 * 3
                self.pos -= 1
                rest = token.text[1:]
                self.tokens[self.pos] = Token("number", rest, token.start + 1, token.end)
                self.texts[self.pos] = rest
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

    def fraction(self) -> Node:
        top, bottom = self.argument(), self.argument()
        if top == Name("d", "d") and isinstance(bottom, Bin) and bottom.left == top:
            variable = bottom.right
            if bottom.op == "*" and isinstance(variable, Name):
                return Call("diff", (self.operand(), variable))
        return Bin("/", top, bottom)

    def root(self) -> Node:
        degree = self.option()
        radicand = self.argument()
        if degree is None:
            return Call("sqrt", (radicand,))
        return Pow(radicand, Bin("/", Num("1"), degree))

    def function(self, name: str, command: str) -> Node:
        if self.at("_") and name != "log":
            raise TexError(f"`{command}_` over an index is not checked")
        base, exponent = self.script("_"), self.script("^")
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
            token = self.token()
            if token is None or not self.starts_atom(token):
                raise TexError(f"`{command}` without an argument")
            args = [self.operand()]
        if (name in ("min", "max")) != (len(args) > 1):
            raise TexError(f"`{command}` with {len(args)} argument(s)")
        if prime:
            return Bin("-", Num("1"), Pow(Call("tanh", tuple(args)), Num("2")))
        node: Node = Call(name, (*args, base[1]) if base is not None else tuple(args))
        return node if exponent is None else Pow(node, exponent[1])

    def operand(self) -> Node:
        """A function's argument without parentheses: `\\sin 2x` -> 2x, `\\sin a \\cos b`."""
        node = self.power()
        while (token := self.token()) is not None and self.starts_atom(token):
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
        if self.at("^") and self.token(1) is not None:
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

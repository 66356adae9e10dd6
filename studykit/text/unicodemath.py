"""LaTeX maths to readable Unicode text for the terminal.

`latex_to_unicode` reads TeX with the shared reader (`texread`) and renders it with a small
recursive-descent parser over groups. It never raises: unknown commands keep their name, and
unbalanced braces give a best effort.
"""

from __future__ import annotations

import re
import unicodedata

from studykit.text.symbols import (
    ACCENTS,
    BLACKBOARD,
    CALLIGRAPHIC,
    CLOSERS,
    COMPOUND,
    CONTROL_SYMBOLS,
    ENVIRONMENTS,
    FONTS,
    GREEK,
    IGNORED,
    NEGATED,
    OPENERS,
    OPERATORS,
    SPACES,
    SUBSCRIPTS,
    SUPERSCRIPTS,
    SWALLOW_SPACE,
    SYMBOLS,
    TEXT_FONTS,
    WORDLIKE,
    WORDS,
)
from studykit.text.texread import TexReader, is_command, tex_tokens

# Spaces inside brackets and before punctuation go, as in TeX: `\lceil x \rceil` is `⌈x⌉`.
_LOOSE_SPACE = re.compile(rf"(?<=[{re.escape(OPENERS)}]) +| +(?=[{re.escape(CLOSERS)},;])| (?= )")
_SCRIPT_CHARS = re.escape("".join(set(SUPERSCRIPTS.values()) | set(SUBSCRIPTS.values())))
_ATOM = re.compile(rf"(?:\d+(?:\.\d+)?|[^\W\d_][\u0300-\u036f\u20d0-\u20ff]*)[{_SCRIPT_CHARS}]*")
_MAX_DEPTH = 60


def _tokenize(tex: str) -> list[str]:
    """The TeX tokens, each whitespace run as one ` ` (dropped after `SWALLOW_SPACE`)."""
    tokens: list[str] = []
    for tok in tex_tokens(tex):
        if tok.isspace():
            if tokens and tokens[-1] in SWALLOW_SPACE:
                continue
            tok = " "
        tokens.append(tok)
    return tokens


def _wrapped(text: str) -> bool:
    """True when `text` is one bracketed expression, like `(a+b)`."""
    if len(text) < 2 or text[0] not in OPENERS or text[-1] != CLOSERS[OPENERS.index(text[0])]:
        return False
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch in OPENERS) - (ch in CLOSERS)
        if depth == 0 and i < len(text) - 1:
            return False
    return True


def _compound(text: str, *, leading_sign_ok: bool = False) -> bool:
    """True when `text` has an operator outside brackets, so `/` would bind wrongly."""
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch in OPENERS) - (ch in CLOSERS)
        if depth == 0 and ch in COMPOUND and not (i == 0 and leading_sign_ok and ch in "+-−±∓"):
            return True
    return False


# Superscripts that read as marks on their letter, written straight after it: `k*`, `A†`.
_MARKS = frozenset("*∗†‡⋆")
# Letters only, as in `d_model` or `seq_len`: a name's suffix, not an index.
_WORD = re.compile(r"[A-Za-z]+")


def _unwrapped(text: str) -> str:
    """`text` without one pair of round brackets around all of it."""
    return text[1:-1] if text.startswith("(") and _wrapped(text) else text


def superscript(content: str) -> str:
    """A superscript in Unicode, `*` as is, else `^(…)` (never a half-converted one)."""
    compact = content.replace(" ", "")
    if all(ch in SUPERSCRIPTS for ch in compact):
        return "".join(SUPERSCRIPTS[ch] for ch in compact)
    if compact in _MARKS:
        return compact
    return f"^({_unwrapped(' '.join(content.split()))})"


def _identifier(base: str, content: str) -> bool:
    """True when `base_content` is one name (`d_model`, `seq_len`) rather than an index."""
    if not _WORD.fullmatch(content):
        return False
    if _WORD.fullmatch(base) and len(base) >= 2:  # `\mathrm{seq}_{len}` is `seq_len`
        return len(content) >= 2
    return len(content) >= 3 and not all(ch in SUBSCRIPTS for ch in content)


def _subscript(content: str, *, bracketed: bool = False) -> str:
    """A subscript in Unicode, else `[…]` as an index: `h[T]`, `h[T-1]` (`bracketed` forces it)."""
    compact = content.replace(" ", "")
    if not bracketed and all(ch in SUBSCRIPTS for ch in compact):
        return "".join(SUBSCRIPTS[ch] for ch in compact)
    return f"[{_unwrapped(' '.join(content.split()))}]"


class _Parser(TexReader[str]):
    def __init__(self, tokens: list[str], bracketed: frozenset[str] = frozenset()) -> None:
        super().__init__(tokens)
        self.bracketed = bracketed  # bases whose every subscript is written `[…]`
        self.indexed: set[str] = set()  # bases with a subscript that Unicode could not show
        self.depth = 0
        self.matrix = 0

    def expr(self, closer: str | None = None) -> str:
        """Render tokens up to `closer` (consumed) or the end."""
        out: list[str] = []
        while (tok := self.peek()) is not None:
            if tok == closer:
                self.pos += 1
                break
            if tok == "}":  # stray closing brace: skip it
                self.pos += 1
            elif tok == " ":
                self.pos += 1
                out.append(" ")
            else:
                if tok == "\\right" and out:  # `\left| x \right|` is `|x|`
                    out[-1] = out[-1].rstrip(" ")
                out.append(self.scripts(self.atom()))
        return "".join(out)

    def until(self, closer: str) -> str:
        return self.expr(closer)

    def group(self) -> str:
        if self.depth >= _MAX_DEPTH:  # pathological nesting: flatten instead of recursing
            return ""
        self.depth += 1
        try:
            return self.expr("}")
        finally:
            self.depth -= 1

    def single(self) -> str:
        if self.peek() in (None, "}", "^", "_"):
            return ""
        return self.atom()

    def scripts(self, base: str) -> str:
        """Attach any `_` and `^` that follow `base`."""
        key = base.strip()
        while (found := self.script()) is not None:
            mark, arg = found[0], found[1].strip()
            if mark == "^":
                base += superscript(arg)
            elif _identifier(key, arg):
                base = f"{base}_{arg} " if self.word_follows() else f"{base}_{arg}"
            else:
                piece = _subscript(arg, bracketed=key in self.bracketed)
                if piece.startswith("["):
                    self.indexed.add(key)
                base += piece
        return base

    def atom(self) -> str:
        tok = self.peek() or ""
        self.pos += 1
        if tok == "{":
            return self.group()
        if self.depth >= _MAX_DEPTH:  # pathological nesting: flatten instead of recursing
            return "" if tok in ("^", "_") else tok.lstrip("\\")
        self.depth += 1
        try:
            if is_command(tok):
                return self.command(tok[1:])
            return {"'": "′", "~": " ", "&": " ", "^": "", "_": ""}.get(tok, tok)
        finally:
            self.depth -= 1

    def word_follows(self) -> bool:
        tok = self.peek()
        if tok is None:
            return False
        name = tok[1:]
        if tok.startswith("\\") and name.isalpha():
            known = (SYMBOLS, OPERATORS, SPACES, IGNORED, ENVIRONMENTS, {"left": 0, "right": 0})
            return name in WORDLIKE or not any(name in table for table in known)
        return tok.isalnum() or tok == "{"

    def spaced(self, text: str) -> str:
        return text + " " if self.word_follows() else text

    def text_arg(self) -> str:
        """A `\\text{...}` argument: characters as typed, spaces kept."""
        self.skip_spaces()
        if self.peek() != "{":
            return self.argument()
        self.pos += 1
        out: list[str] = []
        level = 1
        while (tok := self.peek()) is not None:
            level += (tok == "{") - (tok == "}")
            if level == 0:
                self.pos += 1
                break
            if tok.startswith("\\") and tok[1:] not in CONTROL_SYMBOLS:
                out.append(self.atom())
            else:
                self.pos += 1
                out.append("" if tok in "{}" else CONTROL_SYMBOLS.get(tok[1:], tok))
        return "".join(out)

    def command(self, name: str) -> str:
        for table in (GREEK, SYMBOLS, CONTROL_SYMBOLS):
            if name in table:
                return table[name]
        if name in OPERATORS or name in SPACES:
            return f" {OPERATORS.get(name) or SPACES[name]} "
        if name in WORDS:
            return self.spaced(WORDS[name])
        if name == "\\":
            return "; " if self.matrix else "\n"
        if name in IGNORED:
            return ""
        if name in ("left", "right"):
            self.skip_spaces()
            if self.peek() == ".":  # `\left.` is an invisible delimiter
                self.pos += 1
                return ""
            if name == "right" or self.peek() is None:
                return ""
            delimiter = self.atom()  # `\left\| \frac…` is `‖∂…`: no space inside
            self.skip_spaces()
            return delimiter
        if name in ("frac", "dfrac", "tfrac", "cfrac"):
            num, den = self.argument().strip(), self.argument().strip()
            if not (num or den):
                return ""
            num = f"({num})" if _compound(num, leading_sign_ok=True) else num
            return f"{num}/{f'({den})' if _compound(den) else den}"
        if name == "sqrt":
            return self.sqrt()
        if name == "binom":
            top, bottom = self.argument().strip(), self.argument().strip()
            return f"({top} choose {bottom})"
        if name in TEXT_FONTS:
            return self.text_arg()
        if name in FONTS:
            return self.argument()
        if name == "operatorname":
            if self.peek() == "*":
                self.pos += 1
            return self.spaced(self.text_arg().strip())
        if name in ("mathbb", "mathcal"):
            table = BLACKBOARD if name == "mathbb" else CALLIGRAPHIC
            return "".join(table.get(ch, ch) for ch in self.argument())
        if name in ACCENTS:
            mark = ACCENTS[name]
            return "".join(ch + mark if ch.isalnum() else ch for ch in self.argument())
        if name == "not":
            inner = self.argument()
            core = inner.strip()
            return inner.replace(core, NEGATED.get(core, core + "\u0338")) if core else ""
        if name in ("overset", "stackrel", "underset"):
            over, base = self.argument().strip(), self.argument().strip()
            sub = name == "underset"
            return base + (_subscript(over) if sub else superscript(over))
        if name == "pmod":
            return f" (mod {self.argument().strip()})"
        if name == "begin":
            return self.environment(self.text_arg().strip())
        if name in ("end", "label", "color", "textcolor", "hspace", "vspace", "phantom"):
            self.text_arg()
            return self.argument() if name == "textcolor" else ""
        return self.spaced(name)  # unknown: keep its name, like an operator name

    def sqrt(self) -> str:
        index = (self.option() or "").strip()
        body = self.argument().strip()
        roots = {"": "√", "2": "√", "3": "∛", "4": "∜"}
        root = roots.get(index) or superscript(index) + "√"
        return root + (body if not body or _ATOM.fullmatch(body) or _wrapped(body) else f"({body})")

    def environment(self, env: str) -> str:
        if env == "array":
            self.text_arg()  # the column spec
        opener, closer = ENVIRONMENTS.get(env, ("", ""))
        self.matrix += env in ENVIRONMENTS
        body = self.expr("\\end").strip(" ")
        self.matrix -= env in ENVIRONMENTS
        self.text_arg()
        return f"{opener}{body}{closer}"


def latex_to_unicode(tex: str) -> str:
    """Render LaTeX maths as readable Unicode text; never raises."""
    tokens = _tokenize(tex)
    try:
        parser = _Parser(tokens)
        rendered = parser.expr()
        if parser.indexed:  # one notation per symbol: `x[1], …, x[T]`, not `x₁, …, x[T]`
            rendered = _Parser(tokens, frozenset(parser.indexed)).expr()
    except RecursionError:  # belt and braces: the depth guard should make this unreachable
        return " ".join(tex.split())
    rendered = unicodedata.normalize("NFC", rendered)  # precomposed letters render best
    lines = (_LOOSE_SPACE.sub("", line).strip(" ") for line in rendered.split("\n"))
    return "\n".join(line for line in lines if line)

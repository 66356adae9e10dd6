"""LaTeX maths to readable Unicode for the terminal, and to MathJax for Anki.

`latex_to_unicode` tokenizes TeX and renders it with a small recursive-descent
parser over groups. It never raises: unknown commands keep their name, and
unbalanced braces give a best effort.
"""

from __future__ import annotations

import html
import re
import unicodedata

from studykit.core.terminal import terminal_safe
from studykit.text.htmlrule import html_for_terminal
from studykit.text.mathscan import prefix_end, split_code_fences, split_maths


def _table(keys: str, values: str) -> dict[str, str]:
    return dict(zip(keys.split(), values.split(), strict=True))


def _chars(keys: str, values: str) -> dict[str, str]:
    return dict(zip(keys, values, strict=True))


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


GREEK = _table(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu "
    "xi omicron pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega "
    "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega",
    "α β γ δ ε ε ζ η θ ϑ ι κ λ μ ν ξ ο π ϖ ρ ϱ σ ς τ υ φ φ χ ψ ω Γ Δ Θ Λ Ξ Π Σ Υ Φ Ψ Ω",
)
# Ordinary symbols: no spacing of their own.
SYMBOLS = _table(
    "partial nabla infty ell hbar Re Im aleph emptyset varnothing forall exists nexists neg lnot "
    "prime top bot dagger degree angle triangle square checkmark star ast bullet "
    "langle rangle lceil rceil lfloor rfloor lvert rvert vert lVert rVert Vert "
    "lbrace rbrace lbrack rbrack backslash surd sharp flat",
    "∂ ∇ ∞ ℓ ℏ ℜ ℑ ℵ ∅ ∅ ∀ ∃ ∄ ¬ ¬ ′ ⊤ ⊥ † ° ∠ △ □ ✓ ⋆ ∗ • "
    "⟨ ⟩ ⌈ ⌉ ⌊ ⌋ | | | ‖ ‖ ‖ { } [ ] \\ √ ♯ ♭",
)
# Binary operators and relations: LaTeX puts space around them, so do we.
OPERATORS = _table(
    "times cdot div pm mp circ odot otimes oplus ominus wedge vee land lor cup cap setminus "
    "to rightarrow leftarrow gets Rightarrow Leftarrow implies impliedby iff leftrightarrow "
    "Leftrightarrow mapsto longrightarrow longmapsto uparrow downarrow "
    "le leq ge geq neq ne approx sim simeq cong equiv propto ll gg in notin ni subset subseteq "
    "supset supseteq perp parallel mid models coloneqq triangleq doteq prec succ preceq succeq "
    "bmod mod",
    "× · ÷ ± ∓ ∘ ⊙ ⊗ ⊕ ⊖ ∧ ∨ ∧ ∨ ∪ ∩ ∖ → → ← ← ⇒ ⇐ ⇒ ⇐ ⇔ ↔ ⇔ ↦ ⟶ ⟼ ↑ ↓ "
    "≤ ≤ ≥ ≥ ≠ ≠ ≈ ∼ ≃ ≅ ≡ ∝ ≪ ≫ ∈ ∉ ∋ ⊂ ⊆ ⊃ ⊇ ⊥ ∥ | ⊨ ≔ ≜ ≐ ≺ ≻ ⪯ ⪰ mod mod",
)
# Named operators and big operators: a space follows them when a letter does.
WORDS = {name: name for name in _names(
    "sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh coth log ln lg exp max min "
    "sup inf lim liminf limsup arg argmax argmin det dim ker deg gcd hom Pr tr diag softmax"
)} | _table(
    "sum prod coprod int iint iiint oint bigcup bigcap bigoplus bigotimes dots ldots cdots",
    "∑ ∏ ∐ ∫ ∬ ∭ ∮ ⋃ ⋂ ⨁ ⨂ … … ⋯",
)  # fmt: skip
CONTROL_SYMBOLS = {
    ",": " ", ":": " ", ";": " ", ">": " ", " ": " ", "!": "", "|": "‖",
    "{": "{", "}": "}", "%": "%", "$": "$", "#": "#", "&": "&", "_": "_",
}  # fmt: skip
SPACES = {"quad": "\u2003", "qquad": "\u2003\u2003"}
ACCENTS = _table(
    "hat widehat tilde widetilde bar overline underline vec dot ddot check breve acute grave",
    "\u0302 \u0302 \u0303 \u0303 \u0304 \u0305 \u0332 \u20d7 \u0307 \u0308 \u030c \u0306 "
    "\u0301 \u0300",
)
TEXT_FONTS = _names("text textrm textbf textit textnormal texttt textsf mbox emph")
FONTS = TEXT_FONTS | _names(
    "mathrm mathbf mathit mathsf mathtt mathnormal mathfrak boldsymbol bm underbrace overbrace"
)
IGNORED = _names(
    "displaystyle textstyle scriptstyle limits nolimits nonumber notag middle "
    "big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr"
)
BLACKBOARD = _table("R N Z Q C P E H F K 1", "ℝ ℕ ℤ ℚ ℂ ℙ 𝔼 ℍ 𝔽 𝕂 𝟙")
CALLIGRAPHIC = _table("B E F H I L M R", "ℬ ℰ ℱ ℋ ℐ ℒ ℳ ℛ")
SUPERSCRIPTS = _chars(
    "0123456789+-−=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWαβγδεθιφχ/′'⊤∘,",
    "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵅᵝᵞᵟᵋᶿᶥᵠᵡᐟ′′ᵀ°,",
)
SUBSCRIPTS = _chars(
    "0123456789+-−=()aehijklmnoprstuvxβγρφχ,", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ,"
)
NEGATED = _table("= ∈ ≡ < > ≤ ≥ ∼ ⊂ ⊆ | ∃", "≠ ∉ ≢ ≮ ≯ ≰ ≱ ≁ ⊄ ⊈ ∤ ∄")
ENVIRONMENTS = {
    "pmatrix": ("(", ")"), "bmatrix": ("[", "]"), "Bmatrix": ("{", "}"), "vmatrix": ("|", "|"),
    "Vmatrix": ("‖", "‖"), "matrix": ("", ""), "smallmatrix": ("", ""), "cases": ("{", ""),
}  # fmt: skip
# Commands that start a word-like atom, so a preceding `\log` needs a space: `log x`.
WORDLIKE = frozenset(GREEK) | frozenset(WORDS) | FONTS | frozenset(ACCENTS) | _names(
    "partial nabla infty ell hbar frac dfrac tfrac sqrt mathbb mathcal operatorname binom"
)  # fmt: skip
# The space after these is dropped (as TeX drops every one): `\partial h` is `∂h`.
SWALLOW_SPACE = _names(r"\partial \nabla \forall \exists \neg \lnot \lvert \lVert \left")
OPENERS, CLOSERS = "([{⟨⌈⌊", ")]}⟩⌉⌋"
# Spaces inside brackets and before punctuation go, as in TeX: `\lceil x \rceil` is `⌈x⌉`.
_LOOSE_SPACE = re.compile(rf"(?<=[{re.escape(OPENERS)}]) +| +(?=[{re.escape(CLOSERS)},;])| (?= )")
COMPOUND = frozenset("+-−±∓=≠<>≤≥≈∼≃≅≡∝→←⇒⇐⇔↦,;/·×÷⊙⊗⊕∈∉⊂⊆∪∩∧∨")
_SCRIPT_CHARS = re.escape("".join(set(SUPERSCRIPTS.values()) | set(SUBSCRIPTS.values())))
_ATOM = re.compile(rf"(?:\d+(?:\.\d+)?|[^\W\d_][\u0300-\u036f\u20d0-\u20ff]*)[{_SCRIPT_CHARS}]*")
_TOKEN = re.compile(r"\\([A-Za-z]+)|\\(.)|(\s+)|(.)", re.DOTALL)
_MAX_DEPTH = 60


def _tokenize(tex: str) -> list[str]:
    """Commands as `\\name`, whitespace runs as one ` `."""
    tokens: list[str] = []
    for word, symbol, space, char in _TOKEN.findall(tex):
        tok = "\\" + (word or symbol) if word or symbol else " " if space else char
        if not (tok == " " and tokens and tokens[-1] in SWALLOW_SPACE):
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


class _Parser:
    def __init__(self, tex: str, bracketed: frozenset[str] = frozenset()) -> None:
        self.toks = _tokenize(tex)
        self.bracketed = bracketed  # bases whose every subscript is written `[…]`
        self.indexed: set[str] = set()  # bases with a subscript that Unicode could not show
        self.pos = 0
        self.depth = 0
        self.matrix = 0

    def peek(self) -> str | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def skip_spaces(self) -> None:
        while self.peek() == " ":
            self.pos += 1

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

    def scripts(self, base: str) -> str:
        """Attach any `_` and `^` that follow `base` (spaces before them are ignored)."""
        key = base.strip()
        while True:
            j = self.pos
            while j < len(self.toks) and self.toks[j] == " ":
                j += 1
            if j >= len(self.toks) or self.toks[j] not in ("_", "^"):
                return base
            self.pos = j + 1
            arg = self.arg().strip()
            if self.toks[j] == "^":
                base += superscript(arg)
            elif _identifier(key, arg):
                base = f"{base}_{arg} " if self.word_follows() else f"{base}_{arg}"
            else:
                piece = _subscript(arg, bracketed=key in self.bracketed)
                if piece.startswith("["):
                    self.indexed.add(key)
                base += piece

    def arg(self) -> str:
        """One macro argument: a `{group}` or a single token."""
        self.skip_spaces()
        if self.peek() in (None, "}", "^", "_"):
            return ""
        return self.atom()

    def atom(self) -> str:
        tok = self.toks[self.pos] if self.pos < len(self.toks) else ""
        self.pos += 1
        if self.depth >= _MAX_DEPTH:  # pathological nesting: flatten instead of recursing
            return "" if tok in ("{", "^", "_") else tok.lstrip("\\")
        self.depth += 1
        try:
            if tok == "{":
                return self.expr("}")
            if tok.startswith("\\") and len(tok) > 1:
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
            return self.arg()
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
            num, den = self.arg().strip(), self.arg().strip()
            if not (num or den):
                return ""
            num = f"({num})" if _compound(num, leading_sign_ok=True) else num
            return f"{num}/{f'({den})' if _compound(den) else den}"
        if name == "sqrt":
            return self.sqrt()
        if name == "binom":
            top, bottom = self.arg().strip(), self.arg().strip()
            return f"({top} choose {bottom})"
        if name in TEXT_FONTS:
            return self.text_arg()
        if name in FONTS:
            return self.arg()
        if name == "operatorname":
            if self.peek() == "*":
                self.pos += 1
            return self.spaced(self.text_arg().strip())
        if name in ("mathbb", "mathcal"):
            table = BLACKBOARD if name == "mathbb" else CALLIGRAPHIC
            return "".join(table.get(ch, ch) for ch in self.arg())
        if name in ACCENTS:
            mark = ACCENTS[name]
            return "".join(ch + mark if ch.isalnum() else ch for ch in self.arg())
        if name == "not":
            inner = self.arg()
            core = inner.strip()
            return inner.replace(core, NEGATED.get(core, core + "\u0338")) if core else ""
        if name in ("overset", "stackrel", "underset"):
            over, base = self.arg().strip(), self.arg().strip()
            sub = name == "underset"
            return base + (_subscript(over) if sub else superscript(over))
        if name == "pmod":
            return f" (mod {self.arg().strip()})"
        if name == "begin":
            return self.environment(self.text_arg().strip())
        if name in ("end", "label", "color", "textcolor", "hspace", "vspace", "phantom"):
            self.text_arg()
            return self.arg() if name == "textcolor" else ""
        return self.spaced(name)  # unknown: keep its name, like an operator name

    def sqrt(self) -> str:
        self.skip_spaces()
        index = ""
        if self.peek() == "[":
            self.pos += 1
            index = self.expr("]").strip()
        body = self.arg().strip()
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
    try:
        parser = _Parser(tex)
        rendered = parser.expr()
        if parser.indexed:  # one notation per symbol: `x[1], …, x[T]`, not `x₁, …, x[T]`
            rendered = _Parser(tex, frozenset(parser.indexed)).expr()
    except RecursionError:  # belt and braces: the depth guard should make this unreachable
        return " ".join(tex.split())
    rendered = unicodedata.normalize("NFC", rendered)  # precomposed letters render best
    lines = (_LOOSE_SPACE.sub("", line).strip(" ") for line in rendered.split("\n"))
    return "\n".join(line for line in lines if line)


def latex_to_mathjax(tex: str, display: bool) -> str:
    """Wrap LaTeX for MathJax in an HTML field; `}}` is split so Anki's templates ignore it."""
    body = html.escape(tex.strip(), quote=False)
    while "}}" in body:
        body = body.replace("}}", "} }")
    return rf"\[{body}\]" if display else rf"\({body}\)"


# Markdown ---------------------------------------------------------------------------------

_ENDS_PARAGRAPH = re.compile(r"(?:\A|\n)[ \t>]*\n\Z")
_TRAILING_PUNCTUATION = re.compile(r"[ \t]*([.,;:]*)[ \t]*\n?")
# CommonMark lets any ASCII punctuation be backslash-escaped, and an escaped character is
# always literal; escaping them all is simpler and safer than guessing which would matter.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def _md_escape(text: str) -> str:
    return _PUNCTUATION.sub(r"\\\1", text)


def _display_block(before: str, tex: str, rest: str) -> tuple[str, int]:
    """Put display maths in a paragraph of its own; return the text and chars of `rest` used.

    The paragraph is a block quote: Textual's Markdown widget draws a quote with a bar and a
    tinted background, which sets a formula apart as a centred display does on paper. An
    indented line would instead become a code block (raw text, escapes shown).
    """
    line_start = before.rfind("\n") + 1
    prefix = before[line_start : prefix_end(before, line_start)]
    if ">" in prefix:  # in a quote, every line of the maths starts with the quote markers
        tex = re.sub(r"\n[ \t>]*", "\n", tex)
    rendered = latex_to_unicode(tex)
    if not rendered:
        return before, 0
    # Inside a list item or a quote, the display stays there: markers become indentation.
    continuation = re.sub(r"[-*+]|\d+[.)]", lambda m: " " * len(m.group()), prefix)
    blank = continuation.rstrip()
    if before[line_start + len(prefix) :].strip():
        before = before.rstrip(" \t") + "\n"
    else:
        before = before[:line_start]
    if before.strip() and not _ENDS_PARAGRAPH.search(before):
        before += blank + "\n"
    tail = _TRAILING_PUNCTUATION.match(rest)
    lines = [_md_escape(line) for line in rendered.split("\n")]
    lines[-1] += _md_escape(tail.group(1)) if tail else ""
    block = "\\\n".join(f"{continuation}> {line}" for line in lines)  # `\` + newline: hard break
    used = tail.end() if tail else 0
    # The rest of the line (if any) is a new paragraph in the same container.
    after = "" if rest[:used].endswith("\n") or used == len(rest) else continuation
    return f"{before}{block}\n{blank}\n{after}", used


def _prose_subscript(text: str) -> str:
    """`<sub>…</sub>` in prose: Unicode where every character has one, else `_(…)`."""
    if text and all(ch in SUBSCRIPTS for ch in text):
        return "".join(SUBSCRIPTS[ch] for ch in text)
    return f"_({text})"


def _convert_prose(text: str) -> str:
    done = ""  # converted text so far (display maths rewrites its tail)
    out: list[str] = []
    skip = 0  # characters after display maths that its block took in
    for piece in split_maths(text):
        if isinstance(piece, str):
            out.append(html_for_terminal(piece[skip:], _prose_subscript, superscript))
            skip = 0
        elif piece.display:
            done, skip = _display_block(done + "".join(out), piece.tex, text[piece.end :])
            out = []
        else:
            out.append(_md_escape(latex_to_unicode(piece.tex).replace("\n", " ")))
    return done + "".join(out)


def markdown_to_terminal(md: str) -> str:
    """Replace `$...$` and `$$...$$` maths in markdown with Unicode, leaving code untouched.

    Inline HTML follows `htmlrule` (allowed tags as what they mean, the rest as text).

    Control characters (a terminal escape written as `\\e` in YAML) are shown escaped.
    """
    converted = (text if code else _convert_prose(text) for code, text in split_code_fences(md))
    return terminal_safe("".join(converted), multiline=True)

"""The symbol tables of the maths renderer: TeX command names to Unicode, by role."""

from __future__ import annotations


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
# No `/`: its only raised form (ᐟ, a Canadian syllabic) is missing from most terminal fonts,
# so `10000^{2i/d}` is `10000^(2i/d)`, as the worked steps of the same formula read.
SUPERSCRIPTS = _chars(
    "0123456789+-−=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWαβγδεθιφχ′'⊤∘,",
    "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵅᵝᵞᵟᵋᶿᶥᵠᵡ′′ᵀ°,",
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
COMPOUND = frozenset("+-−±∓=≠<>≤≥≈∼≃≅≡∝→←⇒⇐⇔↦,;/·×÷⊙⊗⊕∈∉⊂⊆∪∩∧∨")

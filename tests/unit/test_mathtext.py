"""LaTeX -> Unicode for the terminal, markdown maths, and MathJax for Anki."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from textual.app import App, ComposeResult
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from studykit.text.mathjax import latex_to_mathjax
from studykit.text.mathscan import Maths, closing, split_code_fences, split_maths
from studykit.text.prose import markdown_to_terminal
from studykit.text.unicodemath import latex_to_unicode

# The seed note's formulas (seed/rnn-limitations-notes.txt), extraction damage repaired as
# CONTENT-AUDIT.md says (`W_{x h}` -> `W_{xh}`, `σ_{m a x}` -> `\sigma_{\max}`, `e x p` ->
# `\exp`, `lo g_2` -> `\log_2`, `1 0^{-7}` -> `10^{-7}`, `16, 384` -> `16{,}384`, ...).
SEED = [
    (
        r"h_{t} = \tanh(W_{hh} h_{t-1} + W_{xh} x_{t} + b_{h})",
        "hₜ = tanh(Wₕₕ hₜ₋₁ + Wₓₕ xₜ + bₕ)",
    ),
    (r"h_{1}, h_{2}, \dots, h_{t-1}", "h₁, h₂, …, hₜ₋₁"),
    (r"32 \times 512 = 16{,}384", "32 × 512 = 16,384"),
    (
        r"\frac{\partial L}{\partial h_{1}} = \frac{\partial L}{\partial h_{T}} \cdot "
        r"\frac{\partial h_{T}}{\partial h_{T-1}} \cdots \frac{\partial h_{2}}{\partial h_{1}}",
        "∂L/∂h[1] = ∂L/∂h[T] · ∂h[T]/∂h[T-1] ⋯ ∂h[2]/∂h[1]",
    ),
    (r"\frac{\partial h_t}{\partial h_{t-1}}", "∂hₜ/∂hₜ₋₁"),
    (
        r"\frac{\partial h_t}{\partial h_{t-1}} = "
        r"\operatorname{diag}(\tanh'(W_{hh} h_{t-1} + W_{xh} x_t + b_h)) \cdot W_{hh}",
        "∂hₜ/∂hₜ₋₁ = diag(tanh′(Wₕₕ hₜ₋₁ + Wₓₕ xₜ + bₕ)) · Wₕₕ",
    ),
    (r"\tanh'(z) = 1 - \tanh^{2}(z) \in (0, 1]", "tanh′(z) = 1 - tanh²(z) ∈ (0, 1]"),
    (r"\tanh^{'}(z) < 1", "tanh′(z) < 1"),
    (
        r"\left\|\frac{\partial h_t}{\partial h_{t-1}}\right\| \le "
        r"\sigma_{\max}(W_{hh}) \cdot \max \tanh'",
        "‖∂hₜ/∂hₜ₋₁‖ ≤ σₘₐₓ(Wₕₕ) · max tanh′",
    ),
    (r"(\sigma_{\max}(W_{hh}) \cdot \gamma)^{T-1}", "(σₘₐₓ(Wₕₕ) · γ)ᵀ⁻¹"),
    (r"\frac{\partial L}{\partial h_{300}}", "∂L/∂h₃₀₀"),
    (r"(0.95)^{295} \approx 2.68 \times 10^{-7}", "(0.95)²⁹⁵ ≈ 2.68 × 10⁻⁷"),
    (r"c_t = f_t \odot c_{t-1} + i_t \odot \tilde{c}_t", "cₜ = fₜ ⊙ cₜ₋₁ + iₜ ⊙ c̃ₜ"),
    (r"\frac{\partial c_t}{\partial c_{t-1}} = \operatorname{diag}(f_t)", "∂cₜ/∂cₜ₋₁ = diag(fₜ)"),
    (r"x_{1}, \dots, x_{T}", "x[1], …, x[T]"),
    (r"h_{1} \to h_{2} \to \dots \to h_{50}", "h₁ → h₂ → … → h₅₀"),
    (r"h_{50} \in \mathbb{R}^{512}", "h₅₀ ∈ ℝ⁵¹²"),
    (r"h_{T} \in R^{d}", "h[T] ∈ Rᵈ"),
    (r"h_t = f(h_{t-1}, x_t)", "hₜ = f(hₜ₋₁, xₜ)"),
    (r"T \log_2 V", "T log₂ V"),
    (
        r"\alpha_{ij} = \frac{\exp(e_{ij})}{\sum_{k=1}^{T} \exp(e_{ik})}",
        "αᵢⱼ = exp(eᵢⱼ)/∑ₖ₌₁ᵀ exp(eᵢₖ)",
    ),
    (r"e_{ij} = \mathrm{score}(h_i^{dec}, h_j^{enc})", "eᵢⱼ = score(hᵢᵈᵉᶜ, hⱼᵉⁿᶜ)"),
    (r"c_{i} = \sum_{j=1}^{T} \alpha_{ij} h_{j}^{enc}", "cᵢ = ∑ⱼ₌₁ᵀ αᵢⱼ hⱼᵉⁿᶜ"),
    (r"|i-j| = k", "|i-j| = k"),
    (r"\gamma^{k} = 0.01", "γᵏ = 0.01"),
    (r"\gamma < 1", "γ < 1"),
    (r"k = \frac{\log(0.01)}{\log(\gamma)}", "k = log(0.01)/log(γ)"),
    (
        r"k^* = \left\lceil \frac{\log(0.01)}{\log(\gamma)} \right\rceil",
        "k* = ⌈log(0.01)/log(γ)⌉",
    ),
    (r"0.95^{8} \approx 0.66", "0.95⁸ ≈ 0.66"),
    (
        r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V",
        "Attention(Q, K, V) = softmax(QKᵀ/√dₖ)V",
    ),
    (
        r"\alpha_{24,2} = \mathrm{softmax}_j(q_{24} \cdot k_j / \sqrt{d_k})",
        "α₂₄,₂ = softmaxⱼ(q₂₄ · kⱼ / √dₖ)",
    ),
    (r"\frac{\partial L}{\partial V_{2}}", "∂L/∂V₂"),
    (r"PE_{(pos,2i)} = \sin(pos/10000^{2i/d})", "PE₍ₚₒₛ,₂ᵢ₎ = sin(pos/10000^(2i/d))"),
    (r"PE_{(pos,2i+1)} = \cos(pos/10000^{2i/d})", "PE₍ₚₒₛ,₂ᵢ₊₁₎ = cos(pos/10000^(2i/d))"),
    (r"O(T \cdot d)", "O(T · d)"),
    (r"O(T^2)", "O(T²)"),
    (r"O(\sqrt{T})", "O(√T)"),
    (r"\mathcal{O}(T^2)", "O(T²)"),
]


@pytest.mark.parametrize(("tex", "expected"), SEED)
def test_seed_formulas(tex: str, expected: str) -> None:
    assert latex_to_unicode(tex) == expected


@pytest.mark.parametrize(
    ("tex", "expected"),
    [
        # Greek, operators, relations and arrows
        (r"\alpha \beta \Gamma \Omega \varepsilon", "α β Γ Ω ε"),
        (r"\alpha\beta", "αβ"),
        (r"\{ x \}", "{x}"),
        (r"x_\theta L", "x[θ] L"),
        (r"a \to b \rightarrow c \Rightarrow d", "a → b → c ⇒ d"),
        (r"a \leq b \le c \geq d \neq e \approx f \sim g", "a ≤ b ≤ c ≥ d ≠ e ≈ f ∼ g"),
        (r"a \ll b \gg c, x \in S, \forall x, a \mid b", "a ≪ b ≫ c, x ∈ S, ∀x, a | b"),
        (r"a \cdot b \times c", "a · b × c"),
        (r"a\cdot b", "a · b"),
        (r"\partial \nabla \infty", "∂∇∞"),
        (r"\sum_{i} x_i \prod_i y_i \int_0^1 f(x)\,dx", "∑ᵢ xᵢ ∏ᵢ yᵢ ∫₀¹ f(x) dx"),
        (r"\sum x", "∑ x"),
        (r"\dots \ldots \cdots", "… … ⋯"),
        (r"\|x\| + |y|", "‖x‖ + |y|"),
        (r"\lceil x \rceil + \lfloor y \rfloor", "⌈x⌉ + ⌊y⌋"),
        (r"\langle q, k \rangle", "⟨q, k⟩"),
        # fonts and text keep their contents
        (r"\text{if } x > 0", "if x > 0"),
        (r"\mathrm{d}x + \mathbf{W} + \boldsymbol{\alpha}", "dx + W + α"),
        (r"\mathbb{R}^{d} \mathbb{N} \mathbb{Z}", "ℝᵈ ℕ ℤ"),
        (r"\mathcal{L} = \mathcal{O}(n)", "ℒ = O(n)"),
        (r"\operatorname{diag} x", "diag x"),
        # named operators take a space before a letter, not before ( or a script
        (r"\log x + \exp(x) + \log_2 x + \max_i x_i", "log x + exp(x) + log₂ x + maxᵢ xᵢ"),
        # spacing, thousands, percent
        (r"a \, b \; c \: d \! e", "a b c d e"),
        (r"a \quad b", "a \u2003 b"),
        (r"16{,}384", "16,384"),
        (r"50\%", "50%"),
        # fractions: compound parts get brackets
        (r"\frac{a+b}{c+d}", "(a+b)/(c+d)"),
        (r"\frac{-1}{2}", "-1/2"),
        (r"\frac{1}{-x}", "1/(-x)"),
        (r"\dfrac{a}{b c}", "a/b c"),
        # roots
        (r"\sqrt{x}", "√x"),
        (r"\sqrt{x+1}", "√(x+1)"),
        (r"\sqrt{2\pi}", "√(2π)"),
        (r"\sqrt[3]{x}", "∛x"),
        (r"\sqrt[4]{x}", "∜x"),
        (r"\sqrt[n]{x}", "ⁿ√x"),
        (r"\sqrt{(a+b)}", "√(a+b)"),
        # scripts
        (r"W^{T} W^\top", "Wᵀ Wᵀ"),
        (r"A^{-1}", "A⁻¹"),
        (r"90^\circ", "90°"),
        (r"f'(x) + g^{\prime}", "f′(x) + g′"),
        (r"x_a^b", "xₐᵇ"),
        (r"h _{1}", "h₁"),
        (r"10^{2^{k}}", "10^(2ᵏ)"),
        # accents combine with their letter
        (r"\hat{y} + \bar{x} + \vec{v} + \tilde{c}", "ŷ + x̄ + v⃗ + c̃"),
        (r"\hat{y}_t", "ŷₜ"),
        # structures
        (r"\binom{n}{k}", "(n choose k)"),
        (r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}", "(a b; c d)"),
        (r"\begin{aligned} a &= b \\ c &= d \end{aligned}", "a = b\nc = d"),
        (r"x \not= y, a \not\in B", "x ≠ y, a ∉ B"),
        (r"\left. \frac{df}{dx} \right|_{x=0}", "df/dx|ₓ₌₀"),
        (r"\overset{def}{=}", "=ᵈᵉᶠ"),
    ],
)
def test_symbols_and_structures(tex: str, expected: str) -> None:
    assert latex_to_unicode(tex) == expected


@pytest.mark.parametrize(
    ("tex", "expected"),
    [
        (r"x_{q}", "x[q]"),  # no subscript q in Unicode: an index in brackets
        (r"x_{qk}", "x[qk]"),
        (r"x_{iq}", "x[iq]"),  # all or nothing: never a half-converted script
        (r"x^{q}", "x^(q)"),
        (r"e^{i\pi}", "e^(iπ)"),
        (r"x_{(q)}", "x[q]"),  # already bracketed
        (r"x_{i \in S}", "x[i ∈ S]"),
        (r"W_{hh}", "Wₕₕ"),
        (r"x^{*}", "x*"),  # a mark on its letter
        (r"A^\dagger", "A†"),
        # one notation per symbol in a formula: all of x's subscripts, or none, in brackets
        (r"x_1 + x_T + y_1", "x[1] + x[T] + y₁"),
        (r"h_T^{enc}", "h[T]ᵉⁿᶜ"),
        # names, not indices: a word subscript stays a word, joined by `_`
        (r"d_{model}", "d_model"),
        (r"d_{model} x", "d_model x"),
        (r"\mathrm{seq}_{len}", "seq_len"),
        (r"\sigma_{\max} + h_{enc}", "σₘₐₓ + h_enc"),
        (r"\left\| \frac{a}{b} \right\|", "‖a/b‖"),
    ],
)
def test_script_fallbacks(tex: str, expected: str) -> None:
    assert latex_to_unicode(tex) == expected


@pytest.mark.parametrize(
    ("tex", "expected"),
    [
        (r"\foo x", "foo x"),
        (r"\argmax_\theta L", "argmax[θ] L"),
        (r"\mathscr{L}", "mathscr L"),
        (r"\cancel{x} + 1", "cancel x + 1"),
    ],
)
def test_unknown_commands_keep_their_name(tex: str, expected: str) -> None:
    assert latex_to_unicode(tex) == expected


@pytest.mark.parametrize(
    ("tex", "expected"),
    [
        (r"\frac{a}{b", "a/b"),
        (r"{{x}", "x"),
        (r"x}} + y", "x + y"),
        (r"\sqrt[3{x}", "³ˣ√"),
        (r"a_", "a"),
        (r"^", ""),
        ("\\", "\\"),
        (r"\left(x", "(x"),
        (r"\begin{pmatrix} a", "(a)"),
        (r"\end{pmatrix} a", "a"),
        (r"\frac", ""),
        ("", ""),
        ("   ", ""),
    ],
)
def test_malformed_input_gives_best_effort(tex: str, expected: str) -> None:
    assert latex_to_unicode(tex) == expected


@pytest.mark.parametrize(
    "tex",
    [
        "{" * 5000 + "x" + "}" * 5000,
        r"\sqrt" * 3000 + "x",
        r"\frac{" * 3000 + "x",
        r"\text{" * 3000 + "x",
        r"\hat" * 3000 + "x",
        "x^" * 3000 + "2",
    ],
)
def test_deep_nesting_is_flattened_not_recursed(tex: str) -> None:
    result = latex_to_unicode(tex)
    assert "x" in result
    assert "{" not in result  # rendered, not the raw-text fallback


TEX_PIECES = [
    "{", "}", "[", "]", "^", "_", "x", "1", " ", "\n", "'", "&", "$", "\\", "\\\\", "\\frac",
    "\\sqrt", "\\left", "\\right", "\\left.", "\\begin{pmatrix}", "\\end{pmatrix}",
    "\\begin{", "\\end", "\\text{", "\\mathbb", "\\hat", "\\not", "\\operatorname*",
    "\\alpha", "\\sum", "\\log", "\\unknown", "\\,", "\\|", "\\overset", "\\binom", "(", ")",
]  # fmt: skip


@given(st.one_of(st.text(), st.lists(st.sampled_from(TEX_PIECES)).map("".join)))
def test_arbitrary_text_never_raises(tex: str) -> None:
    result = latex_to_unicode(tex)
    assert isinstance(result, str)
    assert result == result.strip(" ")


# markdown_to_terminal -------------------------------------------------------------------


def test_inline_maths_is_converted_and_escaped() -> None:
    md = r"Attention is $\mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V$ here."
    assert markdown_to_terminal(md) == r"Attention is softmax\(QKᵀ\/√dₖ\)V here."


def test_markdown_characters_in_maths_are_escaped() -> None:
    assert markdown_to_terminal("$a*b*c$, $d_{model}$ and $x_{q} [y]$") == (
        r"a\*b\*c, d\_model and x\[q\] \[y\]"
    )


def test_display_maths_becomes_its_own_quoted_paragraph() -> None:
    md = "Hidden state:\n$$\nh_{t} = \\tanh(W_{hh} h_{t-1})\n$$\nSo it goes.\n"
    assert markdown_to_terminal(md) == (
        "Hidden state:\n\n> hₜ \\= tanh\\(Wₕₕ hₜ₋₁\\)\n\nSo it goes.\n"
    )


def test_display_maths_inside_a_line_splits_the_paragraph() -> None:
    md = r"Before $$\gamma^{k} = 0.01$$, after."
    assert markdown_to_terminal(md) == "Before\n\n> γᵏ \\= 0\\.01\\,\n\nafter."


def test_multiline_display_maths_uses_hard_breaks() -> None:
    md = "$$\na = b \\\\\nc = d\n$$"
    assert markdown_to_terminal(md) == "> a \\= b\\\n> c \\= d\n\n"


def test_display_maths_in_a_list_item_stays_in_the_item() -> None:
    md = "- first\n  $$x^2$$\n- second\n"
    assert markdown_to_terminal(md) == "- first\n\n  > x²\n\n- second\n"


def test_display_maths_in_a_quote_stays_in_the_quote() -> None:
    md = "> Note:\n> $$\n> a > b\n> $$\n> done\n"
    assert markdown_to_terminal(md) == "> Note:\n>\n> > a \\> b\n>\n> done\n"


def test_code_is_left_untouched() -> None:
    md = (
        "Inline `$x^2$` and ``a `$y$` b`` stay.\n\n"
        "```python\nprice = '$x^2$'\n$$\\alpha$$\n```\n\n"
        "~~~\n$\\beta$\n~~~\n"
        "Then $\\gamma$.\n"
    )
    expected = md.replace("$\\gamma$", "γ")
    assert markdown_to_terminal(md) == expected


def test_unclosed_fence_keeps_the_rest_as_code() -> None:
    md = "Text $x$\n````\n$y$\n```\n$z$\n"
    assert markdown_to_terminal(md) == "Text x\n````\n$y$\n```\n$z$\n"


def test_dollars_that_are_not_maths_stay() -> None:
    md = r"It costs $5 and $10, a literal \$x\$ stays, and so does a lone $."
    assert markdown_to_terminal(md) == md


def test_inline_maths_does_not_cross_paragraphs() -> None:
    md = "Open $x\n\nclosed later$ here"
    assert markdown_to_terminal(md) == md


@given(st.text())
def test_markdown_to_terminal_never_raises(md: str) -> None:
    assert isinstance(markdown_to_terminal(md), str)


@given(
    st.text(
        alphabet=st.characters(
            blacklist_characters="$`~\\<", blacklist_categories=("Cc", "Cf", "Cs", "Zl", "Zp")
        )
    )
)
def test_text_without_maths_or_code_is_unchanged(md: str) -> None:
    """Controls and lone surrogates aside (shown escaped: test_terminal_escapes), prose passes
    through.

    (`<` follows the HTML rule: tested below.)
    """
    assert markdown_to_terminal(md) == md


def test_a_lone_surrogate_is_shown_escaped() -> None:
    """No terminal encoding can write one (a file name that is not UTF-8 gives them)."""
    assert markdown_to_terminal("bad\udcffname $x$") == "bad\\udcffname x"


# The shared maths scanner (terminal and Anki) -------------------------------------------


def test_split_maths_finds_inline_and_display_maths_outside_code_and_escapes() -> None:
    prose = r"a $x$ \$y$ `$z$` $$w$$. $5 and $10"
    assert split_maths(prose) == [
        "a ",
        Maths("x", False, 5),
        r" \$y$ `$z$` ",
        Maths("w", True, 22),
        ". $5 and $10",
    ]


def test_split_code_fences_keeps_fenced_code_apart() -> None:
    md = "a $x$\n```\n$y$\n```\nb\n"
    assert split_code_fences(md) == [(False, "a $x$\n"), (True, "```\n$y$\n```\n"), (False, "b\n")]


@given(
    st.lists(st.sampled_from(["$", "$$", "a", "x^2", " ", "\\", "`", "\n", ">", "5"])).map("".join)
)
def test_split_maths_pieces_put_back_together_give_the_prose(prose: str) -> None:
    rebuilt = ""
    for piece in split_maths(prose):
        if isinstance(piece, str):
            rebuilt += piece
        else:
            mark = "$$" if piece.display else "$"
            rebuilt += mark + piece.tex + mark
            assert prose[: piece.end] == rebuilt
    assert rebuilt == prose


def _walk_closing(text: str, start: int, display: bool) -> int:
    """The closing rule spelled out one character at a time, as a reference."""
    k = start
    while k < len(text):
        if text[k] == "\\":
            k += 2
            continue
        if display and text.startswith("$$", k):
            return k
        if not display:
            if text[k] == "`" or re.match(r"\n[ \t>]*\n", text[k:]):
                return -1
            after_ok = k + 1 >= len(text) or not (text[k + 1].isdigit() or text[k + 1] == "$")
            if text[k] == "$" and text[k - 1] not in " \t\n$" and after_ok:
                return k
        k += 1
    return -1


@given(st.text(alphabet="a $\\`\n>5{}", max_size=30), st.booleans())
def test_maths_closes_where_a_character_walk_says(text: str, display: bool) -> None:
    opened = ("$$" if display else "$") + text  # as when a `$` has just opened maths
    start = len(opened) - len(text)
    assert closing(opened, start, display) == _walk_closing(opened, start, display)


# latex_to_mathjax -----------------------------------------------------------------------


def test_mathjax_inline_and_display_delimiters() -> None:
    assert latex_to_mathjax(r"x^2", display=False) == r"\(x^2\)"
    assert latex_to_mathjax(r" x^2 ", display=True) == r"\[x^2\]"


def test_mathjax_escapes_html() -> None:
    assert latex_to_mathjax(r"a < b & c > d", display=False) == r"\(a &lt; b &amp; c &gt; d\)"


def test_mathjax_breaks_double_closing_braces_for_anki() -> None:
    out = latex_to_mathjax(r"\frac{1}{\sqrt{d_{k}}}", display=False)
    assert out == r"\(\frac{1}{\sqrt{d_{k} } }\)"
    assert "}}" not in out


# The terminal really shows it -----------------------------------------------------------


class _MarkdownApp(App[None]):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield Markdown(self.text)


async def test_textual_markdown_shows_the_converted_maths() -> None:
    note = (
        r"Attention is $\mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V$, "
        r"not $a*b$."
        "\n\n$$\n\\alpha_{ij} = \\frac{\\exp(e_{ij})}{\\sum_{k=1}^{T} \\exp(e_{ik})}\n$$\n"
    )
    app = _MarkdownApp(markdown_to_terminal(note))
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.pause()
        blocks = list(app.query_one(Markdown).query(MarkdownBlock))
        shown = "\n".join(
            "".join(segment.text for segment in block.render_line(y))
            for block in blocks
            for y in range(block.size.height)
        )
    assert "Attention is softmax(QKᵀ/√dₖ)V, not a*b." in shown
    assert "αᵢⱼ = exp(eᵢⱼ)/∑ₖ₌₁ᵀ exp(eᵢₖ)" in shown
    assert "\\" not in shown
    assert any(type(block).__name__ == "MarkdownBlockQuote" for block in blocks)


@pytest.mark.parametrize(
    ("md", "terminal"),
    [
        (
            "H<sub>2</sub>O, x<sup>2</sup>, y<sub>max</sub>, z<sub>big</sub>",
            "H₂O, x², yₘₐₓ, z_(big)",
        ),
        ("a<br>b<BR/>c", "a  \nb  \nc"),
        ("<b>bold</b>, <i>it</i>, <u>under</u>", "**bold**, *it*, under"),
        ('<span style="color:red">x</span>', '\\<span style="color:red">x\\</span>'),
        ("x < y and `<b>code</b>`", "x \\< y and `<b>code</b>`"),
        ("wrapped\nprose", "wrapped\nprose"),  # markdown joins it, in Anki too
        ("two spaces  \nbreak", "two spaces  \nbreak"),
        ("ends \\\nin a break", "ends \\\nin a break"),
    ],
)
def test_inline_html_and_line_breaks_follow_the_export_rule(md: str, terminal: str) -> None:
    assert markdown_to_terminal(md) == terminal

"""Card fields as Anki HTML: markdown rendered, text escaped, maths as MathJax, clozes kept."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from studykit.export.html import inline_html, markdown_html, one_paragraph, render_markdown
from studykit.text.htmlrule import balanced
from studykit.text.mathscan import split_maths


def test_one_paragraph_has_no_p_and_markdown_renders() -> None:
    assert markdown_html("a **bold** and *it*") == "a <strong>bold</strong> and <em>it</em>"


def test_several_paragraphs_keep_p() -> None:
    assert markdown_html("one\n\ntwo") == "<p>one</p>\n<p>two</p>"


def test_line_breaks_and_lists_in_a_side_are_kept() -> None:
    # Markdown as written (a single newline wraps); card sides come with each line ended by a
    # hard break (`citations.card_side`, tested in test_linebreaks.py).
    assert markdown_html("wrapped\nprose") == "wrapped\nprose"
    assert markdown_html("backslash\\\nbreak") == "backslash<br />\nbreak"
    assert markdown_html("two spaces  \nbreak") == "two spaces<br />\nbreak"
    assert markdown_html("tag<br>break") == "tag<br>break"
    out = markdown_html("Steps:\n- first\n- second $x_1$\n\n1. one\n2. two\n\nend\\\nhere")
    assert "<p>Steps:</p>\n<ul>\n<li>first</li>\n<li>second \\(x_1\\)</li>\n</ul>" in out
    assert "<ol>\n<li>one</li>\n<li>two</li>\n</ol>" in out
    assert "<p>end<br />\nhere</p>" in out


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("H<sub>2</sub>O, x<SUP>2</SUP>", "H<sub>2</sub>O, x<sup>2</sup>"),
        ("a<br>b<br/>c<br />d", "a<br>b<br>c<br>d"),
        (
            "<b>bold</b> and <i>it</i> and <kbd>Ctrl</kbd>",
            "<b>bold</b> and <i>it</i> and <kbd>Ctrl</kbd>",
        ),
        ("<b>left open", "<b>left open</b>"),  # closed within its own field
        ("stray</b> closer", "stray&lt;/b&gt; closer"),
        ("<b><i>x</b></i>", "<b><i>x</i></b>&lt;/i&gt;"),
        ('<b class="x">no attributes</b>', '&lt;b class="x"&gt;no attributes&lt;/b&gt;'),
        ('<span style="color:red">x</span>', '&lt;span style="color:red"&gt;x&lt;/span&gt;'),
        ("<div>\nblock\n</div>", "&lt;div&gt;\nblock\n&lt;/div&gt;"),
        ("<!-- note -->", "&lt;!-- note --&gt;"),
    ],
)
def test_one_html_rule_a_few_bare_tags_pass_the_rest_is_text(text: str, html: str) -> None:
    assert markdown_html(text) == html
    assert inline_html(text.replace("\n", " ")) == html.replace("\n", " ")


_MARKDOWN_TAGS = {"p", "ul", "ol", "li", "code", "pre", "em", "strong", "a", "img", "hr"}
_MARKDOWN_TAGS |= {"blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead"}
_MARKDOWN_TAGS |= {"tbody", "tr", "th", "td"}


@given(st.text(alphabet="<>/= \"'bisupancrtdylo:\n*_x", max_size=60))
def test_no_tag_from_content_outside_the_rule(text: str) -> None:
    import re

    from studykit.text.htmlrule import ALLOWED_TAGS

    out = markdown_html(text, cloze=True)
    for match in re.finditer(r"<(/?)([A-Za-z][A-Za-z0-9]*)([^>]*)>", out):
        name, rest = match.group(2), match.group(3)
        assert name in ALLOWED_TAGS | _MARKDOWN_TAGS, (text, out)
        if name in ALLOWED_TAGS:
            assert rest.strip() in ("", "/"), (text, out)  # never an attribute
    for name in ALLOWED_TAGS - {"br"}:
        assert out.count(f"<{name}>") == out.count(f"</{name}>"), (text, out)


def test_text_is_escaped_and_raw_html_is_not_passed_through() -> None:
    out = markdown_html("a < b & c > d <script>alert(1)</script>")
    assert "<script>" not in out
    assert "a &lt; b &amp; c &gt; d &lt;script&gt;" in out


def test_inline_and_display_maths_become_mathjax_without_dollars() -> None:
    out = markdown_html("So $h_t = f(h_{t-1})$ and\n\n$$\\sum_i x_i$$")
    assert r"\(h_t = f(h_{t-1})\)" in out
    assert r"\[\sum_i x_i\]" in out
    assert "$" not in out


def test_markdown_does_not_touch_maths() -> None:
    # `_` and `*` inside maths would otherwise become emphasis; `\\` would lose a backslash.
    out = markdown_html(r"$a_1 * b_2 * c_3 \\ d$ and _real_")
    assert r"\(a_1 * b_2 * c_3 \\ d\)" in out
    assert "<em>real</em>" in out


def test_lt_gt_amp_and_double_braces_survive_in_maths() -> None:
    out = markdown_html(r"$a < b > c \& d$, $$\frac{1}{\sqrt{x}}$$")
    assert r"\(a &lt; b &gt; c \&amp; d\)" in out
    assert r"\[\frac{1}{\sqrt{x} }\]" in out
    assert "}}" not in out


def test_code_keeps_dollars_and_double_colons() -> None:
    out = markdown_html("`cost $5` then\n\n```\nstd::vector<int> v; // $x$\n```\n")
    assert "<code>cost $5</code>" in out
    assert "std::vector&lt;int&gt; v; // $x$" in out


def test_prices_are_not_maths() -> None:
    assert markdown_html("It costs $5 and $10.") == "It costs $5 and $10."


def test_cloze_outside_and_inside_maths() -> None:
    out = markdown_html(r"{{c1::Self-attention}} gives $h = {{c2::\tanh(W_{hh} h)}}$", cloze=True)
    assert out == r"{{c1::Self-attention}} gives \(h = {{c2::\tanh(W_{hh} h)}}\)"


def test_cloze_ending_in_a_brace_closes_at_the_right_place() -> None:
    out = markdown_html(r"$k = {{c1::\frac{a}{b}}}$", cloze=True)
    assert out == r"\(k = {{c1::\frac{a}{b} }}\)"


def test_cloze_hint_and_markdown_inside() -> None:
    out = markdown_html("{{c1::**bold** answer::a hint}}", cloze=True)
    assert out == "{{c1::<strong>bold</strong> answer::a hint}}"


def test_cloze_syntax_is_plain_text_outside_cloze_fields() -> None:
    assert markdown_html("{{c1::x}}") == "{{c1::x}}"


def test_inline_title_is_one_line() -> None:
    assert (
        inline_html("Limitation 2:\n  the $\\gamma$ factor")
        == r"Limitation 2: the \(\gamma\) factor"
    )


@pytest.mark.parametrize("text", ["", "   ", "\n\n"])
def test_empty_stays_empty(text: str) -> None:
    assert markdown_html(text) == ""


@given(st.text(max_size=40), st.text(max_size=40))
def test_raw_html_in_any_text_stays_text(before: str, after: str) -> None:
    out = markdown_html(f"{before}<b onclick=x>{after}", cloze=True)
    assert "<b onclick" not in out
    assert not any(0xE000 <= ord(ch) <= 0xE011 for ch in out)  # no sentinel leaks


@given(st.text(alphabet="ab Z09.,:;?()'\"=-+/%", max_size=40))
def test_plain_text_shortcut_matches_markdown(text: str) -> None:
    from studykit.export.html import _markdown

    expected = _markdown().render(text).strip()
    if expected.startswith("<p>") and expected.count("<p>") == 1:
        expected = expected[3:-4]
    assert markdown_html(text) == expected


@settings(max_examples=300, deadline=None)
@example("[](')")  # cmark writes the address `&#x27;`, markdown-it `'`
@given(
    st.text(alphabet="ab *_`#->[]()!\\&;:/.\n12 \t=~+\"'jvsciptmh0xé\ue010\u00a0{}$%", max_size=60)
)
def test_cmark_and_markdown_it_agree_wherever_cmark_is_used(text: str) -> None:
    from studykit.export import html

    fast = html._cmark()
    if fast is None:
        pytest.skip("cmarkgfm is not installed; markdown-it renders everything")
    if html.cmark_renders(text):
        assert fast(text) == html._markdown().render(text)


@pytest.mark.parametrize(
    ("text", "cmark"),
    [
        ("a  \nb", True),  # a card side's line break: cmark's fast path takes it
        ("**a  \nb**  \nc", True),
        ("- a  \n  b", False),  # a space starting a line
        ("a\\  \nb", False),  # markdown-it-py reads no break after a `\`; cmark does
        ("a   \nb", False),
        ("a \nb", False),
    ],
)
def test_two_space_line_breaks_render_alike_wherever_cmark_takes_them(
    text: str, cmark: bool
) -> None:
    from studykit.export import html

    fast = html._cmark()
    if fast is None:
        pytest.skip("cmarkgfm is not installed; markdown-it renders everything")
    assert html.cmark_renders(text) is cmark
    if cmark:
        assert fast(text) == html._markdown().render(text)
        assert "<br />" in fast(text)


_ONE_PARAGRAPH = re.compile(r"<p>((?:(?!<p>).)*)</p>", re.DOTALL)


@given(st.text(alphabet="<p/>a \n", max_size=30).map(lambda t: f"<p>{t}</p>") | st.text("<p/>a"))
def test_one_paragraph_agrees_with_the_pattern_it_replaces(rendered: str) -> None:
    found = _ONE_PARAGRAPH.fullmatch(rendered)
    assert one_paragraph(rendered) == (found.group(1) if found is not None else None)


@given(st.text(alphabet="ab \\`{}_*\n\ue010", max_size=40))
def test_prose_without_a_dollar_has_no_maths(prose: str) -> None:
    # `_lift_maths` returns such prose as it is, without scanning it.
    assert "".join(str(piece) for piece in split_maths(prose)) == prose
    assert all(isinstance(piece, str) for piece in split_maths(prose))


@settings(max_examples=300)
@given(st.text(alphabet="ab *_`\\>#-1.\n|[]()&", max_size=60))
def test_markdown_without_raw_html_renders_balanced_tags(text: str) -> None:
    # `markdown_html` skips `balanced` where the source has no `<`.
    rendered = render_markdown(text)
    assert balanced(rendered) == rendered


def test_cmark_is_refused_exactly_the_characters_the_renderers_trim_differently() -> None:
    """The spelled-out class holds every whitespace character but space and newline, and `<|`."""
    from studykit.export import html

    refused = {chr(code) for code in range(0x110000) if not html.cmark_renders(f"a{chr(code)}b")}
    wanted = {chr(code) for code in range(0x110000) if chr(code).isspace()} - {" ", "\n"}
    assert refused == wanted | {"<", "|"}

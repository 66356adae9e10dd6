"""Card markdown with LaTeX -> the HTML of an Anki field, maths as MathJax `\\(…\\)`/`\\[…\\]`.

Maths is lifted out before markdown sees it (so `_`, `*` and `\\` inside it stay TeX), then
put back through `latex_to_mathjax`, which escapes `<`, `>`, `&` and splits `}}`. Cloze
deletions `{{cN::text::hint}}` are found by brace matching (so `{{c1::\\frac{a}{b}}}` ends
at the right `}}`), turned into private-use sentinels for the markdown pass, and written back
in Anki's syntax.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from studykit.text.htmlrule import balanced, sanitized
from studykit.text.mathjax import latex_to_mathjax
from studykit.text.mathscan import replace_tex, split_code_fences

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

# Private-use characters: markdown passes them through untouched and no content uses them.
_OPEN, _OPEN_END, _HINT, _CLOSE = "\ue000", "\ue001", "\ue002", "\ue003"
_MATH, _MATH_END = "\ue010", "\ue011"
_SENTINELS = re.compile("[\ue000-\ue003\ue010\ue011]")
_CLOZE_OPEN = re.compile(r"\{\{c(\d+)::")
_MATH_SLOT = re.compile(f"{_MATH}(\\d+){_MATH_END}")
_CLOZE_SLOT = re.compile(f"({{?)({_OPEN}(\\d+){_OPEN_END}|{_HINT}|{_CLOSE})")
# Text that markdown would give back unchanged (bar escaping): no markup characters, one line,
# and no list or heading marker at its start. Such fields skip the markdown parser.
_PLAIN = re.compile(r"(?![-+*#>\d]|=+$)[^\\`*_\[\]<>#!&|~\n]*")
# What only markdown-it renders: raw HTML or autolinks and tables (only it applies the HTML
# rule), and where the two lay out HTML differently: whitespace other than space and
# newline (every such character, spelled out: a class is much faster to search than
# `[^\S \n]`), spaces at a line's end other than a hard break's two after text (and none
# after a `\`, which markdown-it-py reads as no break), a space starting a line, a line
# ending in `>` (an empty quote). Only the first part can occur in a line without `>`.
_OTHER_WHITESPACE = (
    "\t\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
)
_NOT_FOR_CMARK_CHAR = re.compile(f"[<|{_OTHER_WHITESPACE}]")
_NOT_FOR_CMARK_LINES = re.compile(
    r"(?<![ ])[ ]\n|(?<=[ ]{2})[ ]\n|^[ ]{2}\n|\\[ ]+\n|\n[ ]|>[ ]*$", re.MULTILINE
)


def cmark_renders(source: str) -> bool:
    """Whether cmark gives `source` the HTML markdown-it-py would (see `render_markdown`)."""
    if _NOT_FOR_CMARK_CHAR.search(source) is not None:
        return False
    if "'" in source and "]" in source:  # a `'` in a link's address: cmark writes `&#x27;`
        return False
    if "\n" not in source and ">" not in source:
        return True
    return _NOT_FOR_CMARK_LINES.search(source) is None


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    from markdown_it import MarkdownIt

    # Raw HTML goes through the one rule of `htmlrule`: a few bare tags pass, the rest shows
    # as text. A line ending in `\` or two spaces, or `<br>`, is a line break; card sides
    # come here with each of their lines ended so (`linebreaks.hard_breaks`).
    md = MarkdownIt("commonmark", {"html": True}).enable("table")

    def raw_html(renderer: Any, tokens: Any, index: int, options: Any, env: Any) -> str:
        return sanitized(tokens[index].content)

    md.add_render_rule("html_inline", raw_html)
    md.add_render_rule("html_block", raw_html)
    return md


@lru_cache(maxsize=1)
def _cmark() -> Callable[[str], str] | None:
    """cmark-gfm's C renderer with the same options, if installed (else None)."""
    try:
        import cmarkgfm
        from cmarkgfm.cmark import Options
    except ImportError:
        return None
    options = Options.CMARK_OPT_DEFAULT

    def render(text: str) -> str:
        return str(cmarkgfm.markdown_to_html(text, options))

    return render


def render_markdown(source: str) -> str:
    """CommonMark to HTML under our options and HTML rule.

    Where text has no `<` (no raw HTML, no autolink), no `|` (no table) and none of the
    whitespace the two trim differently, both renderers implement the same spec and give the
    same HTML (a test compares them); cmark's C is some 20× faster. Everything else goes
    through markdown-it-py, where the HTML rule is applied.
    """
    fast = _cmark()
    if fast is not None and cmark_renders(source):
        return fast(source)
    rendered: str = _markdown().render(source)
    return rendered


def _cloze_end(text: str, start: int) -> tuple[int, int]:
    """End of the deletion body that starts at `start` and of its `::hint` split (or -1)."""
    depth, k, hint = 0, start, -1
    while k < len(text):
        ch = text[k]
        if ch == "\\":
            k += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0 and text.startswith("}}", k):
                return k, hint
            depth = max(0, depth - 1)
        elif depth == 0 and hint < 0 and text.startswith("::", k):
            hint = k
            k += 2
            continue
        k += 1
    return -1, -1


def _mark_clozes(text: str) -> str:
    """Replace `{{cN::…::hint}}` with sentinels, nested deletions included."""
    out: list[str] = []
    i = 0
    while (match := _CLOZE_OPEN.search(text, i)) is not None:
        end, hint = _cloze_end(text, match.end())
        if end < 0:
            break
        body_end = hint if hint >= 0 else end
        out += [text[i : match.start()], _OPEN, match.group(1), _OPEN_END]
        out.append(_mark_clozes(text[match.end() : body_end]))
        if hint >= 0:
            out += [_HINT, _mark_clozes(text[hint + 2 : end])]
        out.append(_CLOSE)
        i = end + 2
    out.append(text[i:])
    return "".join(out)


def one_paragraph(rendered: str) -> str | None:
    """The content of `rendered` if it is one `<p>…</p>` paragraph, else None."""
    # A `<p>` inside could not overlap the closing `</p>`, so a substring test decides.
    if rendered.startswith("<p>") and rendered.endswith("</p>"):
        inner = rendered[3:-4]
        if "<p>" not in inner:
            return inner
    return None


def _lift_maths(prose: str, maths: list[str]) -> str:
    """Replace `$…$` and `$$…$$` in prose (not code spans) with numbered slots.

    `maths` gets each one's MathJax, which goes back in place of its slot after markdown.
    """
    if "$" not in prose:  # no maths can open (most prose without maths)
        return prose

    def slot(tex: str, display: bool) -> str:
        maths.append(latex_to_mathjax(tex, display))
        return f"{_MATH}{len(maths) - 1}{_MATH_END}"

    return replace_tex(prose, slot)


def _put_back(rendered: str, maths: list[str]) -> str:
    """`rendered` with each maths slot replaced by its MathJax."""
    if len(maths) > 4:
        return _MATH_SLOT.sub(lambda match: maths[int(match.group(1))], rendered)
    # A field holds a formula or two: a replace per slot beats a pattern with a callback.
    for number, mathjax in enumerate(maths):
        rendered = rendered.replace(f"{_MATH}{number}{_MATH_END}", mathjax, 1)
    return rendered


def _cloze_syntax(match: re.Match[str]) -> str:
    brace, token, number = match.group(1), match.group(2), match.group(3)
    if number is not None:  # a space keeps `{` + `{{c1::` from reading as `{{{`
        return f"{brace} {{{{c{number}::" if brace else f"{{{{c{number}::"
    return brace + ("::" if token == _HINT else "}}")


def markdown_html(text: str, *, cloze: bool = False) -> str:
    """Render a card field: markdown to HTML, maths to MathJax, clozes kept for Anki."""
    if not text.isascii():  # the sentinels are not ASCII: most fields cannot hold one
        text = _SENTINELS.sub("", text)
    if cloze:
        text = _mark_clozes(text)
    maths: list[str] = []
    runs = split_code_fences(text)
    if len(runs) == 1 and not runs[0][0]:  # no fenced code (most fields)
        source = _lift_maths(text, maths).strip()
    else:
        source = "".join(chunk if code else _lift_maths(chunk, maths) for code, chunk in runs)
        source = source.strip()
    if _PLAIN.fullmatch(source) and "    " not in source:
        rendered = source.replace('"', "&quot;")
    else:
        rendered = render_markdown(source).strip()
        single = one_paragraph(rendered)
        if single is not None:  # one paragraph: no <p>, so the field has no stray margins
            rendered = single

    if "<" in source:  # without raw HTML, the renderers' own tags are nested properly
        rendered = balanced(rendered)
    if maths:
        rendered = _put_back(rendered, maths)
    if cloze:
        # `}` + `}}` would read as the deletion ending one brace early; a space keeps TeX
        # meaning and lets Anki find the right `}}`.
        rendered = rendered.replace("}" + _CLOSE, "} " + _CLOSE)
        rendered = _CLOZE_SLOT.sub(_cloze_syntax, rendered)
    return rendered


@lru_cache(maxsize=4096)
def inline_html(text: str) -> str:
    """Render a one-line title (markdown and maths) without a paragraph."""
    return markdown_html(" ".join(text.split()))

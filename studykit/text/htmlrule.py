"""The one rule for HTML written in content: markdown is the format; a few bare tags pass.

Anki gets the tags as HTML (`sanitized`, `balanced`); the terminal gets what they mean in
markdown and Unicode (`html_for_terminal`), and sees the rest as text there too.

Content is markdown. Raw HTML in it is shown as text, except these inline tags written bare
(no attributes): line breaks, sub/superscripts and emphasis, which markdown cannot say or
which authors reach for out of habit. Attributes are never passed (no `style`, `onclick`,
`href`), so content cannot restyle a card or run script. An opened tag is closed by the end
of its field and a stray closing tag shown as text, so no field restyles the rest of a card.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Final

ALLOWED_TAGS: Final = frozenset(
    {"br", "sub", "sup", "b", "i", "u", "em", "strong", "kbd", "mark", "small", "s"}
)
_VOID: Final = frozenset({"br"})
_BARE_TAG: Final = re.compile(r"<(/?)([A-Za-z]+)\s*/?>")
_TAG: Final = re.compile(r"<(/?)([a-z]+)(?:\s[^<>]*)?/?>")


def allowed_tag(match: re.Match[str]) -> str | None:
    """The lower-case name of an allowed tag matched by `_BARE_TAG`, else None."""
    name = match.group(2).lower()
    return name if name in ALLOWED_TAGS else None


def sanitized(raw: str) -> str:
    """Raw HTML from content: allowed bare tags kept (normalised), everything else as text."""
    out: list[str] = []
    at = 0
    for match in _BARE_TAG.finditer(raw):
        name = allowed_tag(match)
        if name is None:
            continue
        out.append(html.escape(raw[at : match.start()], quote=False))
        out.append(f"<{name}>" if name in _VOID else f"<{match.group(1)}{name}>")
        at = match.end()
    out.append(html.escape(raw[at:], quote=False))
    return "".join(out)


def balanced(rendered: str) -> str:
    """`rendered` with allowed tags nested properly: stray closers as text, openers closed."""
    if "<" not in rendered:
        return rendered
    out: list[str] = []
    stack: list[str] = []
    at = 0
    for match in _TAG.finditer(rendered):
        closing, name = match.group(1) == "/", match.group(2)
        if name not in ALLOWED_TAGS or name in _VOID:
            continue
        out.append(rendered[at : match.start()])
        at = match.end()
        if not closing:
            stack.append(name)
            out.append(match.group())
        elif name in stack:
            while stack:  # close what was left open inside, then this one
                inner = stack.pop()
                out.append(f"</{inner}>")
                if inner == name:
                    break
        else:  # a closer with no opener stays visible, as text
            out.append(html.escape(match.group(), quote=False))
    out.append(rendered[at:])
    out.extend(f"</{name}>" for name in reversed(stack))
    return "".join(out)


# In the terminal: a code span (left alone), an allowed tag's content, a bare tag, or a `<`
# that is not an autolink (escaped, so the markdown renderer shows it instead of dropping it).
_TERMINAL = re.compile(
    r"(?P<code>(`+)[\s\S]*?(?<!`)\2(?!`))"
    r"|<(?P<script>sub|sup)>(?P<inner>[^<>`]*)</(?P=script)>"
    r"|(?P<tag></?(?P<name>[A-Za-z]+)\s*/?>)"
    r"|<(?![A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>)",
    re.IGNORECASE,
)
_MARKDOWN_OF: Final = {"b": "**", "strong": "**", "i": "*", "em": "*", "s": "~~"}


def html_for_terminal(
    prose: str, subscript: Callable[[str], str], superscript: Callable[[str], str]
) -> str:
    """Markdown prose for the terminal under the same rule: allowed tags become what they
    mean (a line break, emphasis, Unicode scripts), other HTML is escaped to show as text."""
    if "<" not in prose:
        return prose

    def one(match: re.Match[str]) -> str:
        if match.group("code") is not None:
            return match.group()
        if match.group("script") is not None:
            script = subscript if match.group("script").lower() == "sub" else superscript
            return script(match.group("inner"))
        name = (match.group("name") or "").lower()
        if name == "br":
            return "  \n"
        if name in ALLOWED_TAGS:
            return _MARKDOWN_OF.get(name, "")
        return "\\<" + match.group()[1:]

    return _TERMINAL.sub(one, prose)

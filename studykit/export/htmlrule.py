"""The one rule for HTML written in content: markdown is the format; a few bare tags pass.

Content is markdown. Raw HTML in it is shown as text, except these inline tags written bare
(no attributes): line breaks, sub/superscripts and emphasis, which markdown cannot say or
which authors reach for out of habit. Attributes are never passed (no `style`, `onclick`,
`href`), so content cannot restyle a card or run script. An opened tag is closed by the end
of its field and a stray closing tag shown as text, so no field restyles the rest of a card.
"""

from __future__ import annotations

import html
import re
from typing import Final

ALLOWED_TAGS: Final = frozenset(
    {"br", "sub", "sup", "b", "i", "u", "em", "strong", "kbd", "mark", "small", "s"}
)
_VOID: Final = frozenset({"br"})
_BARE_TAG: Final = re.compile(r"<(/?)([A-Za-z]+)\s*/?>")
_TAG: Final = re.compile(r"<(/?)([a-z]+)(?:\s[^<>]*)?/?>")


def sanitized(raw: str) -> str:
    """Raw HTML from content: allowed bare tags kept (normalised), everything else as text."""
    out: list[str] = []
    at = 0
    for match in _BARE_TAG.finditer(raw):
        name = match.group(2).lower()
        if name not in ALLOWED_TAGS:
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

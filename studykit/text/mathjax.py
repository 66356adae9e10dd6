"""LaTeX maths to MathJax for an HTML field (Anki's cards, the HTML export)."""

from __future__ import annotations

import html


def latex_to_mathjax(tex: str, display: bool) -> str:
    """Wrap LaTeX for MathJax in an HTML field; `}}` is split so Anki's templates ignore it."""
    body = html.escape(tex.strip(), quote=False)
    while "}}" in body:
        body = body.replace("}}", "} }")
    return rf"\[{body}\]" if display else rf"\({body}\)"

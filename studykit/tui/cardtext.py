"""Terminal markdown with citations rendered: card fronts and backs, note sections (one path)."""

from __future__ import annotations

import re

from studykit.citations import render_citations
from studykit.mathtext import markdown_to_terminal
from studykit.model import CLOZE_PATTERN, COMPUTED_KINDS, Card, Note


def _hidden(match: re.Match[str]) -> str:
    hint = match.group(3)
    return f"**[{hint}]**" if hint else "**[...]**"


def _shown(match: re.Match[str]) -> str:
    return f"**{match.group(2)}**"


def cited_markdown(text: str, note: Note | None) -> str:
    """Markdown for the terminal: citations rendered from `note`, maths as Unicode."""
    return markdown_to_terminal(render_citations(text, note))


def front_markdown(card: Card, note: Note | None = None) -> str:
    """The question; cloze deletions become `[...]` (or `[hint]`)."""
    text = CLOZE_PATTERN.sub(_hidden, card.front) if card.kind == "cloze" else card.front
    return cited_markdown(text, note)


def back_markdown(card: Card, note: Note | None = None) -> str:
    """The answer; a cloze card shows its text filled in, then any extra `back`."""
    parts: list[str] = []
    if card.kind == "cloze":
        parts.append(CLOZE_PATTERN.sub(_shown, card.front))
    if card.back and card.back.strip():
        parts.append(card.back)
    elif card.kind in COMPUTED_KINDS and card.answer:
        parts.append(f"Answer: `{card.answer}`")
    return cited_markdown("\n\n".join(parts), note)

"""The Obsidian Spaced Repetition plugin's card syntax: separators, clozes and deck tags.

`Q::A` and `Q:::A` (both ways) are one line; a multi-line card is a paragraph split by a `?`
line (`??` both ways); a paragraph with `==highlights==` is a cloze (hints `==x==^[hint]`,
groups `==x==[^2]`), `**bold**` too with the plugin's bold setting. `{{c1::…}}` is a cloze
only with `anki_cloze` (the plugin itself has no such reading yet), else it is reported.
Inline code and maths are masked first: `::` and `==` inside them are not syntax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

CardKind = Literal["basic", "reversed", "cloze"]

# Inline code and maths, where `::` and `==` are not card syntax. Each alternative stops at
# its first closing delimiter, so a match never rescans the line.
_PROTECTED = re.compile(r"`[^`]+`|``[^`]+``|\$\$[^$]+\$\$|\$[^\s$](?:[^$]*[^\s\\$])?\$")
_ANKI_CLOZE = re.compile(r"\{\{c\d+::[^{}]*\}\}")
_ANKI_OPEN = "{{c"
_CLOZE_MARK = re.compile(r"\{\{c\d+::|\}\}")
_SEPARATOR = re.compile(r":{2,}")
_HINT = re.compile(r"\^\[([^\]\n]*)\]")
_GROUP = re.compile(r"\[\^(\d{1,3})\]")
_TAG_WORD = "#flashcards"
# Obsidian's block id: letters, digits and dashes after a space, ending the line (the plugin
# reads it off a card's last line the same way).
_BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$")
_MARKS = {"?", "??"}


@dataclass(frozen=True)
class PluginSettings:
    """The plugin's cloze settings we follow (its defaults: highlights only)."""

    highlight_cloze: bool = True  # convertHighlightsToClozes
    bold_cloze: bool = False  # convertBoldTextToClozes
    anki_cloze: bool = False  # `{{c1::…}}`, which the plugin does not read


@dataclass(frozen=True)
class Draft:
    """A card's kind and sides, before it has a deck and an id."""

    kind: CardKind
    front: str
    back: str | None


@dataclass(frozen=True)
class NoCard:
    """Card syntax that made no card, and why (for the report)."""

    why: str
    broken: bool  # a card with a side missing: a schedule comment on it goes with it


def masked(text: str) -> str:
    """`text` with inline code and maths blanked out (same length), for finding syntax."""
    if "`" not in text and "$" not in text:
        return text
    return _PROTECTED.sub(lambda m: " " * len(m.group()), text)


def tag_path(word: str) -> str | None:
    """`#flashcards/a/b` -> `a/b`, `#flashcards` -> ``; None for other words."""
    if not word.lower().startswith(_TAG_WORD):
        return None
    rest = word[len(_TAG_WORD) :]
    if rest and not rest.startswith("/"):
        return None
    return "/".join(part for part in rest.split("/") if part)


def find_tags(text: str) -> tuple[list[str], list[str], str]:
    """(all tags, leading tags, the text with leading tags removed)."""
    if "#" not in text or _TAG_WORD not in text.lower():
        return [], [], text
    words = masked(text).split()
    found: list[str] = []
    leading: list[str] = []
    at_start = True
    for word in words:
        path = tag_path(word)
        if path is None:
            at_start = False
            continue
        found.append(path)
        if at_start:
            leading.append(path)
    rest = text
    for _ in leading:
        rest = rest.lstrip()
        rest = rest[len(rest.split(maxsplit=1)[0]) :]
    return found, leading, rest.lstrip() if leading else text


def separator(text: str) -> tuple[int, int] | None:
    """Where the first `::` or `:::` outside code, maths and `{{c1::…}}` is."""
    if "::" not in text:
        return None
    scan = masked(text)
    if _ANKI_OPEN in scan:
        scan = _ANKI_CLOZE.sub(lambda m: " " * len(m.group()), scan)
    for match in _SEPARATOR.finditer(scan):
        if len(match.group()) <= 3:
            return match.start(), match.end()
    return None


def highlights(text: str, mark: str = "==") -> list[tuple[int, int]]:
    """(start, end) of each `==x==` outside code and maths; maths inside one is allowed."""
    if mark not in text:
        return []
    scan = masked(text)
    spans: list[tuple[int, int]] = []
    start = scan.find(mark)
    while start >= 0:
        end = scan.find(mark, start + 2)
        if end < 0:
            break
        body = text[start + 2 : end]
        if body.strip() and body == body.strip() and "\n" not in body:
            spans.append((start, end + 2))
            start = scan.find(mark, end + 2)
        else:
            start = end  # the closing `==` may open the next one
    return spans


def clozed(text: str, mark: str = "==") -> str:
    """`==x==` -> `{{c1::x}}`, `{{c2::…}}`, … with `^[hint]` and `[^2]` groups kept."""
    out: list[str] = []
    last = 0
    number = 0
    for start, end in highlights(text, mark):
        if start < last:
            continue
        body = text[start + 2 : end - 2]
        hint = _HINT.match(text, end)
        after = hint.end() if hint else end
        group = _GROUP.match(text, after)
        if group:
            index = int(group.group(1))
            after = group.end()
        else:
            number += 1
            index = number
        extra = f"::{hint.group(1)}" if hint and hint.group(1).strip() else ""
        out += [text[last:start], f"{{{{c{index}::{body}{extra}}}}}"]
        last = after
    out.append(text[last:])
    return "".join(out)


def without_cloze_marks(text: str) -> str:
    """`{{c1::x}}` -> ` x `: a cloze's text for its id."""
    return _CLOZE_MARK.sub(" ", text)


def looks_like_card(text: str) -> bool:
    """Card syntax in text that made no card (for the report)."""
    stripped = text.strip()
    return (
        stripped in _MARKS
        or separator(text) is not None
        or bool(highlights(text))
        or _ANKI_OPEN in text
    )


def split_block_id(text: str) -> tuple[str, str | None]:
    """(`text` without a trailing ` ^block-id`, the id): `Q :: A ^q1` -> (`Q :: A`, `q1`)."""
    if "^" not in text:
        return text, None
    match = _BLOCK_ID.search(text)
    if match is None:
        return text, None
    return text[: match.start()].rstrip(), match.group(1)


def is_mark(text: str) -> bool:
    """A `?` or `??` line, which splits a multi-line card."""
    return text.strip() in _MARKS


def line_card(text: str, found: tuple[int, int]) -> Draft | NoCard:
    """The card of a line whose `::` or `:::` is at `found` (from `separator`)."""
    start, end = found
    front, back = text[:start].strip(), text[end:].strip()
    if not front or not back:
        return NoCard("`::` card with an empty side", broken=True)
    return Draft("reversed" if end - start == 3 else "basic", front, back)


def block_card(texts: list[str], settings: PluginSettings) -> Draft | NoCard | None:
    """The card of a paragraph's lines: split by `?`/`??`, else a cloze; None for prose."""
    marks = [i for i, text in enumerate(texts) if is_mark(text)]
    if marks:
        mark = marks[0]
        front = "\n".join(text.strip() for text in texts[:mark]).strip()
        back = "\n".join(text.strip() for text in texts[mark + 1 :]).strip()
        if not front or not back:
            return NoCard("`?` card with an empty side", broken=True)
        return Draft("reversed" if texts[mark].strip() == "??" else "basic", front, back)
    text = "\n".join(line.strip() for line in texts)
    delimiters: list[str] = []
    if settings.highlight_cloze:
        delimiters.append("==")
    if settings.bold_cloze:
        delimiters.append("**")
    for delimiter in delimiters:
        if highlights(text, delimiter):
            return Draft("cloze", clozed(text, delimiter), None)
    if _ANKI_OPEN in text and _ANKI_CLOZE.search(text):
        if settings.anki_cloze:
            return Draft("cloze", text, None)
        why = "Anki-style {{c1::…}} cloze: the plugin makes no card of it (see --anki-cloze)"
        return NoCard(why, broken=False)
    return None

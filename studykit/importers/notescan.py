"""Obsidian Spaced Repetition markdown -> cards, following the plugin's documented rules.

This module finds the blocks: a `::` line is a card, a paragraph may be one (what makes a
card is in `cardsyntax`, which deck it joins in `decks`). A tag line (only `#flashcards/...`
tags) chooses the decks; a tag inside a card's lines chooses nothing. Front matter tags
apply until the first tag line.
Not cards: fenced and indented code, headings (`#` and setext), `<!-- -->` and `%% %%`
comments (the plugin's `<!--SR:...-->` schedules are read, and go with the card above).
One pass over the lines, no regex that can backtrack across a line: linear in the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from studykit.importers.cardsyntax import (
    Draft,
    PluginSettings,
    block_card,
    find_tags,
    is_mark,
    line_card,
    looks_like_card,
    masked,
    separator,
    split_block_id,
    tag_path,
)
from studykit.importers.decks import DeckBuilder, ObsidianImport
from studykit.importers.srschedule import BadSchedule, Schedule, parse_schedule

_FENCE = re.compile(r"[ ]{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"[ ]{0,3}#{1,6}(?:[ \t]|$)")
_SETEXT = re.compile(r"[ ]{0,3}(?:=+|-+)[ \t]*$")
_FENCE_CHARS = "`~"
_SETEXT_EQ = re.compile(r"[ ]{0,3}=+[ \t]*$")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_INDENTED = re.compile(r"(?: {4}|[ ]{0,3}\t)")
_TAGS_KEY = re.compile(r"tags?\s*:(.*)", re.IGNORECASE)
_TAG_SPLIT = re.compile(r"[\s,\[\]\"']+")


@dataclass(slots=True)
class _Line:
    number: int
    text: str  # comments removed
    tags: list[str]  # `#flashcards` paths found on the line (masked text)
    leading: list[str]  # of those, the ones at the start of the line
    schedules: list[Schedule] = field(default_factory=list)


class _Comments:
    """`<!-- -->` and `%% %%` comments across lines; schedules read out of them."""

    def __init__(self, builder: DeckBuilder) -> None:
        self.builder = builder
        self.closer = ""  # "-->" or "%%" while a comment is open
        self.start = 0
        self.hidden: list[str] = []

    def strip(self, number: int, raw: str) -> tuple[str, list[Schedule], bool]:
        """(text outside comments, schedules on the line, whether the line had a comment)."""
        if not self.closer and "<!--" not in raw and "%%" not in raw:
            return raw, [], False
        kept: list[str] = []
        schedules: list[Schedule] = []
        scan = masked(raw)  # `50 %% 7` in inline code opens no comment
        k = 0
        while k <= len(raw):
            if self.closer:
                close = scan.find(self.closer, k)
                body = raw[k:] if close < 0 else raw[k:close]
                self.hidden.append(body)
                if close < 0:
                    break
                self.end_comment(number)
                k = close + (3 if self.closer == "-->" else 2)
                self.closer = ""
                continue
            html, percent = scan.find("<!--", k), scan.find("%%", k)
            if html < 0 and percent < 0:
                kept.append(raw[k:])
                break
            if html >= 0 and (percent < 0 or html < percent):
                kept.append(raw[k:html])
                close = scan.find("-->", html + 4)
                body = raw[html + 4 : close if close >= 0 else len(raw)]
                if body.startswith("SR:") and close >= 0:
                    try:
                        schedules += parse_schedule(body[3:])
                    except BadSchedule as error:
                        self.builder.skip(number, number, f"schedule unread: {error}")
                    k = close + 3
                    continue
                self.closer, self.start, self.hidden = "-->", number, []
                k = html + 4
            else:
                kept.append(raw[k:percent])
                self.closer, self.start, self.hidden = "%%", number, []
                k = percent + 2
        return "".join(kept), schedules, True

    def end_comment(self, number: int) -> None:
        if any(looks_like_card(text) for text in self.hidden):
            kind = "an HTML comment" if self.closer == "-->" else "a %% comment"
            why = f"card syntax inside {kind}: ignored, as the plugin does"
            self.builder.skip(self.start, number, why)
        self.hidden = []

    def finish(self, last: int) -> None:
        if self.closer:
            self.end_comment(last)


class _Blocks:
    """The paragraph being read, turned into a card (or a report) when it ends."""

    def __init__(self, builder: DeckBuilder, settings: PluginSettings) -> None:
        self.builder = builder
        self.settings = settings
        self.block: list[_Line] = []

    def attach_schedules(self, number: int, schedules: list[Schedule]) -> None:
        """A schedule comment on its own line: it belongs to the card just above."""
        if self.block:
            self.block[-1].schedules += schedules
            return
        self.builder.attach_schedules(number, schedules)

    def single_line(self, line: _Line, found: tuple[int, int]) -> None:
        self.flush()
        text, block = split_block_id(line.text)
        card = line_card(text, found)
        if not isinstance(card, Draft):
            self.builder.skip(line.number, line.number, card.why)
            self.tag_lines([line])
            return
        self.note_inner_tags(line, line.leading)
        self.builder.add(card, line.number, line.number, line.schedules, line.leading, block)

    def note_inner_tags(self, line: _Line, own: list[str]) -> None:
        if len(line.tags) > len(own):
            why = "a tag inside a card (not at its start) chooses no deck, as in the plugin"
            self.builder.skip(line.number, line.number, why)

    def tag_lines(self, lines: list[_Line]) -> None:
        """Lines that made no card: their tags are tag lines, in order."""
        for line in lines:
            if line.tags:
                self.builder.use_group(line.tags)

    def flush(self) -> None:
        lines, self.block = self.block, []
        if not lines:
            return
        first, last = lines[0].number, lines[-1].number
        schedules = [s for line in lines for s in line.schedules]
        for line in lines[1:]:
            self.note_inner_tags(line, [])
        texts = [line.text for line in lines]
        texts[-1], block = split_block_id(texts[-1])
        card = block_card(texts, self.settings)
        if isinstance(card, Draft):
            self.builder.add(card, first, last, schedules, lines[0].leading, block)
            return
        if card is not None:
            self.builder.skip(first, last, card.why)
        if schedules and (card is None or not card.broken):
            self.builder.skip(first, last, "schedule comment not under a card")
        self.tag_lines(lines)

    def heading(self, lines: list[_Line], why: str) -> None:
        if any(looks_like_card(ln.text) for ln in lines):
            self.builder.skip(lines[0].number, lines[-1].number, why)
        self.tag_lines(lines)


def _front_matter_end(lines: list[str]) -> int:
    if not lines or lines[0].strip() != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].strip() in {"---", "..."}:
            return i + 1
    return 0


def _front_matter_tags(matter: list[str]) -> list[str]:
    """`#flashcards` paths under the front matter's `tags:` key (inline list or `- item`s)."""
    found: list[str] = []
    in_tags = False
    for line in matter:
        key = _TAGS_KEY.match(line)
        if key:
            in_tags, values = True, key.group(1)
        elif in_tags and line[:1] in " \t-":
            values = line.strip().removeprefix("-")
        else:
            in_tags = False
            continue
        for word in _TAG_SPLIT.split(values):
            path = tag_path("#" + word.lstrip("#")) if word else None
            if path is not None:
                found.append(path)
    return found


def parse_obsidian(
    text: str,
    stem: str,
    *,
    settings: PluginSettings | None = None,
    one_deck: tuple[str, str] | None = None,
) -> ObsidianImport:
    """Find the cards in an Obsidian note; `stem` names the deck when no tag does.

    With `one_deck` (id, name) every card goes to that deck, its tags becoming card tags.
    """
    lines = text.splitlines()
    builder = DeckBuilder(stem, one_deck=one_deck)
    parser = _Blocks(builder, settings or PluginSettings())
    start = _front_matter_end(lines)
    paths = _front_matter_tags(lines[1 : start - 1]) if start else []
    if paths:
        builder.use_group(paths)
    comments = _Comments(builder)
    fence = ""
    indented = False
    after_list = False
    in_paragraph = False  # an indented line right under text continues it, it is not code
    for number in range(start + 1, len(lines) + 1):
        raw = lines[number - 1]
        lead = raw.lstrip(" ")[:1]  # cheap guards before each pattern: most lines are prose
        if fence:
            closing = _FENCE.match(raw) if lead in _FENCE_CHARS else None
            if (
                closing
                and closing.group(1)[0] == fence[0]
                and len(closing.group(1)) >= len(fence)
                and not raw[closing.end() :].strip()
            ):
                fence = ""
            continue
        if not comments.closer and lead in _FENCE_CHARS:
            opening = _FENCE.match(raw)
            if opening and not (opening.group(1)[0] == "`" and "`" in raw[opening.end() :]):
                parser.flush()
                fence, indented, in_paragraph = opening.group(1), False, False
                continue
        text_line, schedules, had_comment = comments.strip(number, raw)
        if had_comment and not text_line.strip():
            if schedules:
                parser.attach_schedules(number, schedules)
            continue
        blank = not text_line.strip()
        spaced = text_line[:1] in " \t"
        if indented:
            if blank or (spaced and _INDENTED.match(text_line)):
                continue
            indented = False
        if blank:
            parser.flush()
            in_paragraph = False
            continue
        if spaced and not in_paragraph and not after_list and _INDENTED.match(text_line):
            indented = True
            continue
        in_paragraph = True
        lead = text_line.lstrip(" ")[:1]
        listed = (lead in "-*+" or lead.isdigit()) and bool(_LIST_ITEM.match(text_line))
        after_list = listed or (after_list and spaced)
        if lead == "#" and _HEADING.match(text_line):
            parser.flush()
            tags, _, _ = find_tags(text_line)
            line = _Line(number, text_line, tags, [])
            parser.heading([line], "a heading is not a card")
            in_paragraph = False
            continue
        if lead in "=-" and parser.block and _SETEXT.match(text_line):
            if any(is_mark(ln.text) for ln in parser.block):
                parser.flush()
            else:
                block, parser.block = parser.block, []
                parser.heading(block, "a setext heading (text over ===/---) is not a card")
            continue
        tags, leading, rest = find_tags(text_line)
        if tags and not rest.strip():
            parser.flush()
            builder.use_group(tags)
            continue
        found = separator(rest)
        if found is not None and number < len(lines) and _SETEXT_EQ.match(lines[number]):
            found = None  # `Title :: x` over `===` is a heading (a `---` under a card is a rule)
        if found is not None:  # a `::` card is its line; tags at its start are its own
            parser.single_line(_Line(number, rest, tags, leading, list(schedules)), found)
            continue
        if parser.block:  # only a card's first line has card-specific tags
            parser.block.append(_Line(number, text_line, tags, [], list(schedules)))
        else:
            parser.block.append(_Line(number, rest, tags, leading, list(schedules)))
    comments.finish(len(lines))
    parser.flush()
    return builder.finish()

"""Obsidian Spaced Repetition markdown -> cards, following the plugin's documented rules.

Cards: `Q::A` and `Q:::A` (both ways) end at their line; multi-line cards are a paragraph
split by a `?` line (`??` both ways); a paragraph with `==highlights==` is a cloze (hints
`==x==^[hint]`, groups `==x==[^2]`); `**bold**` too with the plugin's bold setting.
`{{c1::…}}` is a cloze only with `anki_cloze` (the plugin itself has no such reading
yet), else it is reported.
Decks: a line of `#flashcards/...` tags applies to the cards after it until the next tag
line (several tags: the card is in each deck); tags at the start of a card's first line
are for that card only; a tag inside a card's lines chooses nothing. Front matter tags
apply until the first tag line. Cards before any tag line join the note's first tag line.
Not cards: fenced and indented code, headings (`#` and setext), `<!-- -->` and `%% %%`
comments (the plugin's `<!--SR:...-->` schedules are read, and go with the card above).
One pass over the lines, no regex that can backtrack across a line: linear in the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from studykit.core.ids import Slugs, slug
from studykit.importers.srschedule import BadSchedule, Schedule, parse_schedule
from studykit.text.clozes import cloze_number_problem

CardKind = Literal["basic", "reversed", "cloze"]

_FENCE = re.compile(r"[ ]{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"[ ]{0,3}#{1,6}(?:[ \t]|$)")
_SETEXT = re.compile(r"[ ]{0,3}(?:=+|-+)[ \t]*$")
_FENCE_CHARS = "`~"
_SETEXT_EQ = re.compile(r"[ ]{0,3}=+[ \t]*$")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_INDENTED = re.compile(r"(?: {4}|[ ]{0,3}\t)")
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


@dataclass(frozen=True)
class ImportedCard:
    """A card found in the file, with the line it starts on and the plugin's schedules."""

    id: str
    kind: CardKind
    front: str
    back: str | None
    line: int
    schedules: tuple[Schedule, ...] = ()
    tags: tuple[str, ...] = ()


@dataclass
class ImportedDeck:
    """The cards of one deck (a `#flashcards/...` tag, or one note)."""

    id: str
    name: str
    cards: list[ImportedCard] = field(default_factory=list)
    slugs: Slugs = field(default_factory=Slugs)


@dataclass(frozen=True)
class ReportLine:
    """Lines `line`..`end` that look like a card but made none, and why."""

    line: int
    end: int
    why: str

    def __str__(self) -> str:
        where = f"{self.line}" if self.end == self.line else f"{self.line}-{self.end}"
        return f"{where}: {self.why}"


@dataclass
class ObsidianImport:
    """The decks (in order of first use) and what was skipped, in line order."""

    decks: list[ImportedDeck]
    skipped: list[ReportLine]
    tagged: bool = True  # a `#flashcards` tag somewhere (the plugin reads no other note)

    @property
    def cards(self) -> int:
        """How many cards, over all decks."""
        return sum(len(deck.cards) for deck in self.decks)

    @property
    def schedules(self) -> int:
        """How many cards carry a plugin schedule."""
        return sum(bool(card.schedules) for deck in self.decks for card in deck.cards)


@dataclass(slots=True)
class _Line:
    number: int
    text: str  # comments removed
    tags: list[str]  # `#flashcards` paths found on the line (masked text)
    leading: list[str]  # of those, the ones at the start of the line
    schedules: list[Schedule] = field(default_factory=list)


def _masked(text: str) -> str:
    """`text` with inline code and maths blanked out (same length), for finding syntax."""
    if "`" not in text and "$" not in text:
        return text
    return _PROTECTED.sub(lambda m: " " * len(m.group()), text)


def _tag_path(word: str) -> str | None:
    """`#flashcards/a/b` -> `a/b`, `#flashcards` -> ``; None for other words."""
    if not word.lower().startswith(_TAG_WORD):
        return None
    rest = word[len(_TAG_WORD) :]
    if rest and not rest.startswith("/"):
        return None
    return "/".join(part for part in rest.split("/") if part)


def _find_tags(text: str) -> tuple[list[str], list[str], str]:
    """(all tags, leading tags, the text with leading tags removed)."""
    if "#" not in text or _TAG_WORD not in text.lower():
        return [], [], text
    words = _masked(text).split()
    found: list[str] = []
    leading: list[str] = []
    at_start = True
    for word in words:
        path = _tag_path(word)
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


def _separator(text: str) -> tuple[int, int] | None:
    """Where the first `::` or `:::` outside code, maths and `{{c1::…}}` is."""
    if "::" not in text:
        return None
    masked = _masked(text)
    if _ANKI_OPEN in masked:
        masked = _ANKI_CLOZE.sub(lambda m: " " * len(m.group()), masked)
    for match in _SEPARATOR.finditer(masked):
        if len(match.group()) <= 3:
            return match.start(), match.end()
    return None


@dataclass(frozen=True)
class PluginSettings:
    """The plugin's cloze settings we follow (its defaults: highlights only)."""

    highlight_cloze: bool = True  # convertHighlightsToClozes
    bold_cloze: bool = False  # convertBoldTextToClozes
    anki_cloze: bool = False  # `{{c1::…}}`, which the plugin does not read


def _highlights(text: str, mark: str = "==") -> list[tuple[int, int]]:
    """(start, end) of each `==x==` outside code and maths; maths inside one is allowed."""
    if mark not in text:
        return []
    masked = _masked(text)
    spans: list[tuple[int, int]] = []
    start = masked.find(mark)
    while start >= 0:
        end = masked.find(mark, start + 2)
        if end < 0:
            break
        body = text[start + 2 : end]
        if body.strip() and body == body.strip() and "\n" not in body:
            spans.append((start, end + 2))
            start = masked.find(mark, end + 2)
        else:
            start = end  # the closing `==` may open the next one
    return spans


def _clozed(text: str, mark: str = "==") -> str:
    """`==x==` -> `{{c1::x}}`, `{{c2::…}}`, … with `^[hint]` and `[^2]` groups kept."""
    out: list[str] = []
    last = 0
    number = 0
    for start, end in _highlights(text, mark):
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


def _looks_like_card(text: str) -> bool:
    """Card syntax in text that made no card (for the report)."""
    stripped = text.strip()
    return (
        stripped in {"?", "??"}
        or _separator(text) is not None
        or bool(_highlights(text))
        or _ANKI_OPEN in text
    )


class _Comments:
    """`<!-- -->` and `%% %%` comments across lines; schedules read out of them."""

    def __init__(self, report: list[ReportLine]) -> None:
        self.report = report
        self.closer = ""  # "-->" or "%%" while a comment is open
        self.start = 0
        self.hidden: list[str] = []

    def strip(self, number: int, raw: str) -> tuple[str, list[Schedule], bool]:
        """(text outside comments, schedules on the line, whether the line had a comment)."""
        if not self.closer and "<!--" not in raw and "%%" not in raw:
            return raw, [], False
        kept: list[str] = []
        schedules: list[Schedule] = []
        scan = _masked(raw)  # `50 %% 7` in inline code opens no comment
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
                        self.report.append(ReportLine(number, number, f"schedule unread: {error}"))
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
        if any(_looks_like_card(text) for text in self.hidden):
            kind = "an HTML comment" if self.closer == "-->" else "a %% comment"
            why = f"card syntax inside {kind}: ignored, as the plugin does"
            self.report.append(ReportLine(self.start, number, why))
        self.hidden = []

    def finish(self, last: int) -> None:
        if self.closer:
            self.end_comment(last)


class _Parser:
    """One pass over the file's lines, keeping the current tag line's decks."""

    def __init__(
        self, stem: str, *, settings: PluginSettings, one_deck: tuple[str, str] | None
    ) -> None:
        self.stem = stem
        self.settings = settings
        self.one_deck = one_deck
        self.decks: dict[str, ImportedDeck] = {}
        self.by_path: dict[str, ImportedDeck] = {}  # tag path -> its deck
        self.report: list[ReportLine] = []
        self.group: list[str] | None = None  # the tag line in force
        self.pending: list[ImportedCard] = []  # cards before any tag line
        self.last_card: ImportedCard | None = None
        self.last_card_deck: list[ImportedDeck] = []
        self.last_card_end = 0
        self.block: list[_Line] = []
        self.tagged = False

    # -- decks -----------------------------------------------------------------------------

    def _deck(self, path: str) -> ImportedDeck:
        known = self.by_path.get(path)
        if known is not None:
            return known
        parts = [p for p in path.split("/") if p]
        deck_id = slug("-".join(parts)) if parts else slug(self.stem)
        name = "::".join(parts) if parts else self.stem
        deck = self.by_path[path] = self.decks.setdefault(deck_id, ImportedDeck(deck_id, name))
        return deck

    def use_group(self, tags: list[str]) -> None:
        """A tag line: the cards after it go to its decks (and those before any, too)."""
        self.group, self.tagged = tags, True
        pending, self.pending = self.pending, []
        for card in pending:
            self._place(card, tags)

    def add(
        self,
        kind: CardKind,
        front: str,
        back: str | None,
        line: int,
        end: int,
        schedules: list[Schedule],
        own_tags: list[str],
    ) -> None:
        if kind == "cloze" and (problem := cloze_number_problem(front)) is not None:
            self.report.append(ReportLine(line, end, problem))
            return
        card = ImportedCard("", kind, front, back, line, tuple(schedules))
        tags = own_tags or self.group
        self.tagged = self.tagged or bool(own_tags)
        self.last_card_end = end
        if tags is None and self.one_deck is None:
            self.pending.append(card)
            self.last_card, self.last_card_deck = card, []
            return
        self._place(card, tags or [])

    def _place(self, card: ImportedCard, tags: list[str]) -> None:
        if self.one_deck is not None:
            deck_id, name = self.one_deck
            decks = [self.decks.setdefault(deck_id, ImportedDeck(deck_id, name))]
            card_tags = tuple(dict.fromkeys(slug(t.replace("/", "-")) for t in tags if t))
        else:
            decks = [self._deck(t) for t in dict.fromkeys(tags)] or [self._deck("")]
            card_tags = ()
        self.last_card_deck = []
        for deck in decks:
            card_id = deck.slugs.take(slug(_CLOZE_MARK.sub(" ", card.front)))
            placed = ImportedCard(
                card_id, card.kind, card.front, card.back, card.line, card.schedules, card_tags
            )
            deck.cards.append(placed)
            self.last_card_deck.append(deck)
        self.last_card = card

    def attach_schedules(self, number: int, schedules: list[Schedule]) -> None:
        """A schedule comment on its own line: it belongs to the card just above."""
        if self.block:
            self.block[-1].schedules += schedules
            return
        if self.last_card is not None and self.last_card_end == number - 1:
            self._add_schedules(schedules)
            self.last_card_end = number
            return
        self.report.append(ReportLine(number, number, "schedule comment not under a card"))

    def _add_schedules(self, schedules: list[Schedule]) -> None:
        card = self.last_card
        assert card is not None
        targets = [deck.cards for deck in self.last_card_deck] or [self.pending]
        for cards in targets:
            for i in range(len(cards) - 1, -1, -1):
                if cards[i].line == card.line:
                    old = cards[i]
                    cards[i] = ImportedCard(
                        old.id,
                        old.kind,
                        old.front,
                        old.back,
                        old.line,
                        old.schedules + tuple(schedules),
                        old.tags,
                    )
                    break

    # -- cards -----------------------------------------------------------------------------

    def single_line(self, line: _Line, found: tuple[int, int]) -> None:
        self.flush()
        start, end = found
        own = line.leading
        text = line.text
        front, back = text[:start].strip(), text[end:].strip()
        if not front or not back:
            self.report.append(ReportLine(line.number, line.number, "`::` card with an empty side"))
            self.tag_lines([line])
            return
        kind: CardKind = "reversed" if end - start == 3 else "basic"
        self.note_inner_tags(line, own)
        self.add(kind, front, back, line.number, line.number, line.schedules, own)

    def note_inner_tags(self, line: _Line, own: list[str]) -> None:
        if len(line.tags) > len(own):
            why = "a tag inside a card (not at its start) chooses no deck, as in the plugin"
            self.report.append(ReportLine(line.number, line.number, why))

    def tag_lines(self, lines: list[_Line]) -> None:
        """Lines that made no card: their tags are tag lines, in order."""
        for line in lines:
            if line.tags:
                self.use_group(line.tags)

    def flush(self) -> None:
        lines, self.block = self.block, []
        if not lines:
            return
        first, last = lines[0].number, lines[-1].number
        schedules = [s for line in lines for s in line.schedules]
        own = lines[0].leading
        for line in lines[1:]:
            self.note_inner_tags(line, [])
        marks = [i for i, ln in enumerate(lines) if ln.text.strip() in {"?", "??"}]
        if marks:
            mark = marks[0]
            front = "\n".join(ln.text.strip() for ln in lines[:mark]).strip()
            back = "\n".join(ln.text.strip() for ln in lines[mark + 1 :]).strip()
            if not front or not back:
                self.report.append(ReportLine(first, last, "`?` card with an empty side"))
                self.tag_lines(lines)
                return
            kind: CardKind = "reversed" if lines[mark].text.strip() == "??" else "basic"
            self.add(kind, front, back, first, last, schedules, own)
            return
        text = "\n".join(ln.text.strip() for ln in lines)
        delimiters: list[str] = []
        if self.settings.highlight_cloze:
            delimiters.append("==")
        if self.settings.bold_cloze:
            delimiters.append("**")
        for delimiter in delimiters:
            if _highlights(text, delimiter):
                self.add("cloze", _clozed(text, delimiter), None, first, last, schedules, own)
                return
        if _ANKI_OPEN in text and _ANKI_CLOZE.search(text):
            if self.settings.anki_cloze:
                self.add("cloze", text, None, first, last, schedules, own)
                return
            why = "Anki-style {{c1::…}} cloze: the plugin makes no card of it (see --anki-cloze)"
            self.report.append(ReportLine(first, last, why))
        if schedules:
            self.report.append(ReportLine(first, last, "schedule comment not under a card"))
        self.tag_lines(lines)

    def heading(self, lines: list[_Line], why: str) -> None:
        if any(_looks_like_card(ln.text) for ln in lines):
            self.report.append(ReportLine(lines[0].number, lines[-1].number, why))
        self.tag_lines(lines)


def _front_matter_end(lines: list[str]) -> int:
    if not lines or lines[0].strip() != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].strip() in {"---", "..."}:
            return i + 1
    return 0


_TAGS_KEY = re.compile(r"tags?\s*:(.*)", re.IGNORECASE)
_TAG_SPLIT = re.compile(r"[\s,\[\]\"']+")


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
            path = _tag_path("#" + word.lstrip("#")) if word else None
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
    parser = _Parser(stem, settings=settings or PluginSettings(), one_deck=one_deck)
    start = _front_matter_end(lines)
    paths = _front_matter_tags(lines[1 : start - 1]) if start else []
    if paths:
        parser.group, parser.tagged = paths, True
    comments = _Comments(parser.report)
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
            tags, _, _ = _find_tags(text_line)
            line = _Line(number, text_line, tags, [])
            parser.heading([line], "a heading is not a card")
            in_paragraph = False
            continue
        if lead in "=-" and parser.block and _SETEXT.match(text_line):
            if any(ln.text.strip() in {"?", "??"} for ln in parser.block):
                parser.flush()
            else:
                block, parser.block = parser.block, []
                parser.heading(block, "a setext heading (text over ===/---) is not a card")
            continue
        tags, leading, rest = _find_tags(text_line)
        if tags and not rest.strip():
            parser.flush()
            parser.use_group(tags)
            continue
        found = _separator(rest)
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
    tagged = parser.tagged
    if parser.pending:
        parser.use_group([""])
    parser.report.sort(key=lambda r: (r.line, r.end))
    decks = [deck for deck in parser.decks.values() if deck.cards]
    return ObsidianImport(decks=decks, skipped=parser.report, tagged=tagged)

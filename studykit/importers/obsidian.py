"""Obsidian Spaced Repetition markdown -> cards, with a line-numbered report of what was used.

The plugin's syntax: `Q::A` (`Q:::A` both ways), multi-line cards (front lines, a `?` line
or `??` both ways, back lines up to a blank line), `==cloze==` paragraphs, and decks from
`#flashcards/...` tags, each applying to what follows it. Fenced code, front matter and HTML
comments (the plugin's `<!--SR:...-->` schedule included) never make cards, and `::` or `==`
inside inline code or `$maths$` is not syntax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from studykit.ids import Slugs, slug

CardKind = Literal["basic", "reversed", "cloze"]

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_TAG = re.compile(r"(?:(?<=\s)|^)#flashcards(/[\w/-]+)?(?=\s|$)")
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_SCHEDULE = re.compile(r"<!--\s*SR:")
# Inline code and maths, where `::` and `==` are not card syntax.
_PROTECTED = re.compile(r"(`+)(?:(?!\1).)+?\1|\$\$.+?\$\$|\$[^\s$](?:[^$]*?[^\s\\$])?\$")
_CLOZE_MARK = re.compile(r"\{\{c\d+::|\}\}")
_CLOZE = re.compile(r"==(?=\S)([^=\n]*?\S)==")


@dataclass(frozen=True)
class ImportedCard:
    """A card found in the file, with the line it starts on."""

    id: str
    kind: CardKind
    front: str
    back: str | None
    line: int


@dataclass
class ImportedDeck:
    """The cards of one `#flashcards/...` tag."""

    id: str
    name: str
    cards: list[ImportedCard] = field(default_factory=list)
    slugs: Slugs = field(default_factory=Slugs)


@dataclass(frozen=True)
class ReportLine:
    """What became of lines `line`..`end` of the file."""

    line: int
    end: int
    used: bool
    text: str

    def __str__(self) -> str:
        where = f"{self.line}" if self.end == self.line else f"{self.line}-{self.end}"
        return f"{where}: {self.text}"


@dataclass
class ObsidianImport:
    """The decks (in order of first use) and the report, in line order."""

    decks: list[ImportedDeck]
    report: list[ReportLine]


@dataclass(frozen=True)
class _Line:
    number: int
    text: str


def _masked(text: str) -> str:
    """`text` with inline code and maths blanked out (same length), for finding syntax."""
    return _PROTECTED.sub(lambda m: " " * len(m.group()), text)


def _strip_comments(lines: list[str], start: int, report: list[ReportLine]) -> list[_Line]:
    """Lines with HTML comments removed; a line that was only comment is dropped (not blank)."""
    out: list[_Line] = []
    open_at = 0
    schedule = False
    fence = ""
    for number, raw in enumerate(lines[start:], start=start + 1):
        fenced = _FENCE.match(raw)
        if not open_at and (fence or fenced):
            if fenced and (not fence or fenced.group(1)[0] == fence[0]):
                fence = "" if fence else fenced.group(1)
            out.append(_Line(number, raw))  # code is left to the block pass
            continue
        kept, k, had_comment = [], 0, False
        while k <= len(raw):
            if open_at:
                close = raw.find("-->", k)
                if close < 0:
                    break
                if not schedule:
                    report.append(ReportLine(open_at, number, False, "HTML comment skipped"))
                open_at, k, had_comment = 0, close + 3, True
                continue
            begin = raw.find("<!--", k)
            if begin < 0:
                kept.append(raw[k:])
                break
            kept.append(raw[k:begin])
            open_at, schedule = number, bool(_SCHEDULE.match(raw, begin))
            k = begin + 4
        text = "".join(kept)
        if text.strip() or not (had_comment or open_at):
            out.append(_Line(number, text))
    if open_at and not schedule:
        report.append(ReportLine(open_at, len(lines), False, "unclosed HTML comment skipped"))
    return out


class _Parser:
    """One pass over the file's lines, keeping the current deck."""

    def __init__(self, stem: str) -> None:
        self.stem = stem
        self.decks: dict[str, ImportedDeck] = {}
        self.report: list[ReportLine] = []
        self.deck: ImportedDeck | None = None
        self.pending: list[ImportedCard] = []  # cards seen before any tag

    def use_tag(self, path: str | None) -> None:
        parts = [p for p in (path or "").split("/") if p]
        deck_id = slug("-".join(parts)) if parts else slug(self.stem)
        name = "::".join(parts) if parts else self.stem
        self.deck = self.decks.setdefault(deck_id, ImportedDeck(deck_id, name))
        if self.pending:  # cards above the first tag go to the note's first deck
            for card in self.pending:
                self.add(card.kind, card.front, card.back, card.line)
            self.pending = []

    def add(self, kind: CardKind, front: str, back: str | None, line: int) -> None:
        if self.deck is None:
            self.pending.append(ImportedCard("", kind, front, back, line))
            return
        card_id = self.deck.slugs.take(slug(_CLOZE_MARK.sub(" ", front)))
        self.deck.cards.append(ImportedCard(card_id, kind, front, back, line))
        what = {"basic": "card", "reversed": "reversed card", "cloze": "cloze card"}[kind]
        self.report.append(
            ReportLine(line, line, True, f"{what} `{card_id}` in deck {self.deck.name}")
        )

    def tags(self, line: _Line) -> _Line | None:
        """Apply the line's `#flashcards` tags; the rest of the line, or None if none is left."""
        found = list(_TAG.finditer(_masked(line.text)))
        if not found:
            return line
        for match in found:
            self.use_tag(match.group(1))
        text = _TAG.sub("", line.text)
        return _Line(line.number, text) if text.strip() else None

    def paragraph(self, lines: list[_Line]) -> None:
        marks = [i for i, ln in enumerate(lines) if ln.text.strip() in {"?", "??"}]
        if marks:
            self.multi_line(lines, marks[0])
            return
        cards = 0
        for ln in lines:
            cards += self.single_line(ln)
        if cards:
            rest = [ln for ln in lines if not _separator(ln.text)]
            for ln in rest:
                self.report.append(ReportLine(ln.number, ln.number, False, "text line skipped"))
            return
        text = "\n".join(ln.text.strip() for ln in lines)
        if _CLOZE.search(_masked(text)):
            self.add("cloze", _clozed(text), None, lines[0].number)
        else:
            self.skip(lines, "text without card syntax skipped")

    def multi_line(self, lines: list[_Line], mark: int) -> None:
        front = "\n".join(ln.text.strip() for ln in lines[:mark]).strip()
        back = "\n".join(ln.text.strip() for ln in lines[mark + 1 :]).strip()
        if not front or not back:
            self.skip(lines, "`?` card with an empty side skipped")
            return
        kind: CardKind = "reversed" if lines[mark].text.strip() == "??" else "basic"
        self.add(kind, front, back, lines[0].number)

    def single_line(self, line: _Line) -> int:
        found = _separator(line.text)
        if found is None:
            return 0
        start, end = found
        front, back = line.text[:start].strip(), line.text[end:].strip()
        if not front or not back:
            self.skip([line], "`::` card with an empty side skipped")
            return 1
        self.add("reversed" if end - start == 3 else "basic", front, back, line.number)
        return 1

    def skip(self, lines: list[_Line], why: str) -> None:
        self.skip_lines(lines[0].number, lines[-1].number, why)

    def skip_lines(self, first: int, last: int, why: str) -> None:
        self.report.append(ReportLine(first, last, False, why))


def _separator(text: str) -> tuple[int, int] | None:
    """Where the first `::` or `:::` outside code and maths is (longer runs are not one)."""
    for match in re.finditer(r":{2,}", _masked(text)):
        if len(match.group()) <= 3:
            return match.start(), match.end()
    return None


def _clozed(text: str) -> str:
    """`==x==` highlights -> `{{c1::x}}`, `{{c2::…}}`, … in order, outside code and maths."""
    out: list[str] = []
    last = 0
    for number, match in enumerate(_CLOZE.finditer(_masked(text)), start=1):
        body = text[match.start(1) : match.end(1)]
        out += [text[last : match.start()], f"{{{{c{number}::{body}}}}}"]
        last = match.end()
    out.append(text[last:])
    return "".join(out)


def _front_matter_end(lines: list[str]) -> int:
    if not lines or lines[0].strip() != "---":
        return 0
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() in {"---", "..."}:
            return i + 1
    return 0


def parse_obsidian(text: str, stem: str) -> ObsidianImport:
    """Find the cards in an Obsidian note; `stem` names the deck when no tag does."""
    lines = text.splitlines()
    parser = _Parser(stem)
    start = _front_matter_end(lines)
    if start:
        parser.report.append(ReportLine(1, start, False, "front matter skipped"))
        for match in re.finditer(r"flashcards(/[\w/-]+)?", "\n".join(lines[:start])):
            parser.use_tag(match.group(1))
            break
    block: list[_Line] = []
    fence, fence_start = "", 0

    def flush() -> None:
        if block:
            parser.paragraph(block[:])
            block.clear()

    for line in _strip_comments(lines, start, parser.report):
        fenced = _FENCE.match(line.text)
        if fence:
            if fenced and fenced.group(1)[0] == fence[0] and len(fenced.group(1)) >= len(fence):
                parser.skip_lines(fence_start, line.number, "code block skipped")
                fence = ""
            continue
        if fenced:
            flush()
            fence, fence_start = fenced.group(1), line.number
        elif not line.text.strip():
            flush()
        elif _HEADING.match(line.text):
            flush()
            parser.skip_lines(line.number, line.number, "heading skipped")
        elif _TAG.search(_masked(line.text)):
            flush()  # a tag applies to what follows it, not to the paragraph above
            tagged = parser.tags(line)
            if tagged is not None:
                block.append(tagged)
        else:
            block.append(line)
    if fence:
        parser.skip_lines(fence_start, len(lines), "unclosed code block skipped")
    flush()
    if parser.pending:
        parser.use_tag(None)
    for deck in parser.decks.values():
        if not deck.cards:
            parser.skip_lines(1, 1, f"deck {deck.name} has no cards: not written")
    parser.report.sort(key=lambda r: (r.line, r.end))
    decks = [deck for deck in parser.decks.values() if deck.cards]
    return ObsidianImport(decks=decks, report=parser.report)

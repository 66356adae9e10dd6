"""A package's notes and cards rows, built in one pass and inserted in bulk.

genanki writes one note (and each of its cards) per `execute`, after a template analysis per
note; this writes the same columns with one `executemany` per table. Which cards a note gets
follows Anki's own card generation for our four notetypes (checked against Anki in the tests):
a template whose only field is empty gives no card, a cloze note one card per distinct
cloze number (nested ones too), and a note that would get none gets the first card, as Anki
gives every note at least one.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence

from studykit.export.plan import ModelKind, PlannedNote
from studykit.text.clozes import cloze_numbers

# Anki reads a field as empty when it holds nothing but ASCII white space, <br> and <div> tags.
_EMPTY_FIELD = re.compile(r"(?:[\t\n\v\f\r ]|</?(?:br|div) ?/?>)*", re.IGNORECASE)

NoteEntry = tuple[PlannedNote, str, int, int]
"""A note to write: the note, its GUID, its `mod` (its cards' too) and its cards' Anki deck."""
NoteType = tuple[int, int]
"""A notetype's id and number of fields."""
NoteRow = tuple[int, str, int, int, str, str, str]
CardRow = tuple[int, int, int, int, int]


def field_is_empty(text: str) -> bool:
    """Whether Anki counts the field as empty when it decides which cards a note has."""
    return _EMPTY_FIELD.fullmatch(text) is not None


def cloze_ords(text: str) -> list[int]:
    """The card ords of the cloze numbers in `text` (`cloze_numbers` less one), sorted."""
    return [number - 1 for number in cloze_numbers(text)]


def card_ords(kind: ModelKind, fields: Sequence[str]) -> Sequence[int]:
    """The template ords (cloze numbers - 1) of the cards Anki gives a note of ours."""
    if kind == "cloze":
        return cloze_ords(fields[0]) or (0,)
    if kind == "reversed":
        front, back = not field_is_empty(fields[0]), not field_is_empty(fields[1])
        return (0, 1) if front and back else (1,) if back else (0,)
    return (0,)  # one template: its card, even when empty


def _tag_text(tags: tuple[str, ...]) -> str:
    for tag in tags:
        if not tag or any(space.isspace() for space in tag):
            raise ValueError(f"Anki tag {tag!r} is empty or has white space")
    return f" {' '.join(tags)} "


def note_rows(
    entries: Iterable[NoteEntry], note_types: Mapping[ModelKind, NoteType], ids: Iterator[int]
) -> tuple[list[NoteRow], list[CardRow]]:
    """The notes' rows and their cards' rows; ids from `ids`, each note's before its cards'."""
    tag_texts: dict[tuple[str, ...], str] = {}
    note_out: list[NoteRow] = []
    card_out: list[CardRow] = []
    for planned, guid, mod, deck in entries:
        fields, kind = planned.fields, planned.model
        model, width = note_types[kind]
        if len(fields) != width:
            raise ValueError(f"a {kind} note has {len(fields)} fields, not {width}")
        tags = tag_texts.get(planned.tags)
        if tags is None:
            tags = tag_texts[planned.tags] = _tag_text(planned.tags)
        note = next(ids)
        note_out.append((note, guid, model, mod, tags, "\x1f".join(fields), fields[0]))
        card_out += [(next(ids), note, deck, ord_, mod) for ord_ in card_ords(kind, fields)]
    return note_out, card_out


def insert_rows(cursor: sqlite3.Cursor, notes: list[NoteRow], cards: list[CardRow]) -> None:
    """Insert the rows with genanki's constant columns: new cards, due 0, no flags."""
    # Building the two tables' indexes once, after the rows, costs a third less than
    # updating them row by row.
    indexes = cursor.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
        "AND tbl_name IN ('notes', 'cards')"
    ).fetchall()
    for name, _ in indexes:
        cursor.execute(f'DROP INDEX "{name}"')
    cursor.executemany("INSERT INTO notes VALUES (?, ?, ?, ?, -1, ?, ?, ?, 0, 0, '')", notes)
    cursor.executemany(
        "INSERT INTO cards VALUES (?, ?, ?, ?, ?, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '')", cards
    )
    for _, sql in indexes:
        cursor.execute(sql)

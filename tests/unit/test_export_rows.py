"""Notes and cards written in bulk: the cards Anki gives each note, the rows genanki would write."""

from __future__ import annotations

import random
import sqlite3
import tempfile
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import genanki
import pytest
from anki.collection import Collection

from studykit.export import rows
from studykit.export.anki import note_guid, write_package
from studykit.export.apkgfile import anki_deck_id, write_apkg
from studykit.export.apkgfile import models as notetypes
from studykit.export.plan import ExportPlan, ModelKind, PlannedDeck, PlannedNote
from tests.unit.test_export_anki import import_package

NOW = 1_750_000_000
KINDS: tuple[ModelKind, ...] = ("basic", "reversed", "cloze", "type-in")
Fields = tuple[ModelKind, tuple[str, ...]]

# Field pieces Anki reads as empty, as text, or as the edges of its cloze syntax.
BLANKS = ["", " ", "\t\n", "<br>", "<BR/>", "<br />", "<div></div>", "<Div >", "</div>"]
TEXTS = ["x", "&nbsp;", "\xa0", "<p></p>", "<br  >", "<span></span>", "<b>bold</b>", "42", "ü"]
CLOZE_EDGES = ["}}", "{{", "::", "{{c", "{{c0::", "{{C2::", "{{c 2::", "{{c٣::", "{{c2:", "}"]


def _cloze_text(rng: random.Random, depth: int = 0) -> str:
    """Text with cloze deletions: nested, unclosed, numbered 0 to past Anki's limits."""
    parts = []
    for _ in range(rng.randint(0, 4)):
        roll = rng.random()
        if roll < 0.45 and depth < 3:
            number = rng.choice([0, 1, 2, 3, 4, 7, 12, 499, 500, 501, 65535, 65536, 10**12])
            body = _cloze_text(rng, depth + 1)
            hint = rng.choice(["", "", "::hint", "::"])
            close = "}}" if rng.random() < 0.85 else rng.choice(["", "}"])
            parts.append(f"{{{{c{rng.choice(['', '0'])}{number}::{body}{hint}{close}")
        elif roll < 0.6:
            parts.append(rng.choice(CLOZE_EDGES))
        else:
            parts.append(rng.choice(BLANKS + TEXTS))
    return rng.choice(["", " "]).join(parts)


def _field(rng: random.Random) -> str:
    return "".join(rng.choice(BLANKS + TEXTS) for _ in range(rng.randint(0, 2)))


def _fields(rng: random.Random, kind: ModelKind) -> tuple[str, ...]:
    if kind == "cloze":
        return (_cloze_text(rng), _field(rng), _field(rng))
    return tuple(_field(rng) for _ in range(len(notetypes()[kind].fields)))


class _NoCards(genanki.Note):  # type: ignore[misc]
    """A note written without cards, for Anki to generate them."""

    @property
    def cards(self) -> list[Any]:
        return []


def _anki_cards(tmp_path: Path, col: Collection, notes: list[Fields]) -> list[list[int]]:
    """The card ords Anki's own card generation gives each note."""
    models = notetypes()
    deck = genanki.Deck(anki_deck_id("oracle"), "oracle")
    for number, (kind, fields) in enumerate(notes):
        deck.add_note(_NoCards(model=models[kind], fields=list(fields), guid=str(number)))
    path = tmp_path / "no-cards.apkg"
    genanki.Package([deck]).write_to_file(str(path), timestamp=NOW)
    import_package(col, path)
    note_ids = col.find_notes("")
    assert len(note_ids) == len(notes) and col.card_count() == 0
    col.after_note_updates(list(note_ids), mark_modified=False, generate_cards=True)
    ords: dict[int, list[int]] = {}
    for note_id in note_ids:
        note = col.get_note(note_id)
        ords[int(note.guid)] = sorted(card.ord for card in note.cards())
    return [ords[number] for number in range(len(notes))]


def test_card_ords_are_the_cards_anki_generates(tmp_path: Path, collection: Collection) -> None:
    rng = random.Random(14)
    notes = [(kind, _fields(rng, kind)) for kind in KINDS for _ in range(150)]
    notes += [("cloze", (_cloze_text(rng), "", "")) for _ in range(300)]
    expected = _anki_cards(tmp_path, collection, notes)
    got = [list(rows.card_ords(kind, fields)) for kind, fields in notes]
    # Past c500 Anki makes a card per number, all the 500th (a note with two cards of one
    # ord); the writer makes the one.
    wrong = [(n, g, e) for n, g, e in zip(notes, got, expected, strict=True) if g != sorted(set(e))]
    assert not wrong, wrong[:5]
    assert {o for e in expected for o in e if e.count(o) > 1} == {499}
    # The sample holds the cases that matter, not only easy ones.
    kinds = [kind for kind, _ in notes]
    assert {len(e) for k, e in zip(kinds, expected, strict=True) if k == "cloze"} >= {1, 2, 3, 4}
    assert {tuple(e) for k, e in zip(kinds, expected, strict=True) if k == "reversed"} == {
        (0,),
        (1,),
        (0, 1),
    }
    assert any(499 in e for e in expected)


def _plain_notes(rng: random.Random, count: int) -> list[Fields]:
    """Notes as our exports make them: fronts with text, backs maybe empty, flat clozes."""
    notes: list[Fields] = []
    for _ in range(count):
        kind = rng.choice(KINDS)
        words = [rng.choice(TEXTS[:1] + TEXTS[6:]) for _ in range(4)]
        if kind == "cloze":
            numbers = rng.sample(range(1, 12), rng.randint(1, 4))
            text = " ".join(f"{w} {{{{c{n}::{w}}}}}" for w, n in zip(words, numbers, strict=False))
            notes.append((kind, (text, rng.choice(["", "extra"]), "")))
        else:
            back = rng.choice(["", "", "back <i>x</i>"])
            fields = (" ".join(words), back, "src") if kind != "type-in" else ("q", "1", back, "")
            notes.append((kind, fields))
    return notes


def test_card_ords_agree_with_genanki_on_notes_like_ours() -> None:
    models = notetypes()
    notes = _plain_notes(random.Random(6), 2000)
    for kind, fields in notes:
        theirs = sorted(card.ord for card in genanki.Note(models[kind], list(fields)).cards)
        assert list(rows.card_ords(kind, fields)) == theirs, (kind, fields)
    assert {len(rows.card_ords(kind, fields)) for kind, fields in notes} >= {1, 2, 3, 4}


def test_nested_clozes_get_cards_that_genanki_misses() -> None:
    text = "{{c1::outer {{c2::inner}} text}} and {{c3::x}}"
    assert rows.cloze_ords(text) == [0, 1, 2]
    theirs = genanki.Note(notetypes()["cloze"], [text, "", ""]).cards
    assert sorted(card.ord for card in theirs) == [0, 2]


def test_note_guid_is_genankis_guid_for() -> None:
    rng = random.Random(3)
    pieces = ["studykit", "deck", "card-1", "", "__", "ü", "variant-7", "日本", "a" * 40]
    keys = [tuple(rng.choice(pieces) for _ in range(rng.randint(1, 4))) for _ in range(20_000)]
    keys += [("studykit", f"d{n}", f"c{n}") for n in range(5_000)]
    assert all(note_guid(key) == genanki.guid_for(*key) for key in keys)


def _plan(notes: list[Fields], rng: random.Random) -> ExportPlan:
    decks = tuple(PlannedDeck(f"deck-{n}", f"Top::Deck {n}", f"<p>about {n}</p>") for n in range(3))
    tag_sets = [(), ("a",), ("a", "b_c"), ("removed", "x::y")]
    planned = []
    for number, (kind, fields) in enumerate(notes):
        deck = rng.choice(decks).id  # interleaved: the writer groups notes deck by deck
        key = ("studykit", deck, f"card-{number}")
        planned.append(PlannedNote(kind, deck, key[2], key, fields, rng.choice(tag_sets)))
    return ExportPlan(decks=decks, notes=tuple(planned), unbaked=())


class _Stamped(genanki.Note):  # type: ignore[misc]
    """As notes were written before: genanki's own, with a modification time each."""

    def __init__(self, mod: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mod = mod

    def write_to_db(self, cursor: Any, timestamp: float, deck_id: int, id_gen: Any) -> None:
        super().write_to_db(cursor, self.mod, deck_id, id_gen)


def _genanki_package(plan: ExportPlan, mods: dict[str, int], path: Path) -> None:
    models = notetypes()
    decks = {
        d.id: genanki.Deck(anki_deck_id(d.id), d.name, description=d.description)
        for d in plan.decks
    }
    for planned in plan.notes:
        guid = genanki.guid_for(*planned.guid_key)
        decks[planned.deck_id].add_note(
            _Stamped(
                mods[guid],
                model=models[planned.model],
                fields=list(planned.fields),
                tags=list(planned.tags),
                guid=guid,
            )
        )
    genanki.Package(list(decks.values())).write_to_file(str(path), timestamp=NOW)


def _tables(package: Path, tmp_path: Path) -> dict[str, list[tuple[Any, ...]]]:
    folder = tmp_path / package.stem
    with zipfile.ZipFile(package) as archive:
        archive.extract("collection.anki2", folder)
    db = sqlite3.connect(folder / "collection.anki2")
    try:
        names = [
            name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
        tables = {name: db.execute(f"SELECT * FROM {name} ORDER BY 1").fetchall() for name in names}
        schema = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"
        tables["sqlite_master"] = db.execute(schema).fetchall()
        return tables
    finally:
        db.close()


def test_rows_are_the_rows_genanki_writes(tmp_path: Path) -> None:
    rng = random.Random(9)
    plan = _plan(_plain_notes(rng, 600), rng)
    guids = [note_guid(planned.guid_key) for planned in plan.notes]
    mods = {guid: NOW - rng.randint(0, 10**6) for guid in guids[::2]}  # the rest: NOW
    path = tmp_path / "bulk.apkg"
    counts = write_apkg(plan, path, guids, mods, NOW, None, None)
    ours = _tables(path, tmp_path)
    _genanki_package(plan, {guid: mods.get(guid, NOW) for guid in guids}, tmp_path / "g.apkg")
    theirs = _tables(tmp_path / "g.apkg", tmp_path)
    assert ours.keys() == theirs.keys()
    for table in ours.keys() - {"cards"}:
        assert ours[table] == theirs[table], table
    # genanki numbers a note's cards in the order of a set of ords; the writer, by ord.
    assert [row[0] for row in ours["cards"]] == [row[0] for row in theirs["cards"]]
    by_note = sorted(row[1:] for row in ours["cards"])
    assert by_note == sorted(row[1:] for row in theirs["cards"])
    assert counts.cards == len(ours["cards"]) > len(plan.notes) == len(ours["notes"]) == 600
    assert len({row[3] for row in ours["notes"]}) > 100  # the mods went in


def test_a_tag_with_white_space_is_refused(tmp_path: Path) -> None:
    plan = _plan([("basic", ("front", "back", ""))], random.Random(1))
    bad = plan.notes[0]._replace(tags=("two words",))
    with pytest.raises(ValueError, match="white space"):
        write_package(replace(plan, notes=(bad,)), tmp_path / "bad.apkg")


def _note(kind: ModelKind, deck: str, card: str, fields: tuple[str, ...]) -> PlannedNote:
    return PlannedNote(kind, deck, card, ("studykit", deck, card), fields, (deck, kind))


def test_a_bulk_written_package_has_the_cards_anki_expects(
    tmp_path: Path, collection: Collection
) -> None:
    decks = (PlannedDeck("one", "Bulk::One", ""), PlannedDeck("two", "Bulk::Two", ""))
    cloze = "Clozes {{c1::first}} {{c2::second}} {{c3::third {{c5::nested}} end}}"
    notes = (
        _note("basic", "one", "basic", ("Basic front", "Basic back", "src")),
        _note("reversed", "two", "both", ("Both front", "Both back", "")),
        _note("reversed", "one", "oneway", ("Oneway front", "", "")),
        _note("reversed", "two", "blank", ("Blank front", "<br>", "")),
        _note("cloze", "one", "cloze", (cloze, "extra", "")),
        _note("type-in", "two", "typed", ("Typed front", "42", "Typed back", "")),
    )
    plan = ExportPlan(decks=decks, notes=notes, unbaked=())
    counts = write_package(plan, tmp_path / "bulk.apkg", timestamp=NOW)
    assert (counts.notes, counts.cards) == (6, 1 + 2 + 1 + 1 + 4 + 1)
    log = import_package(collection, counts.path)
    assert len(log.new) == 6 and collection.card_count() == counts.cards
    expected = {"Basic": [0], "Both": [0, 1], "Oneway": [0], "Blank": [0], "Clozes": [0, 1, 2, 4]}
    expected["Typed"] = [0]
    for word, ords in expected.items():
        cards = [collection.get_card(card) for card in collection.find_cards(f"{word}*")]
        assert sorted(card.ord for card in cards) == ords, word
        note = cards[0].note()
        deck = "Bulk::One" if "one" in note.tags else "Bulk::Two"
        assert {collection.decks.name(card.did) for card in cards} == {deck}
        assert note.mod == NOW and all(card.mod == NOW for card in cards)
    both = sorted(collection.find_cards("Both*"), key=lambda c: collection.get_card(c).ord)
    assert "Both back" in collection.get_card(both[1]).question()
    nested = next(
        c for c in map(collection.get_card, collection.find_cards("Clozes*")) if c.ord == 4
    )
    assert "[...]" in nested.question() and "third" in nested.question()
    assert "nested" in nested.answer()
    assert not collection.get_empty_cards().notes  # no card Anki would call empty
    report, ok = collection.fix_integrity()  # Check Database: it finds nothing to fix
    assert ok and report.splitlines() == ["Database rebuilt and optimized."], report
    assert collection.card_count() == counts.cards


def test_writing_a_package_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    temporary = tmp_path / "temporary"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    rng = random.Random(2)
    plan = _plan(_plain_notes(rng, 20), rng)
    counts = write_package(plan, tmp_path / "out" / "deck.apkg", timestamp=NOW)
    assert counts.path.exists() and counts.cards >= 20
    assert list(temporary.iterdir()) == []  # genanki's own writer leaves its collection there
    assert sorted(p.name for p in counts.path.parent.iterdir()) == ["deck.apkg"]

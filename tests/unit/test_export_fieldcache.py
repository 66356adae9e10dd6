"""Rendered field HTML cached in the export ledger: reused when unchanged, never when stale."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from studykit.content.loading import Library, load_library
from studykit.export import blobs, export_anki
from studykit.export.fieldcache import FieldCache
from studykit.export.ledger import ExportLedger
from studykit.export.plan import plan_export, selected_decks

DECK = r"""id: cached
name: Cached
cards:
  - id: one
    front: "What is $h_t = \tanh(W h_{t-1})$?"
    back: |
      A **recurrence**,
      on two lines.
  - id: two
    kind: cloze
    front: "The {{c1::gradient}} of $x^2$ is $2x$."
  - id: three
    front: "H<sub>2</sub>O | a table?"
    back: "- a list\n- of two"
"""


def library(root: Path, deck: str = DECK) -> Library:
    (root / "decks").mkdir(parents=True, exist_ok=True)
    (root / "decks" / "cached.yaml").write_text(deck, encoding="utf-8")
    loaded = load_library(root)
    assert not loaded.problems
    return loaded


def fields(lib: Library, cache: FieldCache | None = None) -> list[tuple[str, ...]]:
    render = cache.render if cache is not None else None
    plan = (
        plan_export(lib, selected_decks(lib), render=render)
        if render is not None
        else plan_export(lib, selected_decks(lib))
    )
    return [note.fields for note in plan.notes]


def test_an_unchanged_export_takes_every_field_from_the_cache(tmp_path: Path) -> None:
    lib = library(tmp_path / "root")
    ledger = ExportLedger.in_data_dir(tmp_path / "data")
    export_anki(lib, tmp_path / "1.apkg", ledger=ledger)
    cache = ledger.field_cache()
    assert len(cache.known) == 6  # front and back of three cards (one empty back)
    assert fields(lib, cache) == fields(lib)  # the same HTML as rendering afresh
    assert (cache.hits, len(cache.new)) == (6, 0)


def test_a_changed_field_is_rendered_again_and_the_rest_reused(tmp_path: Path) -> None:
    ledger = ExportLedger.in_data_dir(tmp_path / "data")
    export_anki(library(tmp_path / "root"), tmp_path / "1.apkg", ledger=ledger)
    edited = library(tmp_path / "root", DECK.replace("A **recurrence**", "A *loop*"))
    cache = ledger.field_cache()
    assert fields(edited, cache) == fields(edited)
    assert (cache.hits, len(cache.new)) == (5, 1)
    assert "<em>loop</em>" in next(iter(cache.new.values()))


def test_a_damaged_blob_is_ignored_and_rebuilt(tmp_path: Path) -> None:
    lib = library(tmp_path / "root")
    ledger = ExportLedger.in_data_dir(tmp_path / "data")
    export_anki(lib, tmp_path / "1.apkg", ledger=ledger)
    with closing(sqlite3.connect(ledger.path)) as db, db:  # the HTML changed, its checksum not
        db.execute(
            "UPDATE blobs SET body = CAST(replace(CAST(body AS TEXT), 'recurrence', 'tampered') "
            "AS BLOB) WHERE kind = 'html'"
        )
    cache = ledger.field_cache()
    assert cache.known == {}  # the deck's one blob: all of it is redone
    assert fields(lib, cache) == fields(lib)
    (said,) = export_anki(lib, tmp_path / "2.apkg", ledger=ledger).ledger_damage
    assert said.startswith("Export ledger damaged (cached)") and "rendered again" in said
    assert len(ledger.field_cache().known) == 6
    assert export_anki(lib, tmp_path / "3.apkg", ledger=ledger).ledger_damage == ()


@pytest.mark.parametrize(
    "damage",
    [
        "DROP TABLE blobs; CREATE TABLE blobs (key TEXT)",  # another shape
        "DROP TABLE blobs; CREATE VIEW blobs AS SELECT 1 AS x",  # not even a table
    ],
)
def test_an_unreadable_cache_is_ignored_and_rebuilt(tmp_path: Path, damage: str) -> None:
    lib = library(tmp_path / "root")
    ledger = ExportLedger.in_data_dir(tmp_path / "data")
    export_anki(lib, tmp_path / "1.apkg", ledger=ledger)
    with closing(sqlite3.connect(ledger.path)) as db:
        db.executescript(damage)
    assert ledger.field_cache().known == {}
    result = export_anki(lib, tmp_path / "2.apkg", ledger=ledger)
    assert result.notes == 3
    assert any("(all decks)" in line for line in result.ledger_damage)
    assert len(ledger.field_cache().known) == 6


def test_a_blob_over_the_size_limit_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = library(tmp_path / "root")
    ledger = ExportLedger.in_data_dir(tmp_path / "data")
    export_anki(lib, tmp_path / "1.apkg", ledger=ledger)
    assert len(ledger.field_cache().known) == 6
    monkeypatch.setattr(blobs, "MAX_BLOB_BYTES", 64)
    assert ledger.field_cache().known == {}
    assert blobs.Damage("html", "cached") in ledger.damaged
    assert export_anki(lib, tmp_path / "2.apkg", ledger=ledger).notes == 3


def test_html_of_another_renderer_is_never_served_and_is_dropped(tmp_path: Path) -> None:
    lib = library(tmp_path / "root")
    ledger = ExportLedger.in_data_dir(tmp_path / "data")
    export_anki(lib, tmp_path / "1.apkg", ledger=ledger)
    with closing(sqlite3.connect(ledger.path)) as db, db:  # as if written by an older renderer
        keys = list(ledger.field_cache().known)
        body = blobs.encode([keys, ["old way"] * len(keys)])
        db.execute(
            "UPDATE blobs SET version = 'older', body = ?, check_sum = ? WHERE kind = 'html'",
            (body, blobs.blob_check(body)),
        )
    cache = ledger.field_cache()
    assert cache.known == {}
    assert fields(lib, cache) == fields(lib)
    export_anki(lib, tmp_path / "2.apkg", ledger=ledger)
    with closing(sqlite3.connect(ledger.path)) as db:
        versions = {row[0] for row in db.execute("SELECT version FROM blobs WHERE kind = 'html'")}
    assert versions == {cache.version}


def test_each_deck_keeps_just_the_fields_of_its_latest_export(tmp_path: Path) -> None:
    ledger = ExportLedger.in_data_dir(tmp_path / "data")
    export_anki(library(tmp_path / "root"), tmp_path / "1.apkg", ledger=ledger)
    for word in ("loop", "cycle", "spiral"):  # edits do not pile up old HTML
        edited = library(tmp_path / "root", DECK.replace("A **recurrence**", f"A *{word}*"))
        export_anki(edited, tmp_path / "2.apkg", ledger=ledger)
    known = ledger.field_cache().known
    assert len(known) == 6 and any("<em>spiral</em>" in html for html in known.values())


def test_a_field_that_moved_to_another_deck_is_still_found(tmp_path: Path) -> None:
    ledger = ExportLedger.in_data_dir(tmp_path / "data")
    lib = library(tmp_path / "root")
    export_anki(lib, tmp_path / "1.apkg", ledger=ledger)
    moved = DECK.replace("id: cached\nname: Cached", "id: other\nname: Other")
    (tmp_path / "root" / "decks" / "other.yaml").write_text(moved, encoding="utf-8")
    both = load_library(tmp_path / "root")
    cache = ledger.field_cache()
    other = plan_export(both, selected_decks(both, ["other"]), render=cache.for_deck("other"))
    assert (cache.hits, len(cache.new)) == (6, 0)
    assert [note.fields for note in other.notes] == fields(lib)


def test_exporting_one_deck_keeps_the_others_html_until_their_deck_is_gone(
    tmp_path: Path,
) -> None:
    ledger = ExportLedger.in_data_dir(tmp_path / "data")
    root = tmp_path / "root"
    other = "id: other\nname: Other\ncards:\n  - id: lone\n    front: A *lone* card\n    back: Al\n"
    (root / "decks").mkdir(parents=True)
    (root / "decks" / "other.yaml").write_text(other, encoding="utf-8")
    export_anki(library(root), tmp_path / "1.apkg", ledger=ledger)
    assert len(ledger.field_cache().known) == 8  # six of `cached`, two of `other`
    export_anki(library(root), tmp_path / "2.apkg", deck_ids=["cached"], ledger=ledger)
    assert len(ledger.field_cache().known) == 8
    (root / "decks" / "other.yaml").unlink()
    export_anki(library(root), tmp_path / "3.apkg", ledger=ledger)
    assert len(ledger.field_cache().known) == 6


def test_the_same_text_as_cloze_and_as_plain_are_two_entries() -> None:
    from studykit.export.html import markdown_html

    cache = FieldCache()
    text = r"$k = {{c1::\frac{a}{b}}}$"
    assert cache.render(text, False) == markdown_html(text)
    assert cache.render(text, True) == markdown_html(text, cloze=True) != markdown_html(text)
    assert (cache.hits, len(cache.new)) == (0, 2)

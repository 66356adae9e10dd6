"""`.apkg` exports read back by Anki's own backend: counts, decks, rendering, updates."""

from __future__ import annotations

import math
import re
import sqlite3
from contextlib import closing
from pathlib import Path

from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest
from anki.import_export_pb2 import ImportAnkiPackageUpdateCondition, ImportResponse
from click.testing import CliRunner

from studykit.cli import cli
from studykit.content.loading import Library, load_library
from studykit.export import export_anki
from studykit.export.ledger import ExportLedger

NOTE = """id: demo-note
title: Demo note
sections:
  - id: intro
    title: "Intro to $x$"
    body: Some text.
"""

DECK = r"""id: demo
name: "Top::Middle::Demo deck"
note: demo-note
tags: [demo]
cards:
  - id: basic-one
    source: intro
    tags: [first]
    front: "Is $a < b$ & **bold**?"
    back: 'Yes: $\frac{1}{\sqrt{x}}$ holds.'
  - id: term
    kind: reversed
    front: Term
    back: "Definition with $x^2$"
  - id: recurrence
    kind: cloze
    front: 'Recurrence $h_t = {{c1::\tanh(W h_{t-1})}}$ and {{c2::two}}'
    back: Extra.
  - id: context
    kind: numeric
    front: "γ = {gamma}: effective context k?"
    params: {gamma: {choices: [0.9, 0.95, 0.97, 0.99]}}
    answer: "ceiling(log(0.01)/log(gamma))"
    tolerance: {abs: 0.5}
"""

OTHER = """id: other
name: "Top::Other"
cards:
  - id: lone
    front: Lone front
    back: Lone back
"""

IF_NEWER = ImportAnkiPackageUpdateCondition.IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER


def write_root(root: Path, deck: str = DECK) -> Path:
    (root / "content").mkdir(parents=True, exist_ok=True)
    (root / "decks").mkdir(parents=True, exist_ok=True)
    (root / "content" / "note.yaml").write_text(NOTE, encoding="utf-8")
    (root / "decks" / "demo.yaml").write_text(deck, encoding="utf-8")
    (root / "decks" / "other.yaml").write_text(OTHER, encoding="utf-8")
    return root


def import_package(col: Collection, path: Path) -> ImportResponse.Log:
    options = ImportAnkiPackageOptions(update_notes=IF_NEWER, update_notetypes=IF_NEWER)
    request = ImportAnkiPackageRequest(package_path=str(path), options=options)
    return col.import_anki_package(request).log


def only_card(col: Collection, search: str) -> str:
    ids = col.find_cards(search)
    assert len(ids) == 1, (search, ids)
    return str(ids[0])


def test_export_imports_into_anki_with_decks_tags_and_mathjax(
    tmp_path: Path, collection: Collection
) -> None:
    library = load_library(write_root(tmp_path / "root"))
    assert not library.problems
    result = export_anki(library, tmp_path / "out.apkg", deck_ids=["demo"], variants=3)
    baked = len(result.unbaked) == 0
    assert result.notes == 3 + 1  # a computed card is one note, its variants baked in
    assert result.cards == 1 + 2 + 2 + 1
    if not baked:
        assert result.unbaked == ("demo/context",)

    log = import_package(collection, result.path)
    assert len(log.new) == result.notes
    assert collection.note_count() == result.notes
    assert collection.card_count() == result.cards
    names = {d.name for d in collection.decks.all_names_and_ids()}
    assert {"Top", "Top::Middle", "Top::Middle::Demo deck"} <= names
    assert "Top::Other" not in names

    card = collection.get_card(collection.find_cards('"Is*bold*"')[0])
    question, answer = card.question(), card.answer()
    assert r"\(a &lt; b\)" in question and "<strong>bold</strong>" in question
    assert r"\(\frac{1}{\sqrt{x} }\)" in answer
    assert r"Intro to \(x\)" in answer  # the source section's title
    assert "$" not in question + answer
    assert set(card.note().tags) == {"demo", "first"}
    assert collection.decks.name(card.did) == "Top::Middle::Demo deck"

    term = sorted(collection.find_cards("Term"), key=lambda cid: collection.get_card(cid).ord)
    assert len(term) == 2
    assert r"Definition with \(x^2\)" in collection.get_card(term[1]).question()

    clozes = [collection.get_card(cid) for cid in collection.find_cards("Recurrence")]
    assert sorted(c.ord for c in clozes) == [0, 1]
    first = next(c for c in clozes if c.ord == 0)
    assert "[...]" in first.question() and r"\(h_t =" in first.question()
    assert r"\tanh(W h_{t-1})" in first.answer()

    (typed,) = [collection.get_card(cid) for cid in collection.find_cards("effective")]
    assert "[[type:Answer]]" in typed.question()
    assert r"\lceil" in typed.answer()  # the formula, as maths
    assert typed.note().note_type()["name"] == "studykit computed"  # type: ignore[index]
    variants = re.findall(
        r'<div class=sk-variant data-sk-answer="([^"]*)" data-sk-check="[^"]*" hidden>'
        r"<div class=sk-v-front>(.*?)</div><div class=sk-v-back>(.*?)</div></div>",
        typed.question(),  # once there; the back has them twice (above and below the line)
        re.DOTALL,
    )
    assert typed.answer().count("<div class=sk-variant ") == 2 * len(variants)
    assert len(variants) == (3 if baked else 1)
    if baked:  # each variant's value, and the answer to type, agree with the closed form
        for answer, front, back in variants:
            drawn = re.search(r"γ = ([0-9.]+):", front)
            assert drawn is not None
            gamma = float(drawn.group(1))
            expected = math.ceil(math.log(0.01) / math.log(gamma))
            assert answer == str(expected)
            assert "Accepted: ±0.5." in back
            assert f"= {expected}\\]" in back
        assert typed.note()["Answer"] == variants[0][0]  # Anki's comparison: the first


def test_editing_a_card_updates_its_note_instead_of_adding_one(
    tmp_path: Path, collection: Collection
) -> None:
    root = write_root(tmp_path / "root")
    ledger = ExportLedger.in_data_dir(tmp_path / "data")
    first = export_anki(load_library(root), tmp_path / "one.apkg", ledger=ledger)
    assert len(import_package(collection, first.path).new) == first.notes

    edited = DECK.replace("'Yes: $\\frac{1}{\\sqrt{x}}$ holds.'", "'Changed: $y > 0$.'")
    assert edited != DECK
    (root / "decks" / "demo.yaml").write_text(edited, encoding="utf-8")
    # Same second as the first export: the ledger still makes the changed note newer.
    second = export_anki(load_library(root), tmp_path / "two.apkg", ledger=ledger)
    log = import_package(collection, second.path)
    assert len(log.new) == 0
    assert len(log.updated) == 1
    assert collection.note_count() == first.notes
    card = collection.get_card(collection.find_cards('"Is*bold*"')[0])
    assert r"Changed: \(y &gt; 0\)." in card.answer()

    # Importing the same package again changes nothing.
    again = import_package(collection, second.path)
    assert (len(again.new), len(again.updated)) == (0, 0)


def test_bundled_decks_export_whole_and_without_dollars(
    tmp_path: Path, collection: Collection, bundled_library: Library
) -> None:
    library = bundled_library
    result = export_anki(library, tmp_path / "bundled.apkg")
    import_package(collection, result.path)
    assert collection.note_count() == result.notes
    assert collection.card_count() == result.cards
    assert result.notes >= sum(len(d.cards) for d in library.decks.values())
    for note_id in collection.find_notes(""):
        fields = collection.get_note(note_id).fields
        assert not any("$" in field for field in fields), fields


def test_cli_writes_the_package_and_reports_counts(tmp_path: Path) -> None:
    root = write_root(tmp_path / "root")
    out = tmp_path / "cli.apkg"
    args = ["--root", str(root), "--data-dir", str(tmp_path / "data"), "export", "anki"]
    result = CliRunner().invoke(cli, [*args, "-o", str(out), "--deck", "other"])
    assert result.exit_code == 0, result.output
    assert f"Wrote {out}: 1 notes, 1 cards in 1 deck." in result.output
    assert out.stat().st_size > 0
    assert (tmp_path / "data" / "anki-export.sqlite3").exists()


def test_cli_unknown_deck_is_a_usage_error(tmp_path: Path) -> None:
    root = write_root(tmp_path / "root")
    args = ["--root", str(root), "--data-dir", str(tmp_path / "data"), "export", "anki"]
    result = CliRunner().invoke(cli, [*args, "--deck", "nope", "-o", str(tmp_path / "x.apkg")])
    assert result.exit_code == 2
    assert "unknown deck 'nope'" in result.output
    assert not (tmp_path / "x.apkg").exists()


def test_a_copy_of_the_root_exports_the_same_decks_and_notes(
    tmp_path: Path, collection: Collection
) -> None:
    first = export_anki(load_library(write_root(tmp_path / "a")), tmp_path / "a.apkg")
    second = export_anki(load_library(write_root(tmp_path / "b")), tmp_path / "b.apkg")
    import_package(collection, first.path)
    decks = sorted((d.id, d.name) for d in collection.decks.all_names_and_ids())
    log = import_package(collection, second.path)
    assert len(log.new) == 0
    assert sorted((d.id, d.name) for d in collection.decks.all_names_and_ids()) == decks


def test_cli_shows_progress_for_a_long_export(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "decks").mkdir(parents=True)
    cards = "".join(
        f"  - id: c{i}\n    front: Q{i} $x_{{{i}}}$\n    back: A{i}\n" for i in range(600)
    )
    (root / "decks" / "big.yaml").write_text(f"id: big\nname: Big\ncards:\n{cards}", "utf-8")
    out = tmp_path / "big.apkg"
    args = ["--root", str(root), "--data-dir", str(tmp_path / "data"), "export", "anki"]
    result = CliRunner().invoke(cli, [*args, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "Exporting" in result.stderr
    assert f"Wrote {out}: 600 notes, 600 cards in 1 deck." in result.stdout


def test_a_removed_card_goes_out_once_more_tagged_removed(
    tmp_path: Path, collection: Collection
) -> None:
    root = write_root(tmp_path / "root")
    data = tmp_path / "data"
    args = ["--root", str(root), "--data-dir", str(data), "export", "anki"]
    runner = CliRunner()
    assert runner.invoke(cli, [*args, "-o", str(tmp_path / "1.apkg")]).exit_code == 0
    import_package(collection, tmp_path / "1.apkg")
    notes = collection.note_count()

    without = DECK.replace(
        "  - id: term\n    kind: reversed\n    front: Term\n",
        "  - id: term2\n    kind: reversed\n    front: Other term\n",
    )
    assert without != DECK
    (root / "decks" / "demo.yaml").write_text(without, encoding="utf-8")
    second = runner.invoke(cli, [*args, "-o", str(tmp_path / "2.apkg")])
    assert second.exit_code == 0, second.output
    assert "1 removed card(s) or variant(s) exported once more" in second.output
    assert "demo/term" in second.output and "demo/term2" not in second.output
    log = import_package(collection, tmp_path / "2.apkg")
    assert (len(log.new), len(log.updated)) == (1, 1)
    assert collection.note_count() == notes + 1
    tagged = collection.find_notes("tag:studykit::removed")
    assert len(tagged) == 1
    assert collection.get_note(tagged[0])["Front"] == "Term"

    # Once only; a card that comes back is current again and can be removed again later.
    third = runner.invoke(cli, [*args, "-o", str(tmp_path / "3.apkg")])
    assert "removed card" not in third.output
    (root / "decks" / "demo.yaml").write_text(DECK, encoding="utf-8")
    runner.invoke(cli, [*args, "-o", str(tmp_path / "4.apkg")])
    (root / "decks" / "demo.yaml").write_text(without, encoding="utf-8")
    fifth = runner.invoke(cli, [*args, "-o", str(tmp_path / "5.apkg")])
    assert "demo/term" in fifth.output


def test_exporting_one_deck_does_not_call_the_others_removed(tmp_path: Path) -> None:
    root = write_root(tmp_path / "root")
    ledger = ExportLedger.in_data_dir(tmp_path / "data")
    export_anki(load_library(root), tmp_path / "all.apkg", ledger=ledger)
    only = export_anki(load_library(root), tmp_path / "o.apkg", deck_ids=["other"], ledger=ledger)
    assert only.removed == ()
    (root / "decks" / "other.yaml").unlink()
    everything = export_anki(load_library(root), tmp_path / "rest.apkg", ledger=ledger)
    assert everything.removed == ("other/lone",)


def _old_variant_notes(root: Path, ledger: ExportLedger, path: Path) -> None:
    """Export `demo` as studykit did before a computed card was one note: a type-in note per
    baked variant (GUID key ending `variant-SEED`), recorded in the ledger."""
    from dataclasses import replace

    from studykit.export.anki import write_package
    from studykit.export.html import markdown_html
    from studykit.export.plan import PlannedNote, plan_export
    from studykit.export.variants import baked_variants

    library = load_library(root)
    deck = library.decks["demo"]
    card = next(c for c in deck.cards if c.id == "context")
    plan = plan_export(library, [deck], variants=0)
    kept = [note for note in plan.notes if note.card_id != "context"]
    for variant in baked_variants(deck, card, 3) or ():
        check = f"<div id=sk-check-data hidden>{variant.check}</div>"
        fields = (
            markdown_html(variant.front),
            variant.answer,
            markdown_html(variant.back) + check,
            "",
        )
        key = ("studykit", "demo", "context", f"variant-{variant.seed}")
        kept.append(PlannedNote("type-in", "demo", "context", key, fields, ("demo",)))
    write_package(replace(plan, notes=tuple(kept)), path, ledger=ledger)


def test_the_variant_notes_of_before_go_out_once_more_tagged_removed(
    tmp_path: Path, collection: Collection
) -> None:
    root = write_root(tmp_path / "root")
    data = tmp_path / "data"
    _old_variant_notes(root, ExportLedger.in_data_dir(data), tmp_path / "old.apkg")
    import_package(collection, tmp_path / "old.apkg")
    assert len(collection.find_notes("effective")) == 3

    args = ["--root", str(root), "--data-dir", str(data), "export", "anki", "--deck", "demo"]
    now = CliRunner().invoke(cli, [*args, "--variants", "3", "-o", str(tmp_path / "new.apkg")])
    assert now.exit_code == 0, now.output
    assert "3 removed card(s) or variant(s) exported once more" in now.output
    listed = re.findall(r"demo/context \(variant \d+\)", now.output)
    assert len(listed) == 3, now.output
    log = import_package(collection, tmp_path / "new.apkg")
    assert len(log.new) == 1  # the computed card's one note
    tagged = collection.find_notes("tag:studykit::removed")
    kept = set(collection.find_notes("effective")) - set(tagged)
    assert (len(tagged), len(kept)) == (3, 1)
    for nid in tagged:  # the variant as it was, still a working type-in note
        assert "sk-check-data" in collection.get_note(nid)["Back"]
    (one,) = kept
    assert collection.get_note(one)["Variants"].count("class=sk-variant ") == 3


def test_line_breaks_lists_and_allowed_tags_reach_anki(
    tmp_path: Path, collection: Collection
) -> None:
    deck = """id: demo
name: Demo
cards:
  - id: lines
    front: "H<sub>2</sub>O <span style='color:red'>red</span>"
    back: |
      first line\\
      second line<br>third line
      - item one
      - item two
"""
    root = write_root(tmp_path / "root", deck)
    result = export_anki(load_library(root), tmp_path / "out.apkg", deck_ids=["demo"])
    import_package(collection, result.path)
    card = collection.get_card(collection.find_cards("deck:Demo")[0])
    assert "H<sub>2</sub>O &lt;span style='color:red'&gt;red&lt;/span&gt;" in card.question()
    answer = card.answer()
    assert "first line<br />\nsecond line<br>third line" in answer
    assert "<ul>\n<li>item one</li>\n<li>item two</li>\n</ul>" in answer


def test_each_line_of_a_side_is_a_line_in_anki(tmp_path: Path, collection: Collection) -> None:
    deck = """id: demo
name: Demo
cards:
  - id: lines
    front: |-
      A question
      on two lines?
    back: |-
      first line
      second line
      - item one
      - item two

      ```
      code one
      code two
      ```
  - id: gap
    kind: cloze
    front: |-
      The {{c1::first}} line
      and the second.
"""
    root = write_root(tmp_path / "root", deck)
    result = export_anki(load_library(root), tmp_path / "out.apkg", deck_ids=["demo"])
    import_package(collection, result.path)
    card = collection.get_card(collection.find_cards("card:1 question")[0])
    assert "A question<br />\non two lines?" in card.question()
    answer = card.answer()
    assert "<p>first line<br />\nsecond line</p>" in answer
    assert "<ul>\n<li>item one</li>\n<li>item two</li>\n</ul>" in answer
    assert "<pre><code>code one\ncode two\n</code></pre>" in answer  # code keeps its lines
    cloze = collection.get_card(collection.find_cards("card:1 -question")[0])
    assert "line<br />\nand the second." in cloze.question()


def test_cli_says_what_a_damaged_export_ledger_lost(tmp_path: Path) -> None:
    root = write_root(tmp_path / "root")
    data = tmp_path / "data"
    args = ["--root", str(root), "--data-dir", str(data), "export", "anki"]
    runner = CliRunner()
    first = runner.invoke(cli, [*args, "-o", str(tmp_path / "1.apkg")])
    assert first.exit_code == 0 and "ledger" not in first.stderr  # a fresh ledger is no damage
    with closing(sqlite3.connect(data / "anki-export.sqlite3")) as db, db:  # checksum kept
        db.execute(
            "UPDATE blobs SET body = CAST(upper(CAST(body AS TEXT)) AS BLOB) "
            "WHERE kind = 'stamps' AND deck_id = 'demo'"
        )
    second = runner.invoke(cli, [*args, "-o", str(tmp_path / "2.apkg")])
    assert second.exit_code == 0, second.output
    assert "studykit: Export ledger damaged (demo), now rebuilt: note times" in second.stderr
    third = runner.invoke(cli, [*args, "-o", str(tmp_path / "3.apkg")])
    assert third.exit_code == 0 and "ledger" not in third.stderr  # rebuilt by the second

"""The export ledger: a note's modification time moves only when its content changes."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from studykit.export import blobs
from studykit.export.blobs import Damage
from studykit.export.ledger import NOTES_VERSION, ExportLedger, damage_lines
from studykit.export.plan import ExportPlan, PlannedDeck, PlannedNote


def note(guid: str, deck: str = "d1", text: str = "", removed: bool = False) -> PlannedNote:
    """A basic note (its card id is its GUID) whose front is `text`."""
    key = ("studykit", deck, guid)
    return PlannedNote("basic", deck, guid, key, (text or guid, "", ""), (), removed=removed)


def record(
    ledger: ExportLedger, now: int, digests: dict[str, str], *notes: PlannedNote
) -> dict[str, int]:
    """Stamp and record `notes` (GUIDs as in `digests`, default "1") as one export would."""
    decks = {n.deck_id: PlannedDeck(n.deck_id, n.deck_id.upper(), "") for n in notes}
    plan = ExportPlan(tuple(decks.values()), notes, ())
    guids = [n.card_id for n in notes]
    with ledger.notes().stamping(plan, guids, {g: digests.get(g, "1") for g in guids}, now) as s:
        return s


def test_unchanged_notes_keep_their_time_and_changed_ones_move_forward(tmp_path: Path) -> None:
    ledger = ExportLedger.in_data_dir(tmp_path)
    assert record(ledger, 100, {}, note("a"), note("b")) == {"a": 100, "b": 100}
    # Same second: the changed note still gets a later time than Anki has.
    stamps = record(ledger, 100, {"b": "2"}, note("a"), note("b"), note("c"))
    assert stamps == {"a": 100, "b": 101, "c": 100}
    assert record(ledger, 500, {"b": "3"}, note("a"), note("b")) == {"a": 100, "b": 500}


def test_a_failed_export_records_nothing(tmp_path: Path) -> None:
    ledger = ExportLedger.in_data_dir(tmp_path)
    record(ledger, 100, {}, note("a"))
    plan = ExportPlan((PlannedDeck("d1", "D1", ""),), (note("a"),), ())
    with pytest.raises(OSError), ledger.notes().stamping(plan, ["a"], {"a": "2"}, 200):
        raise OSError("disk full")
    assert record(ledger, 300, {"a": "2"}, note("a")) == {"a": 300}


def test_gone_notes_are_those_recorded_before_absent_now_and_not_yet_sent_as_removed(
    tmp_path: Path,
) -> None:
    ledger = ExportLedger.in_data_dir(tmp_path)
    record(ledger, 100, {}, note("a"), note("b"), note("c", "d2"))

    def gone(present: set[str], decks: set[str] | None) -> dict[str, str]:
        return {g: n.fields[0] for g, (n, _) in ledger.notes().gone(present, decks).items()}

    assert gone({"a", "c"}, None) == {"b": "b"}
    assert gone({"a"}, {"d2"}) == {"c": "c"}
    record(ledger, 200, {}, note("a"), note("b", removed=True))
    assert gone({"a", "c"}, None) == {}
    record(ledger, 300, {"b": "2"}, note("b", text="B2"))  # b came back: current again
    assert gone({"a", "c"}, None) == {"b": "B2"}
    assert gone({"b", "c"}, None) == {"a": "a"}  # a's record stayed when b's deck was written


def test_two_exports_at_once_each_keep_their_notes(tmp_path: Path) -> None:
    ledger = ExportLedger.in_data_dir(tmp_path)
    first, second = ledger.notes(), ledger.notes()  # both read before either writes
    one = ExportPlan((PlannedDeck("d1", "D1", ""),), (note("a"),), ())
    other = ExportPlan((PlannedDeck("d1", "D1", ""),), (note("b"),), ())
    # The second is recorded first, and the first merges into it instead of writing over it.
    with (
        first.stamping(one, ["a"], {"a": "1"}, 100),
        second.stamping(other, ["b"], {"b": "1"}, 200),
    ):
        pass
    assert set(ledger.notes().gone(set(), None)) == {"a", "b"}
    assert record(ledger, 900, {}, note("a"), note("b")) == {"a": 100, "b": 200}


def test_a_damaged_stamps_blob_is_ignored_and_written_again(tmp_path: Path) -> None:
    ledger = ExportLedger.in_data_dir(tmp_path)
    record(ledger, 1000, {}, note("a"), note("b"))
    with closing(sqlite3.connect(ledger.path)) as db, db:  # a time changed, checksum not
        db.execute(
            "UPDATE blobs SET body = CAST(replace(CAST(body AS TEXT), '1000', '7000') AS BLOB) "
            "WHERE kind = 'stamps'"
        )
    # Unreadable: as if never exported (newer is safe for Anki; a wrong time is not).
    assert record(ledger, 2000, {}, note("a"), note("b")) == {"a": 2000, "b": 2000}
    assert set(ledger.damaged) == {Damage("stamps", "d1")}  # said, not silent
    ledger.damaged.clear()
    assert record(ledger, 3000, {}, note("a"), note("b")) == {"a": 2000, "b": 2000}
    assert ledger.damaged == []  # written again whole


def test_a_damaged_records_blob_loses_only_the_removed_notes(tmp_path: Path) -> None:
    ledger = ExportLedger.in_data_dir(tmp_path)
    record(ledger, 100, {}, note("a"), note("b", text="Bee"))
    with closing(sqlite3.connect(ledger.path)) as db, db:
        db.execute(
            "UPDATE blobs SET body = CAST(replace(CAST(body AS TEXT), 'Bee', 'Bug') AS BLOB) "
            "WHERE kind = 'records'"
        )
    assert ledger.notes().gone({"a"}, None) == {}  # not a note made up from damaged bytes
    assert ledger.damaged == [Damage("records", "d1")]
    assert record(ledger, 200, {}, note("a")) == {"a": 100}


def test_a_blob_of_the_wrong_shape_is_ignored_even_with_a_good_checksum(tmp_path: Path) -> None:
    ledger = ExportLedger.in_data_dir(tmp_path)
    record(ledger, 100, {}, note("a"))
    for body in (b"[" * 100_000 + b"]" * 100_000, b'{"a": 1}', b"[[1], [2], [3], [4]]"):
        with closing(ledger.connect()) as db, db:
            blobs.write_blob(db, "stamps", "d1", NOTES_VERSION, body)
        ledger.damaged.clear()
        assert ledger.notes().known == {}
        assert ledger.damaged == [Damage("stamps", "d1")]


def test_a_fresh_ledger_has_nothing_damaged(tmp_path: Path) -> None:
    ledger = ExportLedger.in_data_dir(tmp_path)
    assert ledger.notes().known == {} and ledger.field_cache().known == {}
    assert ledger.damaged == []


def test_damage_says_which_decks_and_what_was_lost_once_per_kind() -> None:
    found = [Damage("stamps", "b"), Damage("stamps", "a"), Damage("stamps", "a")]
    found += [Damage("html", ""), Damage("records", "\x1b]0;title\x07" + "x" * 200)]
    stamps, html, records = damage_lines(found)
    assert stamps.startswith("Export ledger damaged (a, b)") and "note times" in stamps
    assert "(all decks)" in html and "rendered again" in html
    assert "\x1b" not in records and "\\x1b" in records and len(records) < 200
    assert "cannot be sent as removed" in records

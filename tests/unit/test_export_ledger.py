"""The export ledger: a note's modification time moves only when its content changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from studykit.export.ledger import ExportLedger


def test_unchanged_notes_keep_their_time_and_changed_ones_move_forward(tmp_path: Path) -> None:
    ledger = ExportLedger.in_data_dir(tmp_path)
    with ledger.stamping({"a": "1", "b": "1"}, now=100) as stamps:
        assert stamps == {"a": 100, "b": 100}
    with ledger.stamping({"a": "1", "b": "2", "c": "1"}, now=100) as stamps:
        # Same second: the changed note still gets a later time than Anki has.
        assert stamps == {"a": 100, "b": 101, "c": 100}
    with ledger.stamping({"a": "1", "b": "3"}, now=500) as stamps:
        assert stamps == {"a": 100, "b": 500}


def test_a_failed_export_records_nothing(tmp_path: Path) -> None:
    ledger = ExportLedger.in_data_dir(tmp_path)
    with ledger.stamping({"a": "1"}, now=100):
        pass
    with pytest.raises(OSError), ledger.stamping({"a": "2"}, now=200):
        raise OSError("disk full")
    with ledger.stamping({"a": "2"}, now=300) as stamps:
        assert stamps == {"a": 300}


def test_gone_notes_are_those_recorded_before_absent_now_and_not_yet_sent_as_removed(
    tmp_path: Path,
) -> None:
    ledger = ExportLedger.in_data_dir(tmp_path)
    records = {"a": ("d1", "A"), "b": ("d1", "B"), "c": ("d2", "C")}
    with ledger.stamping({g: "1" for g in records}, now=100, records=records):
        pass
    assert ledger.gone({"a", "c"}, None) == {"b": "B"}
    assert ledger.gone({"a"}, {"d2"}) == {"c": "C"}
    with ledger.stamping({"a": "1"}, now=200, removed=["b"]):
        pass
    assert ledger.gone({"a", "c"}, None) == {}
    with ledger.stamping({"b": "1"}, now=300, records={"b": ("d1", "B2")}):
        pass  # b came back: current again
    assert ledger.gone({"a", "c"}, None) == {"b": "B2"}

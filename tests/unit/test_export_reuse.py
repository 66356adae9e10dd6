"""An export where nothing changed copies the package kept from the last one; any change builds."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from anki.collection import Collection
from click.testing import CliRunner

from studykit.cli import cli
from studykit.content.loading import load_library
from studykit.core.config import Settings
from studykit.export import COPIED, REUSED, export_anki
from studykit.export.ledger import ExportLedger
from studykit.export.reuse import KEPT_FILENAME
from studykit.srs.scheduler import Rating
from studykit.study.session import StudySession
from tests.anki_backend import database
from tests.conftest import FakeClock
from tests.unit.test_export_anki import DECK, import_package, write_root
from tests.unit.test_export_media import OTHER_PNG, PNG
from tests.unit.test_export_scheduling import import_with_scheduling

IMAGE_DECK = """id: pictured
name: Pictured
cards:
  - id: plot
    front: "What does this show? ![decay](decay.png)"
    back: A decay.
"""


def test_nothing_changed_copies_the_kept_package_and_each_change_builds_anew(
    tmp_path: Path, collection: Collection
) -> None:
    root = write_root(tmp_path / "root")
    data = tmp_path / "data"
    ledger = ExportLedger.in_data_dir(data)
    settings = Settings(root=root, data_dir=data)

    def export(name: str, settings: Settings = settings) -> tuple[bool, bytes]:
        result = export_anki(load_library(root), tmp_path / name, ledger=ledger, settings=settings)
        return result.reused, result.path.read_bytes()

    built, first = export("one.apkg")
    reused, second = export("two.apkg")
    assert (built, reused) == (False, True)
    assert second == first
    assert (data / KEPT_FILENAME).read_bytes() == first
    assert len(import_package(collection, tmp_path / "two.apkg").new) > 0

    edited = DECK.replace("'Yes: $\\frac{1}{\\sqrt{x}}$ holds.'", "'Changed: $y > 0$.'")
    (root / "decks" / "demo.yaml").write_text(edited, encoding="utf-8")
    reused, third = export("three.apkg")
    assert not reused and third != first
    log = import_package(collection, tmp_path / "three.apkg")
    assert (len(log.new), len(log.updated)) == (0, 1)
    card = collection.get_card(collection.find_cards('"Is*bold*"')[0])
    assert r"Changed: \(y &gt; 0\)." in card.answer()
    assert export("again.apkg")[0]

    # A preset is part of the package: another retention builds it again.
    stricter = Settings(root=root, data_dir=data, desired_retention=0.95)
    assert not export("four.apkg", stricter)[0]
    assert export("five.apkg", stricter)[0]

    # A kept package damaged since is noticed by its hash, and built again.
    kept = data / KEPT_FILENAME
    kept.write_bytes(kept.read_bytes()[:-10] + b"0123456789")
    reused, sixth = export("six.apkg", stricter)
    assert not reused and kept.read_bytes() == sixth


def test_an_image_with_other_bytes_builds_the_package_anew(tmp_path: Path) -> None:
    root = write_root(tmp_path / "root")
    (root / "decks" / "pictured.yaml").write_text(IMAGE_DECK, encoding="utf-8")
    image = root / "decks" / "decay.png"
    image.write_bytes(PNG)
    ledger = ExportLedger.in_data_dir(tmp_path / "data")

    def export() -> bool:
        return export_anki(load_library(root), tmp_path / "out.apkg", ledger=ledger).reused

    assert [export(), export()] == [False, True]
    image.write_bytes(OTHER_PNG)
    assert [export(), export()] == [False, True]


def test_with_scheduling_a_review_or_a_new_study_day_builds_anew(
    tmp_path: Path, make_session: Callable[..., StudySession], collection: Collection
) -> None:
    library = load_library(write_root(tmp_path / "root"))
    settings = Settings(root=library.root, data_dir=tmp_path / "d", enable_fuzzing=False)
    clock = FakeClock(datetime(2026, 3, 2, 12, 0, tzinfo=UTC))
    session = make_session(library, settings=settings, clock=clock)
    ledger = ExportLedger.in_data_dir(tmp_path / "data")

    def export(name: str) -> tuple[bool, int]:
        result = export_anki(library, tmp_path / name, ledger=ledger, session=session)
        assert result.scheduled
        return result.reused, result.revlog

    card = session.study_card("demo", "basic-one")
    session.answer(card, Rating.Good, duration_ms=3000)
    assert [export("one.apkg"), export("two.apkg")] == [(False, 1), (True, 1)]
    clock.advance(timedelta(minutes=20))
    session.answer(session.study_card("demo", "basic-one"), Rating.Good, duration_ms=3000)
    assert [export("three.apkg"), export("four.apkg")] == [(False, 2), (True, 2)]
    import_with_scheduling(collection, tmp_path / "four.apkg")  # the reused package holds both
    assert database(collection).scalar("SELECT count() FROM revlog") == 2
    clock.advance(timedelta(days=1))  # the same states, on another study day: new day numbers
    assert export("five.apkg") == (False, 2)


def test_cli_says_when_the_package_was_reused_and_where(tmp_path: Path) -> None:
    root = write_root(tmp_path / "root")
    out = tmp_path / "cli.apkg"
    args = ["--root", str(root), "--data-dir", str(tmp_path / "data"), "export", "anki"]
    first = CliRunner().invoke(cli, [*args, "-o", str(out)])
    second = CliRunner().invoke(cli, [*args, "-o", str(out)])
    elsewhere = CliRunner().invoke(cli, [*args, "-o", str(tmp_path / "new.apkg")])
    assert first.exit_code == second.exit_code == elsewhere.exit_code == 0, first.output
    assert REUSED not in first.output and COPIED not in first.output
    assert REUSED in second.output
    # A first export to a new path: nothing there was "unchanged"; the package was copied.
    assert REUSED not in elsewhere.output and COPIED in elsewhere.output
    assert (tmp_path / "new.apkg").read_bytes() == out.read_bytes()


def test_a_target_that_already_is_the_package_is_left_alone(tmp_path: Path) -> None:
    root = write_root(tmp_path / "root")
    ledger = ExportLedger.in_data_dir(tmp_path / "data")
    out = tmp_path / "out.apkg"
    first = export_anki(load_library(root), out, ledger=ledger)
    again = export_anki(load_library(root), out, ledger=ledger)
    assert (first.reused, again.reused, again.unchanged) == (False, True, True)
    other = export_anki(load_library(root), tmp_path / "other.apkg", ledger=ledger)
    assert (other.reused, other.unchanged) == (True, False)
    out.write_bytes(out.read_bytes()[:-1] + b"!")  # not the package any more: copied over
    mended = export_anki(load_library(root), out, ledger=ledger)
    assert (mended.reused, mended.unchanged) == (True, False)
    assert out.read_bytes() == (tmp_path / "other.apkg").read_bytes()


def test_a_package_written_where_the_kept_one_lives_is_not_lost(tmp_path: Path) -> None:
    root = write_root(tmp_path / "root")
    data = tmp_path / "data"
    ledger = ExportLedger.in_data_dir(data)
    for _ in range(3):
        result = export_anki(load_library(root), data / KEPT_FILENAME, ledger=ledger)
        assert not result.reused and result.path.stat().st_size > 0


def test_an_export_that_copies_the_kept_package_never_loads_genanki(tmp_path: Path) -> None:
    """Building a package needs genanki; copying the kept one does not (it costs ~0.1 s)."""
    root, data = write_root(tmp_path / "root"), tmp_path / "data"
    export_anki(load_library(root), tmp_path / "one.apkg", ledger=ExportLedger.in_data_dir(data))
    code = """
        import sys
        from pathlib import Path
        from studykit.content.loading import load_library
        from studykit.export import export_anki
        from studykit.export.ledger import ExportLedger
        root, out, data = map(Path, sys.argv[1:])
        result = export_anki(load_library(root), out, ledger=ExportLedger.in_data_dir(data))
        print(result.reused, "genanki" in sys.modules)
    """
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), str(root), str(tmp_path / "two.apkg"), data],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "False"]

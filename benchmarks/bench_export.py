"""Anki export of 10,000 generated cards vs raw genanki writing the same notes. Prints only.

Fresh: a new data dir, so nothing is cached. Nothing changed: exported before, so every
field's HTML comes from the export ledger's cache, no note is newer, and the package kept in
the data dir from the last export is copied (`export/reuse.py`) instead of built again.
"""

from __future__ import annotations

import gc
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import genanki
from common import report
from generated import write_yaml_root

from studykit.content.loading import load_library
from studykit.export import export_anki
from studykit.export.ledger import ExportLedger

CARDS = 10_000
REPEAT = 5


def _raw_genanki(library_decks: list[tuple[str, list[tuple[str, str]]]], path: Path) -> None:
    """The floor: one basic model, fields as written (no markdown, no maths), one write."""
    model = genanki.Model(
        1_999_999_999,
        "raw basic",
        fields=[{"name": "Front"}, {"name": "Back"}],
        templates=[{"name": "Card 1", "qfmt": "{{Front}}", "afmt": "{{Back}}"}],
    )
    decks = []
    for number, (name, cards) in enumerate(library_decks):
        deck = genanki.Deck(1_500_000_000 + number, name)
        for front, back in cards:
            deck.add_note(genanki.Note(model=model, fields=[front, back]))
        decks.append(deck)
    genanki.Package(decks).write_to_file(str(path))


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="studykit-bench-export-"))
    # genanki's writer leaves its temporary collection behind; keep those in our folder.
    tempdir, tempfile.tempdir = tempfile.tempdir, str(tmp)
    try:
        root = tmp / "root"
        write_yaml_root(root, cards=CARDS)
        library = load_library(root)
        assert not library.problems, library.problems[:3]
        raw_decks = [
            (deck.name, [(card.front, card.back or "") for card in deck.cards])
            for deck in library.decks.values()
        ]
        runs = iter(range(1_000))

        def fresh() -> None:  # a new data dir: an empty ledger and HTML cache
            data = tmp / f"fresh-{next(runs)}"
            result = export_anki(library, tmp / "ours.apkg", ledger=ExportLedger.in_data_dir(data))
            assert result.notes == CARDS

        warm = ExportLedger.in_data_dir(tmp / "warm")
        export_anki(library, tmp / "ours.apkg", ledger=warm)

        def unchanged() -> None:  # exported before, nothing changed since
            result = export_anki(library, tmp / "ours.apkg", ledger=warm)
            assert result.notes == CARDS and result.reused

        # Interleaved, so that a change in the machine's load hits all three alike; CPU time
        # too, which a busy machine disturbs less than wall time.
        runs_of = {"raw": lambda: _raw_genanki(raw_decks, tmp / "raw.apkg"), "fresh": fresh}
        runs_of["unchanged"] = unchanged
        wall: dict[str, list[float]] = {key: [] for key in runs_of}
        cpu: dict[str, list[float]] = {key: [] for key in runs_of}
        for _ in range(REPEAT):
            for key, run in runs_of.items():
                gc.collect()  # so that no run pays for the garbage of the one before
                started, cpu_started = time.perf_counter(), time.process_time()
                run()
                wall[key].append(time.perf_counter() - started)
                cpu[key].append(time.process_time() - cpu_started)
        baseline = statistics.median(wall["raw"])
        cpu_baseline = statistics.median(cpu["raw"])
        name = f"export anki {CARDS:,} cards"
        for key, label, goal in (
            ("fresh", "fresh", "≤ 2×"),
            ("unchanged", "nothing changed", "≤ 1.3×"),
        ):
            report(f"{name}, {label}", statistics.median(wall[key]), baseline=baseline, goal=goal)
            ratio = statistics.median(cpu[key]) / cpu_baseline
            print(f"{'  the same in CPU time':<46} {'':>10}   {'':>19}   ratio {ratio:5.2f}×")
    finally:
        tempfile.tempdir = tempdir
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

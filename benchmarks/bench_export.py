"""Anki export of 10,000 generated cards vs raw genanki writing the same notes. Prints only."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import genanki
from common import report, time_call
from generated import write_yaml_root

from studykit.export import export_anki
from studykit.export.ledger import ExportLedger
from studykit.loading import load_library

CARDS = 10_000


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
            assert result.notes == CARDS

        baseline = time_call(lambda: _raw_genanki(raw_decks, tmp / "raw.apkg"), repeat=5)
        name = f"export anki {CARDS:,} cards"
        report(f"{name}, fresh", time_call(fresh, repeat=5), baseline=baseline, goal="≤ 2×")
        report(
            f"{name}, nothing changed",
            time_call(unchanged, repeat=5),
            baseline=baseline,
            goal="≤ 1.3×",
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Anki export of 10,000 generated cards vs raw genanki writing the same notes. Prints only.

Fresh: a new data dir, so nothing is cached. Nothing changed: exported before, so every
field's HTML comes from the export ledger's cache, no note is newer, and the package kept in
the data dir from the last export is copied (`export/reuse.py`) instead of built again.

Twice, against the same anchor: in this process (`export_anki` on a loaded library against
genanki on the same notes), and as whole commands (`studykit export anki`, which reads the
YAML too, against a Python that reads the same files with PyYAML's C loader and writes them
with genanki), in CPU time.
"""

from __future__ import annotations

import gc
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import genanki
from common import PYTHON, compile_bytecode, cpu_command, report
from generated import settle_files, write_yaml_root

from studykit.content.loading import load_library
from studykit.export import export_anki
from studykit.export.ledger import ExportLedger

CARDS = 10_000
REPEAT = 5
STUDYKIT = str(Path(PYTHON).parent / "studykit")
RAW_SCRIPT = """
import sys
from pathlib import Path

import genanki
import yaml

model = genanki.Model(
    1_999_999_999,
    "raw basic",
    fields=[{"name": "Front"}, {"name": "Back"}],
    templates=[{"name": "Card 1", "qfmt": "{{Front}}", "afmt": "{{Back}}"}],
)
decks = []
for number, path in enumerate(sorted(Path(sys.argv[1], "decks").glob("*.yaml"))):
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    deck = genanki.Deck(1_500_000_000 + number, data["name"])
    for card in data["cards"]:
        deck.add_note(genanki.Note(model=model, fields=[card["front"], card["back"]]))
    decks.append(deck)
genanki.Package(decks).write_to_file(sys.argv[2])
"""


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


GOALS = {"fresh": "≤ 1.5×", "unchanged": "≤ 1.0×"}


def _commands(tmp: Path, root: Path) -> None:
    """`studykit export anki` against the raw script, as whole processes, in CPU time."""
    compile_bytecode()
    settle_files([*root.rglob("*.yaml")])  # the library cache skips files just written
    raw = tmp / "raw.py"
    raw.write_text(RAW_SCRIPT, encoding="utf-8")
    out = tmp / "cli.apkg"
    fresh_dirs = iter(range(1_000))

    def export(data: Path) -> list[str]:
        return [
            STUDYKIT,
            "--root",
            str(root),
            "--data-dir",
            str(data),
            "export",
            "anki",
            "-o",
            str(out),
        ]

    env = {"TMPDIR": str(tmp)}  # genanki's writer leaves its temporary collection there
    warm = tmp / "cli-warm"
    cpu_command(export(warm), env=env)  # the export (and library cache) unchanged ones reuse
    runs: dict[str, Callable[[], float]] = {
        "raw": lambda: cpu_command([PYTHON, str(raw), str(root), str(tmp / "r.apkg")], env=env),
        "fresh": lambda: cpu_command(export(tmp / f"cli-fresh-{next(fresh_dirs)}"), env=env),
        "unchanged": lambda: cpu_command(export(warm), env=env),
    }
    cpu: dict[str, list[float]] = {key: [] for key in runs}
    for _ in range(REPEAT):
        for key, run in runs.items():
            cpu[key].append(run())
    baseline = statistics.median(cpu["raw"])
    for key, label in (("fresh", "fresh"), ("unchanged", "nothing changed")):
        report(
            f"studykit export anki {CARDS:,} cards, {label}, CPU",
            statistics.median(cpu[key]),
            baseline=baseline,
            goal=GOALS[key],
        )


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
        for key, label in (("fresh", "fresh"), ("unchanged", "nothing changed")):
            goal = GOALS[key]
            report(f"{name}, {label}", statistics.median(wall[key]), baseline=baseline, goal=goal)
            ratio = statistics.median(cpu[key]) / cpu_baseline
            print(f"{'  the same in CPU time':<46} {'':>10}   {'':>19}   ratio {ratio:5.2f}×")
        _commands(tmp, root)
    finally:
        tempfile.tempdir = tempdir
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

"""The export ledger's own cost on 10,000 generated cards (CPU time). Prints only.

Fresh: a new data dir. Writing the package with a ledger (digests, stamps, records) against
without one, less the kept package (`reuse.py`, shown apart), plus keeping the rendered HTML:
what the ledger costs a first export. Read back: what an export where nothing changed pays
to read the stamps and the HTML.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from itertools import count
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import report
from generated import write_yaml_root

from studykit.content.loading import load_library
from studykit.export.anki import note_guid, write_package
from studykit.export.ledger import ExportLedger
from studykit.export.plan import ExportPlan, plan_export, selected_decks
from studykit.export.reuse import KeptCounts, KeptPackage, package_digest
from studykit.export.variants import variant_source

CARDS = 10_000
REPEAT = 7


def cpu(fn: Callable[[], object]) -> float:
    """Median CPU seconds of `fn()` over `REPEAT` runs."""
    samples = []
    for _ in range(REPEAT):
        started = time.process_time()
        fn()
        samples.append(time.process_time() - started)
    return statistics.median(samples)


def keep_package(plan: ExportPlan, guids: list[str], package: Path, ledger: ExportLedger) -> None:
    """What `write_package` spends on the kept package (`reuse.py`): its digest and copy."""
    digests = dict.fromkeys(guids, "0" * 64)
    key = package_digest(plan, guids, digests, {}, 0, None, None, [])
    ledger.path.parent.mkdir(parents=True, exist_ok=True)
    KeptPackage(ledger.path).keep(key, package, KeptCounts(0, 0, 0, 0))


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="studykit-bench-ledger-"))
    try:
        write_yaml_root(tmp / "root", cards=CARDS)
        library = load_library(tmp / "root")
        cache = ExportLedger.in_data_dir(tmp / "render").field_cache()
        parts = [
            plan_export(
                library, [deck], variant_source=variant_source(), render=cache.for_deck(deck.id)
            )
            for deck in selected_decks(library)
        ]
        plan = ExportPlan(
            tuple(d for part in parts for d in part.decks),
            tuple(n for part in parts for n in part.notes),
            (),
        )
        runs = count()

        def fresh() -> ExportLedger:
            return ExportLedger.in_data_dir(tmp / f"fresh-{next(runs)}")

        bare = cpu(lambda: write_package(plan, tmp / "bare.apkg"))
        ledgered = cpu(lambda: write_package(plan, tmp / "with.apkg", ledger=fresh()))
        html = cpu(lambda: fresh().keep_html(cache, library.decks.keys()))
        name = f"export ledger {CARDS:,} cards"
        guids = [note_guid(note.guid_key) for note in plan.notes]
        kept = cpu(lambda: keep_package(plan, guids, tmp / "bare.apkg", fresh()))
        report(f"{name}, fresh: notes", ledgered - bare - kept)
        report(f"{name}, fresh: HTML", html)
        report(f"{name}, fresh: total", ledgered - bare - kept + html)
        report(f"{name}, fresh: package kept (reuse.py)", kept)
        warm = fresh()
        write_package(plan, tmp / "warm.apkg", ledger=warm)
        warm.keep_html(cache, library.decks.keys())
        report(f"{name}, read back: notes", cpu(warm.notes))
        report(f"{name}, read back: HTML", cpu(warm.field_cache))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

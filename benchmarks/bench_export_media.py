"""Bundled decks exported with every linked experiment's plot, then imported by Anki. Prints only.

Each link gets a result with a 2-series, 300-point plot (its data depends on the parameters,
so each link draws its own file): the cost measured is drawing, packing and importing, not
the experiments. Cold: every plot drawn; warm: drawn before, packed from the plot folder.
"""

from __future__ import annotations

import math
import shutil
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import fmt_seconds, report, time_call

from studykit.content.loading import load_library
from studykit.core.config import bundled_root
from studykit.export import export_anki

POINTS = 300


class EveryRunCached:
    """An experiment cache that has a result, with a plot, for any inputs."""

    def cached_experiment(
        self, *, name: str, params: dict[str, Any], seed: int, device: str, torch_version: str
    ) -> dict[str, Any] | None:
        if device != "cpu":
            return None
        rate = 0.5 + (zlib.crc32(repr(sorted(params.items())).encode()) % 400) / 1000
        xs = list(range(POINTS))
        return {
            "name": name,
            "params": params,
            "seed": seed,
            "device": device,
            "torch_version": torch_version,
            "machine": "bench",
            "elapsed_s": 0.1,
            "answers": [],
            "explanation": "",
            "plot": {
                "title": f"{name}: synthetic",
                "x_label": "step",
                "y_label": "value",
                "log_y": True,
                "series": [
                    {"label": "measured", "x": xs, "y": [rate**k + 1e-12 for k in xs]},
                    {"label": "bound", "x": xs, "y": [math.exp(-k / 40) for k in xs]},
                ],
            },
            "table": None,
        }

    def store_experiment(self, result: dict[str, Any]) -> None:
        raise AssertionError("an export never stores a result")


def _import_seconds(package: Path, folder: Path) -> tuple[float, int]:
    """Time to import `package` into a fresh Anki collection, and its media file count."""
    from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

    folder.mkdir(parents=True)
    col = Collection(str(folder / "c.anki2"))
    try:
        request = ImportAnkiPackageRequest(
            package_path=str(package), options=ImportAnkiPackageOptions()
        )
        start = time.perf_counter()
        col.import_anki_package(request)
        elapsed = time.perf_counter() - start
        return elapsed, len(list(Path(col.media.dir()).iterdir()))
    finally:
        col.close()


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="studykit-bench-media-"))
    try:
        library = load_library(bundled_root())
        cache = EveryRunCached()
        plain = time_call(lambda: export_anki(library, tmp / "plain.apkg"), repeat=3)
        start = time.perf_counter()
        cold = export_anki(library, tmp / "plots.apkg", cache=cache, plot_dir=tmp / "plots")
        cold_s = time.perf_counter() - start
        assert cold.media is not None
        drawn = cold.media.drawn
        warm = time_call(
            lambda: export_anki(library, tmp / "plots.apkg", cache=cache, plot_dir=tmp / "plots"),
            repeat=3,
        )
        report(f"export bundled decks, {drawn} plots drawn (cold)", cold_s, baseline=plain)
        report("export bundled decks, plots drawn before (warm)", warm, baseline=plain)
        print(f"{'  per plot drawn':<46} {fmt_seconds((cold_s - warm) / max(drawn, 1)):>10}")
        size = (tmp / "plots.apkg").stat().st_size / 1024
        print(f"{'  package with plots':<46} {size:>7.0f} KiB", flush=True)
        without, _ = _import_seconds(tmp / "plain.apkg", tmp / "anki-plain")
        with_plots, files = _import_seconds(tmp / "plots.apkg", tmp / "anki-plots")
        assert files == drawn, (files, drawn)
        report(f"Anki import, bundled decks + {files} plots", with_plots, baseline=without)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

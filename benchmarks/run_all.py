"""`make bench`: each speed figure beside its baseline, in one run. Prints; asserts nothing."""

from __future__ import annotations

import functools
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_browse
import bench_check_experiments
import bench_child
import bench_experiments
import bench_export
import bench_export_ledger
import bench_export_media
import bench_screens
from common import (
    PYTHON,
    REPO,
    compile_bytecode,
    cpu_calls_side_by_side,
    cpu_side_by_side,
    fmt_seconds,
    report,
    say_machine_speed,
    time_call,
    time_command,
)
from generated import library_with_states, settle_files, write_big_deck, write_yaml_root

from studykit.content.loading import load_library
from studykit.core.config import Settings
from studykit.srs.store import Store
from studykit.study.session import Rating, StudySession

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
STUDYKIT = str(Path(PYTHON).parent / "studykit")


def bench_startup(tmp: Path) -> None:
    """App first screen vs a bare Textual app (CPU, side by side); `--help` vs bare Python."""
    script = str(REPO / "benchmarks" / "first_screen.py")
    data = tmp / "first-screen-data"
    bare = [PYTHON, script, "bare"]
    ours = [PYTHON, script, "studykit", str(data)]
    compile_bytecode()  # both sides start from bytecode, as an installed app does
    cached, baseline = cpu_side_by_side(ours, bare)
    report("app first screen, CPU (library cached)", cached, baseline=baseline, goal="≤ 1.2×")
    # The same against a bare Textual app showing home's own widgets (tree, title, footer):
    # how much of the figure above is studykit's code rather than what the screen shows.
    spec = tmp / "home.json"
    subprocess.run([*ours, str(spec)], check=True, capture_output=True, cwd=REPO)
    mine, widgets = cpu_side_by_side(ours, [PYTHON, script, "twin", str(spec)])
    report("  the same against bare Textual, same widgets", mine, baseline=widgets)
    report("  bare Textual, home's widgets, CPU", widgets, baseline=baseline)
    cold, baseline = cpu_side_by_side(
        ours, bare, before_each=lambda: shutil.rmtree(data / "cache", ignore_errors=True)
    )
    report("app first screen, CPU (no library cache)", cold, baseline=baseline)
    for mode, label in (("studykit", "without torch"), ("studykit-torch", "with torch loaded")):
        run = subprocess.run(
            [PYTHON, script, mode, str(data)], check=True, capture_output=True, text=True, cwd=REPO
        )
        peak_kib = int(run.stdout.strip().splitlines()[-1])
        print(f"{'app peak memory, ' + label:<46} {peak_kib / 1024:>7.0f} MiB", flush=True)
    help_time = time_command([STUDYKIT, "--help"])
    python_time = time_command([PYTHON, "-c", "pass"])
    report("studykit --help", help_time, baseline=python_time, goal="≤ 0.3 s")


def bench_loading(tmp: Path) -> None:
    """load_library on generated cards vs raw CSafeLoader over the same files, in CPU time."""
    big = tmp / "yaml-big"
    roots = [
        (f"{cards:,} cards", tmp / f"yaml-{cards}", cards) for cards in (1_000, 10_000, 100_000)
    ]
    for label, root, cards in [*roots, ("4.9 MB deck, 100,000 cards", big, 0)]:
        files = [write_big_deck(root)] if cards == 0 else write_yaml_root(root, cards=cards)
        settle_files(files + list((root / "content").glob("*.yaml")))

        def raw(files: list[Path] = files) -> None:
            for path in files:
                yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)

        def ours(root: Path = root) -> None:
            library = load_library(root)
            assert not library.problems, library.problems[:3]

        loaded, baseline = cpu_calls_side_by_side(ours, raw)
        report(f"load {label}, CPU", loaded, baseline=baseline, goal="≤ 1.5×")
        if cards in (0, 100_000):
            cache_dir = tmp / f"cache-{root.name}"
            load_library(root, cache_dir=cache_dir)  # the miss that writes the cache
            assert any(cache_dir.iterdir()), "the library cache was not written"
            hit, baseline = cpu_calls_side_by_side(
                functools.partial(load_library, root, cache_dir=cache_dir), raw
            )
            report("  the same from the library cache, CPU", hit, baseline=baseline)


def bench_queue(tmp: Path) -> None:
    """Due queue and deck counts over 1k, 10k and 100k stored card states."""
    for cards in (1_000, 10_000, 100_000):
        settings = Settings(
            root=tmp,
            data_dir=tmp / f"queue-{cards}",
            reviews_per_day=100_000,
            new_per_day=1_000,
            enable_fuzzing=False,
        )
        settings.data_dir.mkdir()
        library = library_with_states(settings.database_path, cards=cards, decks=10, now=NOW)
        started = time.perf_counter()
        session = StudySession(
            library, Store.open(settings.database_path), settings, clock=lambda: NOW, tz=UTC
        )
        opened = time.perf_counter() - started
        session.next_card()  # the first call counts today's log
        report(
            f"due queue: next_card() over {cards:,} states",
            time_call(session.next_card, repeat=20),
            goal="≤ 50 ms",
        )
        report(
            f"deck counts over {cards:,} states",
            time_call(session.deck_counts, repeat=20),
            goal="≤ 50 ms",
        )
        report(f"open session over {cards:,} states (once)", opened)
        session.close()


def bench_check() -> None:
    """`studykit check` over the bundled content, whole process (sympy included)."""
    report("studykit check (bundled content)", time_command([STUDYKIT, "check"], repeat=3))


def bench_answer(tmp: Path) -> None:
    """Answer -> next card, median over 300 answers, on a real SQLite file (fsync included)."""
    settings = Settings(root=tmp, data_dir=tmp / "answer", new_per_day=1_000, enable_fuzzing=False)
    settings.data_dir.mkdir()
    library = library_with_states(settings.database_path, cards=2_000, decks=2, now=NOW)
    clock = [NOW]
    session = StudySession(
        library, Store.open(settings.database_path), settings, clock=lambda: clock[0], tz=UTC
    )
    rng = random.Random(1)
    samples = []
    for i in range(300):
        clock[0] = NOW + timedelta(seconds=10 * i)
        card = session.next_card()
        assert card is not None
        started = time.perf_counter()
        session.answer(card, rng.choice(list(Rating)), duration_ms=4_000)
        session.next_card()
        samples.append(time.perf_counter() - started)
    session.close()
    samples.sort()
    report("answer -> next card (median of 300)", statistics.median(samples), goal="≤ 10 ms")
    print(f"{'':<46} {'p95 ' + fmt_seconds(samples[int(0.95 * len(samples))]):>10}")


def main() -> None:
    print(
        f"studykit benchmarks — python {sys.version.split()[0]}, {time.strftime('%Y-%m-%d %H:%M')}"
    )
    say_machine_speed("start")
    tmp = Path(tempfile.mkdtemp(prefix="studykit-bench-"))
    try:
        bench_startup(tmp)
        bench_loading(tmp)
        bench_queue(tmp)
        bench_answer(tmp)
        bench_browse.bench_browse(tmp)
        bench_check()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print()
    bench_screens.main()
    print()
    bench_export.main()
    bench_export_ledger.main()
    print()
    bench_export_media.main()
    print()
    bench_experiments.main()
    print()
    bench_check_experiments.main()
    print()
    bench_child.main()
    # Memory model (optimize, simulate, workload): its own block, so it merges cleanly.
    print()
    import bench_memory

    bench_memory.main()
    # Obsidian import (issue 13): its own block too.
    print()
    import bench_obsidian

    bench_obsidian.main()
    # studykit sync against the pylib on its own (issue 24): its own block too.
    print()
    import bench_sync

    bench_sync.main()
    print()
    say_machine_speed("end")


if __name__ == "__main__":
    main()

"""Each screen from open to settled, against a bare Textual screen with the same widgets.

`python bench_screens.py` prints, per screen, the median wall and CPU time from the key press
on the deck list to the screen settled (on screen, its workers done, nothing left to draw),
in a fresh process each time, alternating with the baseline: a bare Textual app that pushes
a screen holding the same widgets (the nearest Textual class of each of ours, with the same
ids, classes, text and styles) and nothing of studykit's code. Both sides import what they
use when the screen opens. Prints only.

`python bench_screens.py ours KEY DATA_DIR SPEC` and `bare SPEC` are one sample each (ours
writes the widget tree it settled on to SPEC, the bare one builds it back); each prints
`wall cpu` in seconds on its last line.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import PYTHON, REPO, compile_bytecode, fmt_seconds
from twin import build, describe, own

SCREENS = {
    "review": "enter",
    "notes": "n",
    "experiments": "e",
    "stats": "s",
    "browse": "b",
    "quiz": "z",
}
REPEAT = 5
SIZE = (120, 40)
GOAL_S = 0.3
QUIET_S = 0.5
CSS_FILES = [
    REPO / "studykit" / "tui" / "studykit.tcss",
    REPO / "studykit" / "tui" / "screens" / "screens.tcss",
]


# -- one sample ---------------------------------------------------------------------------


def _busy(app: Any) -> bool:
    from textual.worker import WorkerState

    return any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers)


async def _quiet(pilot: Any) -> None:
    """Until the app has run no worker for `QUIET_S`, after the start-up work was due."""
    from studykit.tui.app import PRELOAD_DELAY_S

    await pilot.pause(PRELOAD_DELAY_S)
    quiet_since = time.monotonic()
    while time.monotonic() - quiet_since < QUIET_S:
        await pilot.pause(0.01)
        if _busy(pilot.app):
            quiet_since = time.monotonic()


async def _settled(pilot: Any, before: Any) -> None:
    """Until the screen that opened is on, mounted, its workers done, and nothing pending."""
    app = pilot.app
    while app.screen is before or not app.screen.is_mounted or _busy(app):
        await pilot.pause(0.002)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def run_ours(key: str, data_dir: Path, spec_path: Path) -> None:
    from textual.pilot import Pilot

    from studykit.core.config import resolve_settings
    from studykit.tui.app import make_app
    from studykit.tui.screens.home import HomeScreen

    app = make_app(resolve_settings(data_dir=data_dir))
    took: list[float] = []

    async def drive(pilot: Pilot[object]) -> None:
        while not (isinstance(pilot.app.screen, HomeScreen) and pilot.app.screen.opened):
            await pilot.pause(0.01)
        await _quiet(pilot)  # what starts after home (the models, the warm-up) is done
        home = pilot.app.screen
        wall, cpu = time.perf_counter(), time.process_time()
        await pilot.press(key)
        await _settled(pilot, home)
        took[:] = [time.perf_counter() - wall, time.process_time() - cpu]
        spec = [describe(child) for child in own(pilot.app.screen.children)]
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        pilot.app.exit()

    app.run(headless=True, size=SIZE, auto_pilot=drive)
    print(*took)


def run_bare(spec_path: Path) -> None:
    from textual.app import App, ComposeResult
    from textual.pilot import Pilot
    from textual.screen import Screen
    from textual.widgets import Static

    spec = json.loads(spec_path.read_text(encoding="utf-8"))

    class Twin(Screen[None]):
        def compose(self) -> ComposeResult:
            yield from (build(child) for child in spec)

    class Bare(App[None]):
        CSS_PATH: ClassVar[list[str | PurePath]] = list(CSS_FILES)

        def compose(self) -> ComposeResult:
            yield Static("home")

    took: list[float] = []

    async def drive(pilot: Pilot[object]) -> None:
        await pilot.pause(0.2)
        home = pilot.app.screen
        wall, cpu = time.perf_counter(), time.process_time()
        await pilot.app.push_screen(Twin())
        await _settled(pilot, home)
        took[:] = [time.perf_counter() - wall, time.process_time() - cpu]
        pilot.app.exit()

    Bare().run(headless=True, size=SIZE, auto_pilot=drive)
    print(*took)


# -- the comparison -----------------------------------------------------------------------


def _sample(argv: list[str]) -> tuple[float, float]:
    done = subprocess.run(
        argv, check=True, capture_output=True, text=True, cwd=REPO, env={**os.environ}
    )
    wall, cpu = done.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def _rounds(
    tmp: Path,
) -> Iterator[tuple[str, list[tuple[float, float]], list[tuple[float, float]]]]:
    script = str(Path(__file__).resolve())
    data = tmp / "data"
    for name, key in SCREENS.items():
        spec = tmp / f"{name}.json"
        ours_argv = [PYTHON, script, "ours", key, str(data), str(spec)]
        _sample(ours_argv)  # a warm-up, which also writes the spec the bare side builds
        ours, bare = [], []
        for _ in range(REPEAT):
            bare.append(_sample([PYTHON, script, "bare", str(spec)]))
            ours.append(_sample(ours_argv))
        yield name, ours, bare


def main() -> None:
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="studykit-bench-screens-") as tmp:
        for name, ours, bare in _rounds(Path(tmp)):
            wall = statistics.median(w for w, _ in ours)
            cpu = statistics.median(c for _, c in ours)
            bare_wall = statistics.median(w for w, _ in bare)
            bare_cpu = statistics.median(c for _, c in bare)
            line = f"{'screen ' + name + ', open to settled':<46} {fmt_seconds(wall):>10}"
            line += f"   bare {fmt_seconds(bare_wall):>10}   ratio {wall / bare_wall:5.2f}×"
            print(f"{line}   (goal ≤ {GOAL_S:.1f} s)", flush=True)
            cpu_line = f"{'  the same in CPU time':<46} {fmt_seconds(cpu):>10}"
            print(f"{cpu_line}   bare {fmt_seconds(bare_cpu):>10}   ratio {cpu / bare_cpu:5.2f}×")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "ours":
        run_ours(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
    elif len(sys.argv) > 1 and sys.argv[1] == "bare":
        run_bare(Path(sys.argv[2]))
    else:
        main()

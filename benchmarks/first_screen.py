"""Start an app headless, wait for its first screen, exit. Run as a subprocess and timed whole.

`python first_screen.py studykit DATA_DIR` times studykit's home screen with its decks loaded;
`python first_screen.py bare` times a bare Textual app showing one label (the baseline).
`python first_screen.py studykit-torch DATA_DIR` imports torch first (as after an experiment ran).
Each prints its peak resident memory in KiB on stdout when it exits.
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path


def run_bare() -> None:
    from textual.app import App, ComposeResult
    from textual.pilot import Pilot
    from textual.widgets import Footer, Header, Static

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield Header()
            yield Static("hello")
            yield Footer()

    async def leave(pilot: Pilot[None]) -> None:
        await pilot.pause()
        pilot.app.exit()

    Bare().run(headless=True, size=(120, 40), auto_pilot=leave)


def run_studykit(data_dir: Path, *, with_torch: bool = False) -> None:
    if with_torch:
        import torch  # noqa: F401

    from studykit.core.config import resolve_settings
    from studykit.tui.launch import launch

    app = launch(resolve_settings(data_dir=data_dir))  # as `studykit` starts it

    from textual.pilot import Pilot

    from studykit.tui.screens.home import HomeScreen

    async def leave(pilot: Pilot[None]) -> None:
        while not isinstance(pilot.app.screen, HomeScreen):
            await pilot.pause(0.005)
        await pilot.pause()
        unwanted = ("sympy", "genanki") if with_torch else ("torch", "sympy", "genanki")
        heavy = [m for m in unwanted if m in sys.modules]
        if heavy:
            raise SystemExit(f"first screen imported {heavy}")
        pilot.app.exit()

    app.run(headless=True, size=(120, 40), auto_pilot=leave)


if __name__ == "__main__":
    if sys.argv[1] == "bare":
        run_bare()
    else:
        run_studykit(Path(sys.argv[2]), with_torch=sys.argv[1] == "studykit-torch")
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)

"""Start an app headless, wait for its first screen, exit. Run as a subprocess and timed whole.

`python first_screen.py studykit DATA_DIR` times studykit's home screen with its decks loaded;
`python first_screen.py bare` times a bare Textual app showing one label (the baseline).
`python first_screen.py studykit-torch DATA_DIR` imports torch first (as after an experiment ran).
`python first_screen.py studykit DATA_DIR SPEC` also writes the home screen's widgets to SPEC,
and `python first_screen.py twin SPEC` shows them in a bare Textual app (`twin.py`): the
first screen's own widgets without any of studykit's code.
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

    async def leave(pilot: Pilot[object]) -> None:
        await pilot.pause()
        pilot.app.exit()

    Bare().run(headless=True, size=(120, 40), auto_pilot=leave)


def run_twin(spec_path: Path) -> None:
    import json

    from textual.app import App, ComposeResult
    from textual.pilot import Pilot
    from textual.screen import Screen
    from twin import build

    spec = json.loads(spec_path.read_text(encoding="utf-8"))

    class Home(Screen[None]):
        def compose(self) -> ComposeResult:
            yield from (build(child) for child in spec)

    class Twin(App[None]):
        CSS_PATH = str(Path(__file__).resolve().parent.parent / "studykit/tui/studykit.tcss")

        def get_default_screen(self) -> Screen[None]:
            return Home()  # as studykit's home is

    async def leave(pilot: Pilot[object]) -> None:
        await pilot.pause()
        pilot.app.exit()

    Twin().run(headless=True, size=(120, 40), auto_pilot=leave)


def run_studykit(
    data_dir: Path, *, with_torch: bool = False, spec_path: Path | None = None
) -> None:
    if with_torch:
        import torch  # noqa: F401

    from studykit.core.config import resolve_settings
    from studykit.tui.launch import launch

    app = launch(resolve_settings(data_dir=data_dir))  # as `studykit` starts it

    from textual.pilot import Pilot

    from studykit.tui.screens.home import HomeScreen

    async def leave(pilot: Pilot[object]) -> None:
        while not (isinstance(pilot.app.screen, HomeScreen) and pilot.app.screen.opened):
            await pilot.pause(0.005)
        await pilot.pause()
        unwanted = ("sympy", "genanki") if with_torch else ("torch", "sympy", "genanki")
        heavy = [m for m in unwanted if m in sys.modules]
        if heavy:
            raise SystemExit(f"first screen imported {heavy}")
        if spec_path is not None:
            import json

            from twin import describe, own

            spec = [describe(child) for child in own(pilot.app.screen.children)]
            spec_path.write_text(json.dumps(spec), encoding="utf-8")
        pilot.app.exit()

    app.run(headless=True, size=(120, 40), auto_pilot=leave)


if __name__ == "__main__":
    if sys.argv[1] == "bare":
        run_bare()
    elif sys.argv[1] == "twin":
        run_twin(Path(sys.argv[2]))
    else:
        spec = Path(sys.argv[3]) if len(sys.argv) > 3 else None
        run_studykit(Path(sys.argv[2]), with_torch=sys.argv[1] == "studykit-torch", spec_path=spec)
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)

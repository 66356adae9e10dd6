"""The layering holds: the import contracts in pyproject.toml, and no textual below the app."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_import_contracts_are_kept() -> None:
    """`lint-imports` (import-linter) over the contracts in pyproject.toml, as `make lint` runs."""
    run = subprocess.run(
        [Path(sys.executable).with_name("lint-imports")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " 0 broken" in run.stdout.split("Contracts:")[-1]


def test_importing_every_module_below_the_app_loads_no_textual() -> None:
    """Every module outside `studykit.tui` (the CLI and commands too), imported in a fresh
    process: none of them pulls in textual, so the core runs headless."""
    code = """
        import importlib, pkgutil, sys
        import studykit
        names = sorted(
            info.name
            for info in pkgutil.walk_packages(studykit.__path__, "studykit.")
            if not info.name.startswith("studykit.tui") and info.name != "studykit.__main__"
        )
        for name in names:
            importlib.import_module(name)
            if "textual" in sys.modules:
                print("TEXTUAL:" + name)
                break
        else:
            print(f"OK:{len(names)}")
        """
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    last = run.stdout.strip().splitlines()[-1]
    assert last.startswith("OK:"), f"{last.removeprefix('TEXTUAL:')} imports textual"
    assert int(last.removeprefix("OK:")) > 150  # every module was imported, not just a few

"""The app's start-up: what it imports is frozen out of the collector once, not per app."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap

from studykit.tui.app import freeze_start_up


def test_start_up_is_frozen_once_per_process() -> None:
    freeze_start_up()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    # tracked objects born after start-up
    made_later: list[list[object]] = [[] for _ in range(1000)]
    freeze_start_up()  # another app in the same process (tests, a quiz after the app)
    assert gc.get_freeze_count() == frozen, "objects made after start-up were frozen too"
    del made_later


def test_the_content_models_imported_later_are_frozen_once_too() -> None:
    """A cached library imports pydantic after the first screen: that is start-up as well."""
    code = """
        import gc
        from studykit.tui.app import freeze_start_up
        freeze_start_up()
        before = gc.get_freeze_count()
        import studykit.content.model
        freeze_start_up()
        after = gc.get_freeze_count()
        made_later = [[] for _ in range(1000)]
        freeze_start_up()
        print(before, after, gc.get_freeze_count())
        """
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=True
    )
    before, after, again = map(int, run.stdout.split())
    assert after > before  # the models' classes and pydantic's tables
    assert again <= after, "objects made after the models came were frozen too"


def test_the_command_lines_start_imports_the_app_with_the_collector_paused() -> None:
    """No automatic collection walks what textual and the app import (they free nothing);
    afterwards the collector is back on, with what they made frozen out of its walks."""
    code = """
        import gc
        from pathlib import Path
        from studykit.core.config import Settings
        from studykit.tui.launch import launch
        collections = sum(generation["collections"] for generation in gc.get_stats())
        app = launch(Settings(root=Path("."), data_dir=Path("unused")))
        during = sum(generation["collections"] for generation in gc.get_stats()) - collections
        print(during, gc.isenabled(), gc.get_freeze_count() > 0, type(app).__name__)
        """
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=True
    )
    during, enabled, frozen, _ = run.stdout.split()
    assert int(during) <= 1  # the one on resuming, over nothing young (without: ~70)
    assert (enabled, frozen) == ("True", "True")

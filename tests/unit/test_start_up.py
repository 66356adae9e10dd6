"""The app's start-up: what it imports is frozen out of the collector once, not per app."""

from __future__ import annotations

import gc

from studykit.tui.app import freeze_start_up


def test_start_up_is_frozen_once_per_process() -> None:
    freeze_start_up()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    made_later = [[] for _ in range(1000)]  # tracked objects born after start-up
    freeze_start_up()  # another app in the same process (tests, a quiz after the app)
    assert gc.get_freeze_count() == frozen, "objects made after start-up were frozen too"
    del made_later

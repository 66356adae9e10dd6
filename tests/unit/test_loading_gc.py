"""Loading pauses the cyclic garbage collector and leaves it as it found it."""

from __future__ import annotations

import gc
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from studykit.content.loading import building, cache, load_library
from studykit.content.loading.gcpause import gc_paused

BROKEN = Path(__file__).resolve().parent.parent / "data" / "broken"


LOADERS = {("build_library", building.__file__), ("load_cached", cache.__file__)}


def _inside_a_load() -> bool:
    """Whether the calling stack is inside a load's work (not its pause's exit)."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        if (frame.f_code.co_name, frame.f_code.co_filename) in LOADERS:
            return True
        frame = frame.f_back
    return False


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """Generations of the collections that start inside a library load."""
    started: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and _inside_a_load():
            started.append(info["generation"])

    gc.callbacks.append(note)
    try:
        yield started
    finally:
        gc.callbacks.remove(note)


def many_cards_root(tmp_path: Path, cards: int = 3000) -> Path:
    root = tmp_path / "root"
    shutil.copytree(BROKEN / "good", root)
    lines = ["id: many", "name: Many", "cards:"]
    for i in range(cards):
        lines += [f"  - id: c{i}", f"    front: Q{i}?", f"    back: A{i}"]
    (root / "decks" / "many.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("cached", [False, True])
def test_no_collection_runs_during_a_load(
    tmp_path: Path, collections: list[int], cached: bool
) -> None:
    root = many_cards_root(tmp_path)
    cache_dir = tmp_path / "cache" if cached else None
    if cached:
        for path in root.rglob("*"):
            os.utime(path, (1e9, 1e9))  # long settled: the cache is written
        load_library(root, cache_dir=cache_dir)
        assert cache_dir is not None and any(cache_dir.iterdir())
        collections.clear()
    assert gc.isenabled()
    library = load_library(root, cache_dir=cache_dir)
    # 3000 cards make far more than the 700 allocations after which generation 0 runs.
    assert collections == []
    assert len(library.decks["many"].cards) == 3000
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled_and_nesting_keeps_the_pause() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_failing_load_still_restores_the_collector() -> None:
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()

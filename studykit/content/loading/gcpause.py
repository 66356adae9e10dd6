"""Pausing the cyclic garbage collector while a library loads, or a sync runs."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic collections inside the block; the collector's state is restored after.

    A load builds hundreds of thousands of objects that all stay alive, and each automatic
    collection walks them again: on 100k cards that was half the load time. What a load
    throws away is freed by reference counting; the rare cycle (a recursive YAML alias)
    waits for the next collection. Nested and concurrent loads share one pause, and a sync
    (which builds its rows beside a loaded library) takes one too.
    """
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                gc.enable()

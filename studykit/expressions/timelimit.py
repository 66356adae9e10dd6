"""with_time_limit: interrupt sympy work that runs past its time limit."""

from __future__ import annotations

import ctypes
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from studykit.expressions.errors import ExpressionTimeout

T = TypeVar("T")


class _TimeUp(BaseException):
    """Raised inside the worker by the watchdog; BaseException so sympy's handlers let it pass."""


_nesting = threading.local()
# While the watched thread is inside an import, look again this often.
IMPORT_RECHECK_S = 0.02


def _raise_in_thread(thread_id: int, exc: type[BaseException] | None) -> None:
    # CPython delivers this at the thread's next bytecode boundary; None clears a pending one.
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc is not None else None
    )


def _importing(thread_id: int) -> bool:
    """Whether that thread is inside an import (sympy imports lazily; never cut one short)."""
    frame = sys._current_frames().get(thread_id)
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


@dataclass(eq=False)
class _Watch:
    """One running call: the thread to interrupt and when."""

    target: int
    deadline: float
    fired: bool = False


class _Watchdog:
    """One daemon thread that watches every running call (a thread per call cost about half a
    millisecond to start, and a check makes thousands of calls)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._watches: set[_Watch] = set()
        self._thread: threading.Thread | None = None

    def watch(self, seconds: float) -> _Watch:
        watch = _Watch(threading.get_ident(), time.monotonic() + seconds)
        with self._changed:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="studykit-expression-watchdog", daemon=True
                )
                self._thread.start()
            self._watches.add(watch)
            self._changed.notify()
        return watch

    def release(self, watch: _Watch) -> None:
        """The call is over: it is never interrupted after this returns."""
        with self._changed:
            self._watches.discard(watch)
            if watch.fired:
                _raise_in_thread(watch.target, None)  # the call outran a pending interruption

    def forget_after_fork(self) -> None:
        """A forked child has none of its parent's threads, nor their calls."""
        self._changed = threading.Condition()
        self._watches = set()
        self._thread = None

    def _run(self) -> None:
        with self._changed:
            while True:
                now = time.monotonic()
                for watch in [w for w in self._watches if w.deadline <= now]:
                    if _importing(watch.target):
                        watch.deadline = now + IMPORT_RECHECK_S
                        continue
                    watch.fired = True
                    self._watches.discard(watch)
                    _raise_in_thread(watch.target, _TimeUp)
                soonest = min((w.deadline for w in self._watches), default=None)
                self._changed.wait(None if soonest is None else max(soonest - now, 0.0))


_WATCHDOG = _Watchdog()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_WATCHDOG.forget_after_fork)


def with_time_limit(seconds: float, fn: Callable[[], T], *, what: str = "evaluation") -> T:
    """Run `fn` in this thread; past `seconds`, interrupt it and raise ExpressionTimeout.

    A watchdog thread raises an exception inside the calling thread (CPython's
    PyThreadState_SetAsyncExc), so this works on the main thread and in worker threads alike
    (Textual thread workers), unlike signal.alarm. Pure-Python work (all of sympy) is
    interrupted, though never in the middle of an import; a single long C call is not, which is
    why exact numbers are bounded before they are built. Nested calls run under the outermost
    limit.
    """
    if getattr(_nesting, "active", False):
        return fn()
    _nesting.active = True
    try:
        watch = _WATCHDOG.watch(seconds)
        try:
            return fn()
        finally:
            _WATCHDOG.release(watch)
    except _TimeUp:
        raise ExpressionTimeout(f"{what} took too long (limit {seconds:g} s)") from None
    finally:
        _nesting.active = False

"""with_time_limit: interrupt sympy work that runs past its time limit."""

from __future__ import annotations

import ctypes
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

from studykit.expressions.errors import ExpressionTimeout

T = TypeVar("T")


class _TimeUp(BaseException):
    """Raised inside the worker by the watchdog; BaseException so sympy's handlers let it pass."""


_watch = threading.local()


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


def with_time_limit(seconds: float, fn: Callable[[], T], *, what: str = "evaluation") -> T:
    """Run `fn` in this thread; past `seconds`, interrupt it and raise ExpressionTimeout.

    A watchdog thread raises an exception inside the calling thread (CPython's
    PyThreadState_SetAsyncExc), so this works on the main thread and in worker threads alike
    (Textual thread workers), unlike signal.alarm. Pure-Python work (all of sympy) is
    interrupted, though never in the middle of an import; a single long C call is not, which is
    why exact numbers are bounded before they are built. Nested calls run under the outermost
    limit.
    """
    if getattr(_watch, "active", False):
        return fn()
    target = threading.get_ident()
    lock = threading.Lock()
    finished = threading.Event()
    state = {"running": True, "fired": False}

    def watch() -> None:
        if finished.wait(seconds):
            return
        while True:
            with lock:
                if not state["running"]:
                    return
                if not _importing(target):
                    state["fired"] = True
                    _raise_in_thread(target, _TimeUp)
                    return
            if finished.wait(0.02):
                return

    watchdog = threading.Thread(target=watch, name="studykit-expression-watchdog", daemon=True)
    _watch.active = True
    try:
        try:
            watchdog.start()
            return fn()
        finally:
            with lock:
                state["running"] = False
                if state["fired"]:
                    _raise_in_thread(target, None)  # fn outran a pending interruption
            finished.set()
            _watch.active = False
    except _TimeUp:
        _watch.active = False
        finished.set()
        raise ExpressionTimeout(f"{what} took too long (limit {seconds:g} s)") from None


# ---------------------------------------------------------------------------------------------

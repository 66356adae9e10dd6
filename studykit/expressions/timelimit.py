"""with_time_limit: interrupt sympy work that runs past its time limit."""

from __future__ import annotations

import ctypes
import heapq
import itertools
import os
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from studykit.expressions.errors import ExpressionTimeout

T = TypeVar("T")


class _TimeUp(BaseException):
    """Raised inside the worker by the watchdog; BaseException so sympy's handlers let it pass."""


_nesting = threading.local()
# While the watched thread is inside an import, look again this often.
IMPORT_RECHECK_S = 0.02
# Calls that ended wait in the watchdog's heap until their deadline; past this many, they go.
PRUNE_ABOVE = 1024


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
    """One running call: the thread to interrupt, when, and whether it still runs."""

    target: int
    deadline: float
    # A C lock: acquiring it in `with` runs no Python code in which an interruption could land
    # between the acquire and the block (it would leave the lock held).
    lock: threading.Lock = field(default_factory=threading.Lock)
    running: bool = True
    fired: bool = False


class _Watchdog:
    """One daemon thread that watches every running call (a thread per call cost about half a
    millisecond to start, and a check makes thousands of calls).

    The watched threads share no lock with each other or the watchdog: an interruption that
    lands in a thread holding a shared lock would stop every thread. A call hands its watch
    over a C queue, and the watchdog and the call meet only at that watch's own lock.
    """

    def __init__(self) -> None:
        self._arrivals: queue.SimpleQueue[_Watch] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._starting = threading.Lock()
        self.due: list[tuple[float, int, _Watch]] = []  # the watchdog's own, read by tests

    def watch(self, seconds: float) -> _Watch:
        if self._thread is None:
            with self._starting:
                if self._thread is None:
                    thread = threading.Thread(
                        target=self._run,
                        args=(self._arrivals, self.due),
                        name="studykit-expression-watchdog",
                        daemon=True,
                    )
                    thread.start()
                    self._thread = thread
        watch = _Watch(threading.get_ident(), time.monotonic() + seconds)
        self._arrivals.put(watch)
        return watch

    def again(self, watch: _Watch, seconds: float) -> None:
        """Fire `watch` once more in `seconds` if its call still runs then."""
        watch.deadline = time.monotonic() + seconds
        self._arrivals.put(watch)

    @staticmethod
    def release(watch: _Watch) -> None:
        """The call is over: it is never interrupted after this returns."""
        with watch.lock:
            watch.running = False
            if watch.fired:
                _raise_in_thread(watch.target, None)  # the call outran a pending interruption

    def forget_after_fork(self) -> None:
        """A forked child has none of its parent's threads, nor their calls."""
        self._arrivals = queue.SimpleQueue()
        self._thread = None
        self._starting = threading.Lock()
        self.due = []

    @staticmethod
    def _run(arrivals: queue.SimpleQueue[_Watch], due: list[tuple[float, int, _Watch]]) -> None:
        """Fire each watch that comes due while its call runs; `due` is a heap, soonest first."""
        order = itertools.count()
        while True:
            wait = max(due[0][0] - time.monotonic(), 0.0) if due else None
            try:
                watch = arrivals.get(timeout=wait)
                heapq.heappush(due, (watch.deadline, next(order), watch))
                if len(due) > PRUNE_ABOVE:  # calls that ended stay until their deadline
                    due[:] = [entry for entry in due if entry[2].running]
                    heapq.heapify(due)
            except queue.Empty:
                pass
            now = time.monotonic()
            while due and due[0][0] <= now:
                _, _, watch = heapq.heappop(due)
                with watch.lock:
                    if not watch.running:
                        continue
                    if _importing(watch.target):
                        heapq.heappush(due, (now + IMPORT_RECHECK_S, next(order), watch))
                        continue
                    watch.fired = True
                    _raise_in_thread(watch.target, _TimeUp)


_WATCHDOG = _Watchdog()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_WATCHDOG.forget_after_fork)

_previous_hook: Callable[[sys.UnraisableHookArgs], object] = sys.unraisablehook


def _deliver_again(unraisable: sys.UnraisableHookArgs) -> None:
    """An interruption that landed where Python cannot raise (a weakref callback, a `__del__`,
    which the collector may run at any allocation) is printed and dropped there: the call would
    run on past its limit. It is fired again, to land at the next chance."""
    watch = getattr(_nesting, "watch", None)
    if unraisable.exc_type is _TimeUp and watch is not None:
        # By the watchdog, a moment later: raised from here, it would land in this hook, where
        # it is dropped too.
        _WATCHDOG.again(watch, IMPORT_RECHECK_S)
        return
    _previous_hook(unraisable)


def _hook_unraisable() -> None:
    """Put `_deliver_again` in front of the hook in place now (a test runner sets its own)."""
    global _previous_hook
    current = sys.unraisablehook
    if current is not _deliver_again:
        _previous_hook = current
        sys.unraisablehook = _deliver_again


def with_time_limit(seconds: float, fn: Callable[[], T], *, what: str = "evaluation") -> T:
    """Run `fn` in this thread; past `seconds`, interrupt it and raise ExpressionTimeout.

    A watchdog thread raises an exception inside the calling thread (CPython's
    PyThreadState_SetAsyncExc), so this works on the main thread and in worker threads alike
    (Textual thread workers), unlike signal.alarm. Pure-Python work (all of sympy) is
    interrupted, though never in the middle of an import; a single long C call is not, which is
    why exact numbers are bounded before they are built. An interruption dropped where Python
    cannot raise (a weakref callback) is fired again. Nested calls run under the outermost
    limit.
    """
    if getattr(_nesting, "active", False):
        return fn()
    _nesting.active = True
    _hook_unraisable()
    try:
        watch = _nesting.watch = _WATCHDOG.watch(seconds)
        try:
            return fn()
        finally:
            _WATCHDOG.release(watch)
    except _TimeUp:
        raise ExpressionTimeout(f"{what} took too long (limit {seconds:g} s)") from None
    finally:
        _nesting.active = False
        _nesting.watch = None

"""`synchronized`: a method that runs under its object's lock (the UI calls from workers)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Concatenate, ParamSpec, Protocol, TypeVar

__all__ = ["Locked", "synchronized"]


class Locked(Protocol):
    """An object whose methods share one re-entrant lock."""

    _lock: threading.RLock


P = ParamSpec("P")
R = TypeVar("R")
L = TypeVar("L", bound=Locked)


def synchronized(method: Callable[Concatenate[L, P], R]) -> Callable[Concatenate[L, P], R]:
    """Run the method under the object's lock."""

    @functools.wraps(method)
    def locked(self: L, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with self._lock:
            return method(self, *args, **kwargs)

    return locked

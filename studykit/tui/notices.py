"""Notices a user needs once per run of the app, not on every card."""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from textual.app import App

TYPED_ANSWER = (
    "This card takes a typed answer: keys such as u and space go into the box. "
    "escape leaves the box (then they work again); f1 lists the keys."
)

_told: WeakKeyDictionary[App[Any], set[str]] = WeakKeyDictionary()


def tell_once(app: App[Any], message: str) -> bool:
    """Notify `message` unless this app has shown it already; True when shown now."""
    told = _told.setdefault(app, set())
    if message in told:
        return False
    told.add(message)
    app.notify(message, markup=False, timeout=8)
    return True

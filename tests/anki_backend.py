"""Typed access to a real Anki collection's parts that its API leaves optional."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from anki.collection import Collection
    from anki.dbproxy import DBProxy


def database(collection: Collection) -> DBProxy:
    """The open collection's database (None only once the collection is closed)."""
    assert collection.db is not None, "the collection is closed"
    return collection.db

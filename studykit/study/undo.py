"""One undo stack for every action a student takes: a rating, bury, unbury, suspend, unsuspend
and forget. Below this session's actions, the newest logged answer or forget (which outlive a
restart) is undone."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from studykit.srs.records import CardState
from studykit.srs.store import Store
from studykit.srs.transitions import undone
from studykit.study.card import StudyCard
from studykit.study.decks import LoadedDecks

__all__ = ["UNDO_DEPTH", "Action", "UndoStack", "Undone"]

UNDO_DEPTH = 1000
"""Actions the undo stack remembers (the oldest are dropped first)."""

Action = Literal["rate", "bury", "unbury", "suspend", "unsuspend", "forget"]


@dataclass(frozen=True)
class _Undoable:
    """One action on the undo stack; `log_id` names its review-log or forget row."""

    action: Action
    key: int
    deck_id: str
    card_id: str
    before: CardState
    log_id: int | None = None


@dataclass(frozen=True)
class Undone:
    """What an undo took back, and its card as it is now (None when it is no longer loaded)."""

    action: Action
    deck_id: str
    card_id: str
    card: StudyCard | None
    ordinal: int = 1

    @property
    def name(self) -> str:
        """`deck/card`, or `deck/card#2` for one of a card's several ordinals."""
        if self.card is not None:
            return self.card.name
        suffix = "" if self.ordinal == 1 else f"#{self.ordinal}"
        return f"{self.deck_id}/{self.card_id}{suffix}"


class UndoStack:
    """The session's actions, newest last, each taken back in the store when undone."""

    def __init__(self, store: Store, decks: LoadedDecks, answers_changed: Callable[[], None]):
        self._store = store
        self._decks = decks
        self._answers_changed = answers_changed  # an undone answer: today's counts change
        self._entries: list[_Undoable] = []

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Drop this session's actions (a sync merged answers under them)."""
        self._entries.clear()

    def push(self, action: Action, before: CardState, log_id: int | None = None) -> None:
        """Remember an action done to the card whose state was `before`."""
        self._entries.append(
            _Undoable(action, before.key, before.deck_id, before.card_id, before, log_id)
        )
        del self._entries[:-UNDO_DEPTH]

    def undo_last(self) -> Undone | None:
        """Undo the last action of any kind (persisted); None when there is nothing to undo."""
        while True:
            logged = not self._entries
            entry = self._logged_last() if logged else self._entries.pop()
            if entry is None:
                return None
            restored = self._revert(entry)
            if restored is not None:
                break
            if logged:  # the log's own newest row could not be taken back: stop, never spin
                return None
        ordinal = entry.before.ordinal
        found = self._decks.find(entry.deck_id, entry.card_id, ordinal)
        card = None
        if found is not None:  # a card no longer loaded keeps its row, unshown
            found[0].put(found[1], restored)
            card = self._decks.card(*found)
        return Undone(entry.action, entry.deck_id, entry.card_id, card, ordinal)

    def _logged_last(self) -> _Undoable | None:
        """The newest logged answer or forget as an undo entry (after a restart)."""
        answer, forget = self._store.last_answer(), self._store.last_forget()
        if answer is not None and (forget is None or answer.reviewed_at >= forget.forgotten_at):
            return _Undoable(
                "rate", answer.key, answer.deck_id, answer.card_id, answer.before, answer.id
            )
        if forget is not None:
            before = forget.before
            return _Undoable(
                "forget", forget.key, before.deck_id, before.card_id, before, forget.id
            )
        return None

    def _revert(self, entry: _Undoable) -> CardState | None:
        """Take one action back in the store; the restored state (None: it was already gone)."""
        store = self._store
        current = store.get_state(entry.key) or entry.before
        if entry.action == "rate":
            answer = None if entry.log_id is None else store.answer(entry.log_id)
            if answer is None:
                return None
            restored = undone(answer, current)
            store.undo_answer(answer.id, restored)
            self._answers_changed()
            return restored
        if entry.action == "forget":
            assert entry.log_id is not None
            restored = replace(entry.before, suspended=current.suspended)
            store.undo_forget(entry.log_id, restored)
            return restored
        if entry.action in ("bury", "unbury"):
            restored = replace(current, buried_until=entry.before.buried_until)
        else:
            restored = replace(current, suspended=entry.before.suspended)
        store.put_state(restored)
        return restored

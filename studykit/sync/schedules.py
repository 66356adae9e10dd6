"""Which studykit schedule an Anki card is: (deck, card, ordinal), ordinal = the card's ord + 1.

A note is one studykit card (its GUID hangs on deck id + card id); its Anki cards are the
card's directions or cloze deletions, in template order, each a schedule of its own. (A
package from before per-ordinal export may hold a computed card's baked variants as notes
of their own: the note of rank 0 carries the schedule, the others share its suspension.)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from studykit.srs.records import CardState
from studykit.srs.scheduler import schedule_key
from studykit.sync.state import HeldNote

if TYPE_CHECKING:
    from studykit.study.session import StudySession

__all__ = [
    "FIRST_ORDINAL",
    "MAX_ORDINAL",
    "ScheduleRef",
    "library_notes",
    "schedule_of",
    "supported",
]

FIRST_ORDINAL = 1
MAX_ORDINAL = 500
"""As Anki: cloze deletions c1 to c500 (the study database holds no other ordinal)."""


@dataclass(frozen=True)
class ScheduleRef:
    """One studykit schedule."""

    deck_id: str
    card_id: str
    ordinal: int

    @cached_property
    def key(self) -> int:
        """The study database's key of this schedule (a hash: computed once)."""
        return schedule_key(self.deck_id, self.card_id, self.ordinal)

    def fresh(self) -> CardState:
        """This schedule before any answer."""
        return CardState(self.key, self.deck_id, self.card_id, ordinal=self.ordinal)

    @classmethod
    def of(cls, state: CardState) -> ScheduleRef:
        """The schedule a stored state belongs to."""
        return cls(state.deck_id, state.card_id, state.ordinal)

    def __str__(self) -> str:
        suffix = "" if self.ordinal == FIRST_ORDINAL else f" (card {self.ordinal})"
        return f"{self.deck_id}/{self.card_id}{suffix}"


def supported(ordinal: int) -> bool:
    """Whether studykit can keep a schedule of this ordinal."""
    return FIRST_ORDINAL <= ordinal <= MAX_ORDINAL


def schedule_of(note: HeldNote, ord_: int) -> ScheduleRef:
    """The schedule of card `ord_` of one of our notes."""
    return ScheduleRef(note.deck_id, note.card_id, ord_ + 1)


def library_notes(session: StudySession) -> dict[str, HeldNote]:
    """Every loaded card's note by the GUID the export gives it (as the package would write it)."""
    from studykit.content.model import COMPUTED_KINDS
    from studykit.export.anki import note_guid

    notes: dict[str, HeldNote] = {}
    for deck in session.library.decks.values():
        for card in deck.cards:
            key: tuple[str, ...] = ("studykit", deck.id, card.id)
            if card.kind in COMPUTED_KINDS:
                key = (*key, "computed")
            guid = note_guid(key)
            notes[guid] = HeldNote(guid, deck.id, card.id, 0, None, "")
    return notes

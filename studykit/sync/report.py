"""What one sync moved, as lines for a terminal and as one JSON document."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from studykit.core.jsontypes import JsonObject
from studykit.core.terminal import terminal_safe

if TYPE_CHECKING:
    from studykit.content.loading import Library
    from studykit.sync.state import Conflict

FSRS_OFF = (
    "FSRS is off in this Anki collection: Anki schedules studykit's cards there with its old "
    "algorithm and drops their memory state when you answer them (studykit works it out again "
    "at each sync). `studykit sync --enable-fsrs` switches FSRS on; the switch is Anki's for "
    "the whole collection, so it also changes how Anki schedules your other decks."
)


@dataclass(frozen=True)
class ConflictLine:
    """One conflict, with the card's place in the YAML."""

    kind: str
    deck_id: str
    card_id: str
    where: str
    detail: str
    new: bool

    def text(self) -> str:
        """The line a terminal shows."""
        card = f"{self.deck_id}/{self.card_id}"
        if self.kind == "edited":
            return (
                f"{self.where}: {card} edited in Anki ({self.detail}); YAML is the master copy: "
                "the edit stays in Anki until you change this card in the YAML"
            )
        if self.kind == "deleted":
            return (
                f"{self.where}: {card} deleted in Anki; it is not brought back until you change "
                "this card in the YAML (its schedule stays in studykit)"
            )
        if self.kind == "brought-back":
            return f"{self.where}: {card} deleted in Anki, brought back: its YAML changed"
        if self.kind == "replaced":
            return f"{self.where}: {card} edited in Anki, replaced by the changed YAML"
        return f"{self.where}: {card} edited in Anki, the same as the YAML again"


def where(library: Library, deck_id: str, card_id: str) -> str:
    """`file:line` of a card in the YAML (its deck's file when the card is gone)."""
    deck = library.decks.get(deck_id)
    if deck is None:
        return f"(deck {deck_id} is not loaded)"
    for card in deck.cards:
        if card.id == card_id and card.origin is not None:
            return f"{card.origin.path}:{card.origin.line}"
    origin = deck.origin
    return f"{origin.path} (card no longer there)" if origin is not None else deck_id


def conflict_line(library: Library, conflict: Conflict, kind: str, *, new: bool) -> ConflictLine:
    """A conflict as reported."""
    return ConflictLine(
        kind,
        conflict.deck_id,
        conflict.card_id,
        where(library, conflict.deck_id, conflict.card_id),
        conflict.detail,
        new,
    )


@dataclass
class SyncReport:
    """What one sync moved."""

    server: str
    seconds: float = 0.0
    full: str | None = None
    """`download` or `upload` when the sync was a full one."""
    answers_in: int = 0
    forgets_in: int = 0
    set_due_in: int = 0
    suspended_in: int = 0
    unsuspended_in: int = 0
    buried_in: int = 0
    unburied_in: int = 0
    cram_left_out: int = 0
    """Answers from an Anki cram deck to cards that were not due (the quiz rule)."""
    rescheduled_in: int = 0
    """Anki's own rescheduling rows (FSRS "reschedule cards"): studykit schedules instead."""
    unplaced: int = 0
    """Answers to Anki cards that are no loaded studykit schedule (a card gone from the YAML)."""
    answers_out: int = 0
    forgets_out: int = 0
    states_out: int = 0
    held_back: int = 0
    """Card states not sent: the card is in one of Anki's filtered decks."""
    notes_added: int = 0
    notes_updated: int = 0
    removed_sent: int = 0
    presets_updated: int = 0
    content_held: int = 0
    """Files that failed to load: no content went into Anki this time."""
    conflicts: list[ConflictLine] = field(default_factory=list)
    ended: list[ConflictLine] = field(default_factory=list)
    """Conflicts this sync ended (brought back, or replaced by the changed YAML)."""
    fsrs: bool = True
    fsrs_enabled: bool = False
    media: str | None = None
    """What went wrong with the media sync, if anything."""
    server_message: str = ""

    def as_json(self) -> JsonObject:
        """The report as one JSON object."""
        return asdict(self)

    def lines(self) -> list[str]:
        """The report for a terminal."""
        how = {"download": ", after a full download", "upload": ", a full upload"}.get(
            self.full or "", ""
        )
        lines = [f"Synced with {terminal_safe(self.server)} in {self.seconds:.1f} s{how}."]
        came = _parts(
            ("answer", self.answers_in),
            ("forget", self.forgets_in),
            ("due date set", self.set_due_in),
            ("card suspended", self.suspended_in),
            ("card unsuspended", self.unsuspended_in),
            ("card buried", self.buried_in),
            ("card unburied", self.unburied_in),
        )
        lines.append(f"In from Anki: {came or 'nothing new'}.")
        went = _parts(
            ("answer", self.answers_out),
            ("forget", self.forgets_out),
            ("card state", self.states_out),
        )
        notes = ", ".join(
            f"{count} {word}"
            for word, count in (("added", self.notes_added), ("updated", self.notes_updated))
            if count
        )
        out = f"Out to Anki: {went or 'nothing new'}"
        lines.append(out + (f"; notes: {notes}." if notes else "."))
        if self.cram_left_out:
            lines.append(
                f"{self.cram_left_out} answer(s) from an Anki filtered deck to cards that were "
                "not due left their schedules alone (as a quiz does here; quiz_counts = true "
                "counts them)."
            )
        if self.rescheduled_in:
            lines.append(
                f"{self.rescheduled_in} rescheduling row(s) written by Anki were not taken: "
                "studykit schedules from the review log, and its schedule went back out."
            )
        if self.unplaced:
            lines.append(
                f"{self.unplaced} answer(s) to studykit notes in Anki whose cards are no longer "
                "in the YAML stay in Anki."
            )
        if self.held_back:
            lines.append(
                f"{self.held_back} card(s) sit in an Anki filtered deck: their studykit schedule "
                "goes out once they are back in their home deck."
            )
        if self.removed_sent:
            lines.append(
                f"{self.removed_sent} card(s) removed from the YAML went out tagged "
                "studykit::removed."
            )
        if self.content_held:
            lines.append(
                f"No content went into Anki: {self.content_held} file(s) failed to load "
                "(they are listed on stderr; `studykit check` says more). Answers synced."
            )
        if self.conflicts:
            lines.append(f"Conflicts ({len(self.conflicts)}); YAML is the master copy:")
            lines += [f"  {terminal_safe(c.text())}" for c in self.conflicts]
        lines += [f"  {terminal_safe(c.text())}" for c in self.ended]
        if self.fsrs_enabled:
            lines.append("FSRS is now on in the Anki collection.")
        elif not self.fsrs:
            lines.append(FSRS_OFF)
        if self.media:
            lines.append(f"Media: {terminal_safe(self.media)}")
        if self.server_message:
            lines.append(f"The server says: {terminal_safe(self.server_message)}")
        return lines


def _parts(*pairs: tuple[str, int]) -> str:
    return ", ".join(
        f"{count} {_plural(word) if count != 1 else word}" for word, count in pairs if count
    )


_PLURALS = {
    "card suspended": "cards suspended",
    "card unsuspended": "cards unsuspended",
    "card buried": "cards buried",
    "card unburied": "cards unburied",
    "due date set": "due dates set",
}


def _plural(word: str) -> str:
    return _PLURALS.get(word, word + "s")

"""`studykit sync obsidian VAULT`: the Spaced Repetition plugin's schedules both ways.

In: a card's `<!--SR:!due,interval,ease-->` that moved on since studykit's schedule (the
plugin reviewed it on `due - interval`) is read as an answer on that day, every sibling, and
folded into the card's log exactly as an answer from Anki is. The plugin keeps no rating, so
it comes from the ease: up is Easy, down is Hard (Again when the interval fell to a day),
unchanged is Good.

Out: studykit's schedule is written into the SR comment of each card that came from that
vault (its deck file says it was imported from that note). Only the comment changes; each
changed note is first kept as `NOTE.md.bak` (never over an older backup), and a note that
changed since it was read is left alone and named.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from studykit.core.files import FileRefused, read_regular, replace_atomically
from studykit.importers.deckfiles import (
    WriteRefused,
    backup_copy,
    imported_sources,
)
from studykit.importers.decks import ImportedCard
from studykit.importers.srschedule import Schedule, ease_from_difficulty
from studykit.importers.vault import read_vault, vault_decks
from studykit.srs.records import OBSIDIAN_ANSWER_SOURCE, Answer, CardState
from studykit.srs.scheduler import Rating
from studykit.sync.merge import Incoming, merge_into
from studykit.sync.schedules import ScheduleRef, supported
from studykit.sync.srcomments import CardSpan, rewrite

if TYPE_CHECKING:
    from studykit.study.session import StudySession

__all__ = ["VaultReport", "sync_obsidian", "take_in_reviews"]

_EASE_STEP = 10
_NOON = timedelta(hours=12)


@dataclass
class VaultReport:
    """What one `sync obsidian` read and wrote."""

    vault: str
    notes: int = 0
    cards: int = 0
    answers_in: int = 0
    waiting: int = 0
    """Reviews of siblings past the last ordinal studykit keeps (c500)."""
    written: list[str] = field(default_factory=list)
    backups: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    """`file: why` for each note not written."""

    def lines(self) -> list[str]:
        """The report for a terminal."""
        lines = [
            f"{self.vault}: {self.cards} card(s) in {self.notes} note(s) came from this vault; "
            f"{self.answers_in} review(s) read from the plugin's schedules, "
            f"{len(self.written)} note(s) given studykit's schedules."
        ]
        lines += [
            f"Wrote {path} (the old one kept as {backup})"
            for path, backup in zip(self.written, self.backups, strict=True)
        ]
        if self.waiting:
            lines.append(
                f"{self.waiting} review(s) of siblings past c500 stay in the plugin's comment."
            )
        lines += [f"Not written: {why}" for why in self.refused]
        return lines


@dataclass(frozen=True)
class _Note:
    path: Path
    digest: str
    text: str
    cards: list[tuple[str, ImportedCard]]
    """(deck id, card) of the cards studykit has from this note."""


def _study_date(session: StudySession, moment: datetime) -> date:
    return session.study_day(moment)


def _day_start(session: StudySession, day: date) -> datetime:
    now = session.now()
    start, _ = session.day_bounds(now)
    offset = (day - session.study_day(now)).days
    return session.day_bounds(start + timedelta(days=offset) + _NOON)[0]


def plugin_entry(session: StudySession, state: CardState | None) -> Schedule | None:
    """The plugin's entry for a studykit schedule (None: new here)."""
    if state is None or state.state is None or state.due is None or state.last_review is None:
        return None
    due = _study_date(session, state.due)
    interval = max(1, (due - _study_date(session, state.last_review)).days)
    ease = ease_from_difficulty(state.difficulty if state.difficulty is not None else 5.0)
    return Schedule(due, interval, ease)


def _plugin_answer(
    session: StudySession, state: CardState | None, entry: Schedule, history: list[Answer]
) -> Incoming | None:
    """The review the plugin made, if its entry moved on since studykit's schedule."""
    ours = plugin_entry(session, state)
    if ours == entry:
        return None
    reviewed = entry.due - timedelta(days=entry.interval)
    if reviewed > session.study_day(session.now()):
        return None
    last = state.last_review if state is not None else None
    if last is not None:
        last_day = _study_date(session, last)
        if reviewed < last_day:
            return None  # studykit's schedule is newer: it goes into the comment
        if reviewed == last_day and history and history[-1].imported:
            return None  # the plugin's schedule as imported, not a review since
    for answer in history:
        if (
            answer.source == OBSIDIAN_ANSWER_SOURCE
            and _study_date(session, answer.reviewed_at) == reviewed
        ):
            return None  # read before (the comment was not rewritten since)
    before = ours.ease if ours is not None else 250
    if entry.ease - before >= _EASE_STEP:
        rating = Rating.Easy
    elif before - entry.ease >= _EASE_STEP:
        rating = Rating.Again if entry.interval <= 1 else Rating.Hard
    else:
        rating = Rating.Good
    at = _day_start(session, reviewed) + timedelta(hours=8)  # noon with a 4 a.m. rollover
    if last is not None and at <= last:
        at = last + timedelta(seconds=1)
    return Incoming(at, "answer", rating, 0, None, OBSIDIAN_ANSWER_SOURCE)


def _notes(session: StudySession, vault: Path) -> tuple[list[_Note], list[str]]:
    """The vault's notes that studykit has decks of, read once (text and digest); cards get
    their ids as the import gives them (block ids, else fronts, over the whole vault)."""
    library = session.library
    read = read_vault(vault)
    by_note: dict[str, list[tuple[str, ImportedCard]]] = {}
    for deck in vault_decks(read).decks:
        ours = library.decks.get(deck.id)
        if ours is None or ours.origin is None:
            continue
        try:
            header = (library.root / ours.origin.path).read_text(encoding="utf-8")
        except OSError:
            continue
        sources = set(imported_sources(header) or [])
        ids = {card.id for card in ours.cards}
        for card in deck.cards:
            if card.note in sources and card.id in ids:  # a deck of that id from this vault
                by_note.setdefault(card.note, []).append((deck.id, card))
    notes: list[_Note] = []
    for note in read.notes:
        cards = by_note.get(note.path.as_posix())
        if not cards:
            continue
        text = note.data.decode("utf-8-sig")
        notes.append(_Note(vault / note.path, hashlib.sha256(note.data).hexdigest(), text, cards))
    return notes, []


def sync_obsidian(session: StudySession, vault: Path) -> VaultReport:
    """Read the plugin's newer schedules as answers, then write studykit's into the notes."""
    report = VaultReport(str(vault))
    notes, report.refused = _notes(session, vault)
    report.notes = len(notes)
    take_in_reviews(session, notes, report)
    for note in notes:
        _write_note(session, note, report)
    return report


def take_in_reviews(session: StudySession, notes: list[_Note], report: VaultReport) -> None:
    """The plugin's reviews newer than studykit's schedules, folded into the log."""
    store = session.store
    incoming: dict[ScheduleRef, list[Incoming]] = {}
    for note in notes:
        for deck_id, card in note.cards:
            report.cards += 1
            for index, entry in enumerate(card.schedules):
                ref = ScheduleRef(deck_id, card.id, index + 1)
                state = store.get_state(ref.key)
                history = store.history(ref.key) if state is not None else []
                found = _plugin_answer(session, state, entry, history)
                if found is None:
                    continue
                if not supported(ref.ordinal):
                    report.waiting += 1
                    continue
                incoming.setdefault(ref, []).append(found)
    report.answers_in += merge_into(session, incoming).answers


def _write_note(session: StudySession, note: _Note, report: VaultReport) -> None:
    edits: list[tuple[CardSpan, list[Schedule]]] = []
    for deck_id, card in note.cards:
        # Each sibling's entry from its own schedule; a sibling with none here (never
        # answered) keeps the plugin's.
        entries = list(card.schedules)
        for index in range(max(1, len(entries))):
            ref = ScheduleRef(deck_id, card.id, index + 1)
            ours = (
                plugin_entry(session, session.store.get_state(ref.key))
                if supported(ref.ordinal)
                else None
            )
            if ours is not None:
                entries[index : index + 1] = [ours]
        if not entries:
            continue
        if entries != list(card.schedules):
            edits.append((CardSpan(card.line, card.end or card.line), entries))
    if not edits:
        return
    text = rewrite(note.text, edits)
    if text == note.text:
        return
    try:
        now = read_regular(note.path)
    except FileRefused as error:
        report.refused.append(f"{note.path}: {error}")
        return
    if hashlib.sha256(now).hexdigest() != note.digest:
        report.refused.append(f"{note.path}: it changed since it was read; run the sync again")
        return
    if now.startswith(b"\xef\xbb\xbf"):
        text = "\ufeff" + text  # the byte-order mark stays, as every other byte
    try:
        backup = backup_copy(note.path)
        replace_atomically(note.path, text)
    except (OSError, WriteRefused) as error:
        report.refused.append(f"{note.path}: {error}")
        return
    report.written.append(str(note.path))
    report.backups.append(backup.name)

"""Revlog rows for studykit's answers and forgets: the ids they get in the mirror (kept
free of every id in use there and here) and their columns, with the mirror's day numbers."""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from studykit.export.schedule import AnkiDays, Snapshot, revlog_fields
from studykit.srs.ankilinks import LogRow
from studykit.srs.records import Forget, from_us, to_us
from studykit.sync.errors import SyncFailed
from studykit.sync.remote import REVLOG_MANUAL, revlog_ids, revlog_ids_between

if TYPE_CHECKING:
    from studykit.study.session import StudySession
    from studykit.sync.mirror import Mirror

__all__ = ["mirror_days", "missing_rows", "new_rows"]

_SPARE_IDS = 10_000
_MANY_ROWS = 1000
"""From this many log rows on, day numbers come from a table of the study days' starts."""


class _StudyDays:
    """The session's study day of an instant, each instant worked out once: a push asks for
    the same ones again (a card's due date, for its row and for its log's newest row)."""

    def __init__(self, study_day: Callable[[datetime], date]) -> None:
        self._study_day = study_day
        self._known: dict[datetime, date] = {}

    def __call__(self, moment: datetime) -> date:
        found = self._known.get(moment)
        if found is None:
            found = self._known[moment] = self._study_day(moment)
        return found


def mirror_days(session: StudySession, mirror: Mirror) -> AnkiDays:
    """The session's study days numbered as the mirror numbers its own."""
    now = session.now()
    _, end = session.day_bounds(now)
    return AnkiDays(
        crt=int(mirror.col.crt),
        today=session.study_day(now),
        tomorrow_at=end,
        study_day=_StudyDays(session.study_day),
        offset=mirror.today,
    )


def _free_ids(wanted: Sequence[int], taken: set[int]) -> list[int]:
    """Each wanted id, moved on past every id in `taken` (which grows)."""
    out = []
    for row_id in wanted:
        while row_id in taken:
            row_id += 1
        taken.add(row_id)
        out.append(row_id)
    return out


class _DayNumbers:
    """`AnkiDays.day` of many instants (epoch µs), by bisecting the study days' starts."""

    def __init__(self, session: StudySession, days: AnkiDays, low_us: int, high_us: int) -> None:
        start, end = session.day_bounds(from_us(low_us))
        self.first = days.day(start)
        self.starts = [to_us(start)]
        while to_us(end) <= high_us:
            self.starts.append(to_us(end))
            end = session.day_bounds(end)[1]

    def __call__(self, us: int) -> int:
        return self.first + bisect.bisect_right(self.starts, us) - 1


def _revlog_row(
    anki_id: int, cid: int, row: LogRow, day_of: Callable[[int], int]
) -> tuple[Any, ...]:
    before = Snapshot(row.before_state, row.before_due_us, row.before_last_us)
    after = Snapshot(row.after_state, row.after_due_us, row.after_last_us, row.after_difficulty)
    return (anki_id, cid, *revlog_fields(row.rating, row.duration_ms, before, after, day_of))


def _day_numbers(
    session: StudySession, days: AnkiDays, rows: Sequence[LogRow]
) -> Callable[[int], int]:
    times = [
        t
        for r in (rows if len(rows) >= _MANY_ROWS else ())
        for t in (r.before_due_us, r.before_last_us, r.after_due_us, r.after_last_us)
        if t is not None
    ]
    if not times:
        return lambda us: days.day(from_us(us))
    return _DayNumbers(session, days, min(times), max(times))


def new_rows(
    session: StudySession,
    mirror: Mirror,
    days: AnkiDays,
    answers: Sequence[LogRow],
    forgets: Sequence[Forget],
    cid: Mapping[int, int],
) -> tuple[list[tuple[Any, ...]], list[tuple[int, int]], list[tuple[int, int]]]:
    """Revlog rows for answers and forgets without an Anki id, and the ids they get."""
    answers = [a for a in answers if a.key in cid]
    forgets = [f for f in forgets if f.key in cid]
    wanted = [a.reviewed_at_us // 1000 for a in answers]
    wanted += [math.floor(f.forgotten_at.timestamp() * 1000) for f in forgets]
    if not wanted:
        return [], [], []
    # Every id in use between the first wanted and where the last could be moved to: in the
    # mirror (its other decks too) and in the study database (rows not synced back yet).
    low, high = min(wanted), max(wanted) + len(wanted) + _SPARE_IDS
    taken = revlog_ids_between(mirror.db, low, high) | session.store.anki_ids_between(low, high)
    ids = _free_ids(wanted, taken)
    if ids and max(ids) > high:
        raise SyncFailed("the mirror's revlog has no free ids near these answers' times")
    day_of = _day_numbers(session, days, answers)
    rows = [
        _revlog_row(anki_id, cid[answer.key], answer, day_of)
        for answer, anki_id in zip(answers, ids, strict=False)
    ]
    links = [(answer.id, anki_id) for answer, anki_id in zip(answers, ids, strict=False)]
    forget_links: list[tuple[int, int]] = []
    for forget, anki_id in zip(forgets, ids[len(answers) :], strict=True):
        rows.append(_forget_row(anki_id, cid[forget.key], forget, days))
        forget_links.append((forget.id, anki_id))
    return rows, links, forget_links


def _forget_row(anki_id: int, cid: int, forget: Forget, days: AnkiDays) -> tuple[Any, ...]:
    """A forget as Anki logs a reset: a manual row, ease 0, with the interval it ended."""
    before = forget.before
    last_ivl = 0
    if before.due is not None and before.last_review is not None:
        last_ivl = max(0, days.day(before.due) - days.day(before.last_review))
    return (anki_id, cid, 0, 0, last_ivl, 0, 0, REVLOG_MANUAL)


def missing_rows(
    session: StudySession,
    mirror: Mirror,
    days: AnkiDays,
    keys: Sequence[int],
    cid: Mapping[int, int],
) -> list[tuple[Any, ...]]:
    """Rows of these cards that went out once but are not in the mirror now."""
    keys = [key for key in keys if key in cid]
    if not keys:
        return []
    store = session.store
    sent = store.sent_log(keys)
    gone_forgets = store.sent_forgets(keys)
    present = revlog_ids(
        mirror.db,
        [r.anki_revlog_id for r in sent if r.anki_revlog_id] + [i for i, _ in gone_forgets],
    )
    lost = [r for r in sent if r.anki_revlog_id is not None and r.anki_revlog_id not in present]
    day_of = _day_numbers(session, days, lost)
    rows = [_revlog_row(r.anki_revlog_id or 0, cid[r.key], r, day_of) for r in lost]
    rows += [
        _forget_row(anki_id, cid[forget.key], forget, days)
        for anki_id, forget in gone_forgets
        if anki_id not in present
    ]
    return rows

"""One `studykit sync`: pull, fold Anki's answers into the log, bring content in, push, sync.

1. Pull first: a normal sync of the mirror. When the server asks for a full sync the mirror
   always downloads, then everything here goes out again; it uploads only to an empty
   server, and only when the user agrees (`--yes`).
2. Each new Anki answer is placed on its studykit card through the note GUIDs and card
   ordinals, added to the review log with its revlog id, and every touched card's log is
   replayed (`merge.py`). Suspensions, burials and conflicts are read too.
3. Content changes come in as studykit's own package; then answers, forgets and card states
   go out (`push.py`), a second sync sends them, and media follows.

Every step can be killed: answers are deduped by revlog id, ids are kept before they are
written to the mirror, and the bookkeeping moves on only after the final sync.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from studykit.content.loading.gcpause import gc_paused
from studykit.sync.account import SyncKey, SyncPaths, keep_new_endpoint, read_key
from studykit.sync.conflicts import detect_conflicts
from studykit.sync.content import ContentResult, bring_content
from studykit.sync.errors import NotLoggedIn, SyncFailed, UploadDeclined, from_anki
from studykit.sync.merge import FlagChange, Incoming, incoming_of, kind_of, merge_into
from studykit.sync.mirror import Mirror, Required, remove_mirror
from studykit.sync.push import push
from studykit.sync.remote import (
    RemoteCard,
    RemoteRow,
    changed_cards,
    model_ids,
    new_revlog,
)
from studykit.sync.report import SyncReport, conflict_line
from studykit.sync.schedules import ScheduleRef, library_notes, schedule_of, supported
from studykit.sync.state import HeldNote, SyncState, open_state

if TYPE_CHECKING:
    from studykit.study.session import StudySession

__all__ = ["SyncOptions", "run_sync"]

Progress = Callable[[str], None]


@dataclass(frozen=True)
class SyncOptions:
    """How one sync may go."""

    yes: bool = False
    """Upload to an empty server without asking."""
    enable_fsrs: bool = False
    """Switch FSRS on in the Anki collection when it is off."""
    confirm_upload: Callable[[str], bool] | None = None
    """Asked before uploading to an empty server (None and not `yes`: refuse)."""
    progress: Progress | None = None


def _say(options: SyncOptions, text: str) -> None:
    if options.progress is not None:
        options.progress(text)


def run_sync(session: StudySession, paths: SyncPaths, options: SyncOptions) -> SyncReport:
    """Sync the session's study database with the logged-in account, through the mirror."""
    key = read_key(paths)
    if key is None:
        raise NotLoggedIn()
    started = time.monotonic()
    with open_state(paths.state) as state:
        if state.get("account") != key.account:
            if state.get("account") is not None:  # the mirror of another account
                remove_mirror(paths)
            state.reset()
            session.store.mark_all_unsent()
            state.set(account=key.account)
        report = SyncReport(server=key.server)
        _say(options, "Opening the mirror collection…")
        with Mirror.open(paths) as mirror:
            from anki.errors import BackendError

            try:
                _Run(session, mirror, state, paths, options, report).sync(key)
            except BackendError as error:  # a backend call not made through `Mirror.run`
                raise from_anki(error, key.server) from error
    report.seconds = time.monotonic() - started
    return report


class _Run:
    """The steps of one sync, sharing the mirror, the bookkeeping and the report."""

    def __init__(
        self,
        session: StudySession,
        mirror: Mirror,
        state: SyncState,
        paths: SyncPaths,
        options: SyncOptions,
        report: SyncReport,
    ) -> None:
        self.session, self.mirror, self.state = session, mirror, state
        self.paths, self.options, self.report = paths, options, report
        self.asked = False
        self.new_collection = False
        """This sync fills an empty mirror that goes up to an empty server: a collection
        of studykit's own, with no other decks whose scheduling FSRS would change."""

    def _server_said(self, key: SyncKey, required: Required) -> SyncKey:
        """Keep a new endpoint the server names (AnkiWeb moves accounts between hosts)."""
        if required.server_message:
            self.report.server_message = required.server_message
        moved = keep_new_endpoint(self.paths, key, required.new_endpoint)
        if moved != key:
            self.report.server = moved.server
        return moved

    def _agree_to_upload(self) -> None:
        """UploadDeclined unless the user agrees (or gave `--yes`)."""
        if self.options.yes or self.asked:
            return
        fsrs = " (a new Anki collection, with FSRS on as studykit schedules)"
        question = (
            f"The server {self.report.server} holds no collection. Upload studykit's decks and "
            f"your review history there{fsrs if self._fsrs_goes_on() else ''}?"
        )
        confirm = self.options.confirm_upload
        if confirm is None or not confirm(question):
            raise UploadDeclined(
                f"the server {self.report.server} holds no collection and nothing was uploaded; "
                "`studykit sync --yes` uploads studykit's decks and your review history there",
                question=question,
            )
        self.asked = True

    def _download(self, key: SyncKey, required: Required) -> None:
        _say(self.options, "Downloading the server's collection (a full sync)…")
        self.state.set(usn=None, content=None, full_pending=True)
        self.mirror.full(key, upload=False, server_usn=required.media_usn)
        self.report.full = "download"

    def sync(self, key: SyncKey, *, retried: bool = False) -> None:
        mirror, state, session = self.mirror, self.state, self.session
        _say(self.options, "Pulling from the server…")
        pre_usn = mirror.usn
        required = mirror.sync(key)
        key = self._server_said(key, required)
        if required.kind in ("full", "download"):
            self._download(key, required)
            pre_usn = mirror.usn
        elif required.kind == "upload" or mirror.col.card_count() == 0:
            # Nothing to download into an empty mirror: the server is empty too. Ask now,
            # before anything is done, since this sync ends in a full upload.
            self.new_collection = mirror.col.note_count() == 0
            self._agree_to_upload()
        full = bool(state.get("full_pending"))
        since = None if full or state.get("usn") is None else int(state.get("usn"))
        models = model_ids(mirror.db)
        _say(self.options, "Taking in what changed in Anki…")
        # The steps that build many rows pause the collector (not the whole run, which may
        # wait on the user's answer): on a first sync its walks of the session's library were
        # ~5 % of the time.
        with gc_paused():
            self._take_in(models, since)
        news = detect_conflicts(session, mirror, state, self.paths, models, since)
        self._check_fsrs()
        if session.library.problems:
            # A deck that failed to load would go out as removed: the content waits.
            content = ContentResult()
            self.report.content_held = len(session.library.bad_files)
        else:
            _say(self.options, "Bringing content changes into the mirror…")
            with gc_paused():
                content = bring_content(session, mirror, state, self.paths, force=since is None)
        models = model_ids(mirror.db)  # a first import brings studykit's notetypes
        report = self.report
        report.notes_added += content.added
        report.notes_updated += content.updated
        report.presets_updated += content.presets
        report.removed_sent = content.removed
        library = session.library
        new = {c.guid for c in [*news.edited, *news.deleted]}
        report.conflicts = [
            conflict_line(library, c, c.kind, new=c.guid in new) for c in state.conflicts().values()
        ]
        report.ended = [
            conflict_line(library, c, "brought-back", new=True) for c in content.brought_back
        ]
        report.ended += [conflict_line(library, c, "replaced", new=True) for c in content.replaced]
        report.ended += [conflict_line(library, c, "resolved", new=True) for c in news.resolved]
        _say(self.options, "Pushing studykit's answers and card states…")
        if full:
            session.store.mark_all_unsent()
        full_keys = self._full_keys(content.new_guids, full)
        store = session.store
        going = store.unsent_keys()
        # Kept until the final sync: a sync killed after the ids were kept checks these again.
        state.set(pushing=sorted(going | set(state.get("pushing") or [])))
        with gc_paused():
            pushed = push(session, mirror, state, models, full=full_keys, say=self.options.progress)
        report.answers_out += pushed.answers
        report.forgets_out += pushed.forgets
        report.states_out += pushed.states
        report.held_back = pushed.filtered
        _say(self.options, "Syncing…")
        final = mirror.sync(key)
        key = self._server_said(key, final)
        if final.kind == "upload":
            self._agree_to_upload()
            _say(self.options, "Uploading to the empty server (a full sync)…")
            mirror.full(key, upload=True, server_usn=final.media_usn)
            report.full = "upload"
            pre_usn = mirror.usn
        elif final.kind in ("full", "download"):
            if retried:
                raise SyncFailed(
                    f"the server {report.server} asked for a full sync twice in one run; "
                    "nothing was lost: run `studykit sync` again"
                )
            self._download(key, final)
            self.sync(key, retried=True)
            return
        if content.media:
            state.set(media_pending=True)
        if state.get("media_pending"):
            # Only when studykit put images or plots into the mirror: a media sync also
            # brings the collection's other media, which may be large.
            _say(self.options, "Syncing media…")
            report.media = mirror.sync_media(key)
            if report.media is None:
                state.set(media_pending=None)
        _say(self.options, "Recording what went out…")
        session.store.mark_sent(pushed.sent)
        state.put_hidden(pushed.hidden)
        state.set(usn=pre_usn, full_pending=None, pushing=None)
        state.set(last={"at": session.now().isoformat(), **report.as_json()})

    def _take_in(self, models: tuple[int, ...], since: int | None) -> None:
        """Anki's new revlog rows and flag changes into the study database."""
        mirror, state, session = self.mirror, self.state, self.session
        rows = new_revlog(mirror.db, models, since)
        known = session.store.known_anki_ids([row.id for row in rows]) if rows else set()
        rows = [row for row in rows if row.id not in known]
        cards = changed_cards(mirror.db, models, since)
        guids = list({*(r.guid for r in rows), *(c.guid for c in cards)})
        held = state.notes(guids)
        if len(held) < len(guids):
            # Notes studykit has not imported into this mirror yet (a first sync with a
            # collection that has them from an exported package): placed by the YAML's GUIDs.
            held = {**library_notes(session), **held}
        set_due = self._set_due(rows, cards)
        by_ref: dict[ScheduleRef, list[Incoming]] = {}
        for row in rows:
            note = held.get(row.guid)
            ref = None if note is None else schedule_of(note, row.ord)
            if ref is None or not supported(ref.ordinal):
                if kind_of(row) in ("answer", "cram"):
                    self.report.unplaced += 1
                continue
            by_ref.setdefault(ref, []).append(incoming_of(row, set_due.get(row.id)))
        flags, shown = _flag_changes(cards, held, state.hidden())
        counts = merge_into(session, by_ref, flags)
        state.put_hidden(shown)
        report = self.report
        report.answers_in += counts.answers
        report.forgets_in += counts.forgets
        report.set_due_in += counts.set_due
        report.cram_left_out += counts.cram_left_out
        report.rescheduled_in += counts.rescheduled
        report.suspended_in += counts.suspended
        report.unsuspended_in += counts.unsuspended
        report.buried_in += counts.buried
        report.unburied_in += counts.unburied

    def _set_due(
        self, rows: list[RemoteRow], cards: list[RemoteCard]
    ) -> dict[int, datetime | None]:
        """For each set-due row that is its card's newest: the due date the card has in Anki."""
        newest: dict[int, int] = {}
        for row in rows:
            newest[row.cid] = max(newest.get(row.cid, 0), row.id)
        by_id = {card.id: card for card in cards}
        session = self.session
        start, _ = session.day_bounds(session.now())
        found: dict[int, datetime | None] = {}
        for row in rows:
            if kind_of(row) != "set-due":
                continue
            card = by_id.get(row.cid)
            if card is None or newest[row.cid] != row.id or card.type != 2:
                found[row.id] = None
                continue
            days = card.due - self.mirror.today
            found[row.id] = session.day_bounds(start + timedelta(days=days, hours=12))[0]
        return found

    def _fsrs_goes_on(self) -> bool:
        """FSRS is off and this sync switches it on: asked for, or a new collection of
        studykit's own (the question before its upload says so)."""
        return not self.mirror.fsrs and (self.options.enable_fsrs or self.new_collection)

    def _check_fsrs(self) -> None:
        mirror = self.mirror
        if mirror.fsrs:
            return
        if self._fsrs_goes_on():
            mirror.enable_fsrs()
            self.report.fsrs_enabled = True
        else:
            self.report.fsrs = False

    def _full_keys(self, new_guids: list[str], full: bool) -> list[int]:
        """Cards whose every logged row must be in the mirror: new there, or all after a full
        download, or those whose push a killed sync left unfinished."""
        store = self.session.store
        notes = self.state.notes(new_guids).values()
        keys = store.keys_of_cards([(n.deck_id, n.card_id) for n in notes if n.rank == 0])
        if full:
            keys += store.keys_with_anki_rows()
        keys += [int(key) for key in self.state.get("pushing") or []]
        return list(dict.fromkeys(keys))


# Anki's -2 (buried because a sibling was answered) is no burial here: studykit buries
# siblings itself, day by day.
_HIDDEN_SUSPENDED, _HIDDEN_BURIED = -1, (-3,)


def _flag_changes(
    cards: list[RemoteCard], held: Mapping[str, HeldNote], sent: dict[int, int]
) -> tuple[dict[ScheduleRef, FlagChange], dict[int, int | None]]:
    """Suspensions and burials changed in Anki since the card's state last went out."""

    def kind(queue: int | None) -> str:
        if queue == _HIDDEN_SUSPENDED:
            return "suspended"
        if queue in _HIDDEN_BURIED:
            return "buried"
        return "shown"

    changes: dict[ScheduleRef, FlagChange] = {}
    shown: dict[int, int | None] = {}
    for card in cards:
        note = held.get(card.guid)
        if note is None or note.rank != 0:
            continue
        ref = schedule_of(note, card.ord)
        if not supported(ref.ordinal):
            continue
        now, before = kind(card.queue), kind(sent.get(card.id))
        shown[card.id] = card.queue if card.queue in (-1, -3) else None
        if now == before:
            continue
        suspended = (now == "suspended") if "suspended" in (now, before) else None
        buried = (now == "buried") if "buried" in (now, before) else None
        changes[ref] = FlagChange(suspended=suspended, buried=buried)
    return changes, shown

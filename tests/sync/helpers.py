"""Real parts for the sync tests: Anki's own sync server in a child process, a second Anki
collection that plays the phone, and a studykit data dir with a small library on disk."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studykit.core.config import Settings
from studykit.export.anki import note_guid
from tests.anki_backend import database

if TYPE_CHECKING:
    from anki.cards import Card
    from anki.collection import Collection

    from studykit.study.session import StudySession
    from studykit.sync.report import SyncReport

USER, PASSWORD = "student", "correct horse"

DECK_YAML = """id: alpha
name: "Sync::Alpha"
cards:
  - id: one
    front: What is one?
    back: The first.
  - id: two
    front: What is two?
    back: The second.
  - id: three
    front: What is three?
    back: The third.
  - id: both
    kind: reversed
    front: Front side
    back: Back side
  - id: gap
    kind: cloze
    front: "Gradients {{c1::vanish}} over {{c2::long}} spans."
"""


def free_port() -> int:
    """A port nothing listens on now (the OS picks it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class SyncServer:
    """`python -m anki.syncserver` on 127.0.0.1 with one test user, in a base dir of its own."""

    base: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> None:
        env = dict(
            os.environ,
            SYNC_USER1=f"{USER}:{PASSWORD}",
            SYNC_BASE=str(self.base),
            SYNC_HOST="127.0.0.1",
            SYNC_PORT=str(self.port),
            RUST_LOG="error",
        )
        log = (self.base.parent / "syncserver.log").open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "anki.syncserver"], env=env, stdout=log, stderr=log
        )
        log.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the sync server exited ({self.process.returncode})")
            try:
                with urllib.request.urlopen(f"{self.url}health", timeout=1):
                    return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("the sync server did not start within 30 s")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def running_server(base: Path) -> Iterator[SyncServer]:
    """A started server, always stopped at the end (also when the test fails)."""
    base.mkdir(parents=True, exist_ok=True)
    server = SyncServer(base)
    try:
        server.start()
        yield server
    finally:
        server.stop()


class Phone:
    """A second Anki collection, synced with the same account: what a phone would do."""

    def __init__(self, folder: Path, server: SyncServer) -> None:
        from anki.collection import Collection

        folder.mkdir(parents=True, exist_ok=True)
        self.col: Collection = Collection(str(folder / "phone.anki2"))
        self.auth = self.col.sync_login(username=USER, password=PASSWORD, endpoint=server.url)

    def close(self) -> None:
        self.col.close()

    def sync(self, *, full: str = "download") -> str:
        """A normal sync; when the server asks for a full one, `full` (the phone's choice
        where both sides changed). What happened."""
        out = self.col.sync_collection(self.auth, False)
        required = int(out.required)
        if required == 2 and full == "upload":  # FULL_SYNC: the user chose upload
            self.full(upload=True)
            return "upload"
        if required in (2, 3):  # FULL_SYNC, FULL_DOWNLOAD: the phone downloads
            self.full(upload=False)
            return "download"
        if required == 4:
            self.full(upload=True)
            return "upload"
        return "normal"

    def full(self, *, upload: bool) -> None:
        self.col.close_for_full_sync()
        self.col.full_upload_or_download(auth=self.auth, server_usn=None, upload=upload)
        self.col.reopen(after_full_sync=True)

    def card(self, deck_id: str, card_id: str, ord_: int = 0) -> Card:
        guid = note_guid(("studykit", deck_id, card_id))
        cid = database(self.col).scalar(
            "SELECT c.id FROM cards c JOIN notes n ON n.id = c.nid WHERE n.guid = ? AND c.ord = ?",
            guid,
            ord_,
        )
        assert cid is not None, f"no card {deck_id}/{card_id} ord {ord_} on the phone"
        return self.col.get_card(cid)

    def answer(self, card_id: str, rating: int, *, ord_: int = 0, at_ms: int | None = None) -> None:
        """Answer a card (1 Again … 4 Easy) through Anki's scheduler, as the phone's app does."""
        from anki.scheduler.v3 import CardAnswer
        from anki.scheduler.v3 import Scheduler as AnkiScheduler

        card = self.card("alpha", card_id, ord_)
        states = self.col._backend.get_scheduling_states(card.id)
        new_state = (states.again, states.hard, states.good, states.easy)[rating - 1]
        answer = CardAnswer(
            card_id=card.id,
            current_state=states.current,
            new_state=new_state,
            rating=CardAnswer.Rating.ValueType(rating - 1),  # CardAnswer.AGAIN is 0
            answered_at_millis=at_ms or int(time.time() * 1000),
            milliseconds_taken=4200,
        )
        assert isinstance(self.col.sched, AnkiScheduler)
        self.col.sched.answer_card(answer)

    def revlog(self, card_id: str, ord_: int = 0) -> list[tuple[Any, ...]]:
        card = self.card("alpha", card_id, ord_)
        return [
            tuple(row)
            for row in database(self.col).all(
                "SELECT id, ease, type FROM revlog WHERE cid = ? ORDER BY id", card.id
            )
        ]


@dataclass
class Student:
    """A studykit data dir and content root, with a session on them."""

    settings: Settings
    server: SyncServer
    sessions: list[StudySession] = field(default_factory=list)

    @property
    def paths(self) -> Any:
        from studykit.sync.account import SyncPaths

        return SyncPaths.in_data_dir(self.settings.data_dir)

    def session(self) -> StudySession:
        from studykit.content.loading import load_library
        from studykit.srs.store import Store
        from studykit.study.session import StudySession

        library = load_library(self.settings.root)
        store = Store.open(self.settings.database_path)
        session = StudySession(library, store, self.settings, tz=UTC, enable_fuzzing=False)
        self.sessions.append(session)
        return session

    def login(self) -> None:
        from studykit.sync.account import write_key
        from studykit.sync.mirror import login

        write_key(self.paths, login(self.paths, USER, PASSWORD, self.server.url))

    def sync(self, *, yes: bool = True, **options: Any) -> SyncReport:
        """One sync through a fresh session (as one `studykit sync` run)."""
        from studykit.sync.run import SyncOptions, run_sync

        session = self.session()
        try:
            return run_sync(session, self.paths, SyncOptions(yes=yes, **options))
        finally:
            session.close()
            self.sessions.remove(session)

    def answer(self, card_id: str, rating: int, ordinal: int = 1) -> None:
        from studykit.study.session import Rating

        session = self.session()
        try:
            card = session.study_card("alpha", card_id, ordinal)
            session.answer(card, Rating(rating), duration_ms=3000)
        finally:
            session.close()
            self.sessions.remove(session)

    def history(self, card_id: str, ordinal: int = 1) -> list[Any]:
        from studykit.srs.scheduler import schedule_key
        from studykit.srs.store import Store

        with Store.open(self.settings.database_path) as store:
            return store.history(schedule_key("alpha", card_id, ordinal))

    def state(self, card_id: str, ordinal: int = 1) -> Any:
        from studykit.srs.scheduler import schedule_key
        from studykit.srs.store import Store

        with Store.open(self.settings.database_path) as store:
            return store.get_state(schedule_key("alpha", card_id, ordinal))

    def close(self) -> None:
        for session in self.sessions:
            session.close()


def write_root(root: Path, deck_yaml: str = DECK_YAML) -> Path:
    """A content root with the test deck; returns the deck file."""
    (root / "decks").mkdir(parents=True, exist_ok=True)
    (root / "content").mkdir(exist_ok=True)
    path = root / "decks" / "alpha.yaml"
    path.write_text(deck_yaml, encoding="utf-8")
    old = time.time() - 3600  # the library cache skips files changed in the last seconds
    os.utime(path, (old, old))
    return path

"""`studykit sync` of 10,000 cards with 100,000 reviews, beside Anki's pylib doing the same
sync on its own, against `python -m anki.syncserver` on 127.0.0.1. Prints only.

What each figure includes (wall clock; the server's own work is in both, since it answers
both sides):

- First sync, studykit: `run_sync` with the study session open (as the app has it): opening
  the bookkeeping file and an empty mirror collection, a normal sync that finds the server
  empty, the export of 10k notes and its import into the mirror, every card state and all
  100k reviews written into the mirror, a full upload, the bookkeeping, closing both.
  Pylib: opening a copy of the finished mirror, the normal sync that finds the server empty,
  the full upload, closing. studykit first builds the collection that the pylib already has
  (bringing + writing in the steps line): that part has no counterpart in the baseline.
- Normal sync, 100 new answers on each side (a phone collection's through Anki's scheduler,
  studykit's through the session), studykit: `run_sync` with the session open: opening the
  mirror and the bookkeeping file, a pull, the fold of Anki's answers into the study
  database (one committed transaction), the push of studykit's answers and states, a second
  sync that sends them, the bookkeeping, closing. Pylib: opening a copy of the mirror with
  100 answers of its own, one sync against a phone's 100, closing. The median of ROUNDS;
  the steps line is the median round's. The CPU figure is this process's only.

The goal: 2× the pylib's time or less.

Two floors follow each figure, for what any sync built the issue's way costs in Anki's
backend alone (their ratios are to the figure's own baseline):

- First sync: the pylib building the same collection from studykit's package with its
  history (`export anki`, not timed: import with scheduling), then the same upload.
- Normal sync: the pylib's own two syncs of a round's changes, a pull and then a push, as
  studykit's run makes them (opening, both syncs, closing; its 100 answers between the two
  syncs are not timed). A pull first is what lets both sides' same-day answers count.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import report
from generated import settle_files, write_yaml_root

from studykit.content.loading import load_library
from studykit.core.config import Settings
from studykit.export import export_anki
from studykit.srs.records import CardState
from studykit.srs.scheduler import Rating, Scheduler, card_key
from studykit.srs.store import Store
from studykit.srs.transitions import answered, to_fsrs
from studykit.study.session import StudySession
from studykit.sync.account import SyncPaths, write_key
from studykit.sync.content import VARIANTS
from studykit.sync.mirror import login
from studykit.sync.run import SyncOptions, run_sync

CARDS = 10_000
REVIEWS_PER_CARD = 10
NEW_ANSWERS = 100
ROUNDS = 7
PASSWORD = "bench"
USERS = ("studykit", "pylib", "pylib-first", "pylib-import")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _server(base: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = dict(os.environ, SYNC_BASE=str(base), SYNC_HOST="127.0.0.1", SYNC_PORT=str(port))
    env["RUST_LOG"] = "error"
    for number, user in enumerate(USERS, start=1):
        env[f"SYNC_USER{number}"] = f"{user}:{PASSWORD}"
    process = subprocess.Popen(
        [sys.executable, "-m", "anki.syncserver"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}health", timeout=1):
                return process, url
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("the sync server did not start")


def _history(settings: Settings, now: datetime) -> int:
    """REVIEWS_PER_CARD answers per card over the last 200 days, replayed through FSRS."""
    rng = random.Random(0)
    scheduler = Scheduler(enable_fuzzing=False)
    with Store.open(settings.database_path) as store:
        store.set_durable(False)
        with store.batch():
            _write_history(store, rng, scheduler, now)
        store.set_durable(True)
    return CARDS * REVIEWS_PER_CARD


def _write_history(store: Store, rng: random.Random, scheduler: Scheduler, now: datetime) -> None:
    if True:
        for number in range(CARDS):
            deck_id, card_id = f"deck-{number // 1000}", f"card-{number}"
            state = CardState(card_key(deck_id, card_id), deck_id, card_id)
            at = now - timedelta(days=200, minutes=rng.uniform(0, 600))
            for _ in range(REVIEWS_PER_CARD):
                rating = Rating.Again if rng.random() < 0.1 else Rating.Good
                card, _ = scheduler.review(to_fsrs(state, at), rating, now=at)
                after = answered(state, card, rating, now=at, leech_lapses=1000)
                store.record_answer(state, after, rating=rating, reviewed_at=at, duration_ms=5000)
                state = after
                at += timedelta(days=rng.uniform(1, 15))


def _pylib_login(col: Any, user: str, url: str) -> Any:
    return col.sync_login(username=user, password=PASSWORD, endpoint=url)


def _full(col: Any, auth: Any, *, upload: bool) -> None:
    col.close_for_full_sync()
    col.full_upload_or_download(auth=auth, server_usn=None, upload=upload)
    col.reopen(after_full_sync=True)


def _answer_some(col: Any, rng: random.Random) -> None:
    """NEW_ANSWERS answers through Anki's scheduler, to random cards."""
    from anki.scheduler.v3 import CardAnswer

    cids = col.db.list("SELECT id FROM cards WHERE odid = 0")
    for cid in rng.sample(cids, NEW_ANSWERS):
        states = col._backend.get_scheduling_states(cid)
        answer = CardAnswer(
            card_id=cid,
            current_state=states.current,
            new_state=states.good,
            rating=CardAnswer.GOOD,
            answered_at_millis=int(time.time() * 1000),
            milliseconds_taken=3000,
        )
        col.sched.answer_card(answer)


def main() -> None:
    from anki.collection import Collection

    tmp = Path(tempfile.mkdtemp(prefix="studykit-bench-sync-"))
    server, url = _server(tmp / "server")
    try:
        root = tmp / "root"
        settle_files(write_yaml_root(root, cards=CARDS))
        settings = Settings(root=root, data_dir=tmp / "data", enable_fuzzing=False)
        now = datetime.now(UTC)
        started = time.perf_counter()
        rows = _history(settings, now)
        print(
            f"sync: {CARDS:,} cards, {rows:,} reviews written in "
            f"{time.perf_counter() - started:.1f} s (setup)",
            flush=True,
        )
        paths = SyncPaths.in_data_dir(settings.data_dir)
        write_key(paths, login(paths, USERS[0], PASSWORD, url))
        session = StudySession(load_library(root), Store.open(settings.database_path), settings)
        try:
            package = tmp / "history.apkg"
            export_anki(session.library, package, session=session, variants=VARIANTS)
            _bench(session, paths, url, tmp, Collection, package)
        finally:
            session.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)


class _Steps:
    """When each step of a sync began (its progress messages), for the breakdown line."""

    def __init__(self) -> None:
        self.marks: list[tuple[str, float]] = []

    def __call__(self, text: str) -> None:
        self.marks.append((text.split("…")[0].split(" (")[0], time.perf_counter()))

    def line(self, end: float) -> str:
        parts = []
        for (name, at), (_, after) in zip(self.marks, [*self.marks[1:], ("", end)], strict=True):
            parts.append(f"{name.split()[0].lower()} {after - at:.2f}s")
        return "    steps: " + ", ".join(parts)


def _imported_and_uploaded(collection: Any, package: Path, folder: Path, url: str) -> float:
    """Seconds for the pylib to import `package` with its history into a new collection and
    upload it to an empty account."""
    from anki.collection import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    folder.mkdir()
    options = ImportAnkiPackageOptions(
        merge_notetypes=True, with_scheduling=True, with_deck_configs=True
    )
    start = time.perf_counter()
    col = collection(str(folder / "collection.anki2"))
    col.import_anki_package(ImportAnkiPackageRequest(package_path=str(package), options=options))
    auth = _pylib_login(col, USERS[3], url)
    col.sync_collection(auth, False)
    _full(col, auth, upload=True)
    col.close()
    return time.perf_counter() - start


def _two_syncs(collection: Any, path: Path, auth: Any, rng: random.Random) -> float:
    """Seconds for the pylib to pull, then push NEW_ANSWERS answers of its own (not timed)."""
    start = time.perf_counter()
    col = collection(str(path))
    col.sync_collection(auth, False)
    answering = time.perf_counter()
    _answer_some(col, rng)
    answered = time.perf_counter()
    col.sync_collection(auth, False)
    col.close()
    return time.perf_counter() - start - (answered - answering)


def _bench(
    session: StudySession, paths: SyncPaths, url: str, tmp: Path, collection: Any, package: Path
) -> None:
    rng = random.Random(1)
    steps = _Steps()
    start = time.perf_counter()
    run_sync(session, paths, SyncOptions(yes=True, progress=steps))
    first_end = time.perf_counter()
    first = first_end - start
    # The pylib alone: the same collection (a copy of the mirror) uploaded to an empty account.
    copy = tmp / "copy-first" / "collection.anki2"
    copy.parent.mkdir()
    shutil.copy(paths.collection, copy)
    start = time.perf_counter()
    col = collection(str(copy))
    auth = _pylib_login(col, USERS[2], url)
    col.sync_collection(auth, False)
    _full(col, auth, upload=True)
    col.close()
    first_base = time.perf_counter() - start
    report(
        f"sync: first sync, {CARDS // 1000}k cards + {CARDS * REVIEWS_PER_CARD // 1000}k reviews",
        first,
        baseline=first_base,
        goal="≤ 2×",
    )
    print(steps.line(first_end), flush=True)
    built = _imported_and_uploaded(collection, package, tmp / "imported", url)
    report("  floor: the pylib imports the package, uploads", built, baseline=first_base)
    # Phones: one per account, each a full download of its account's collection.
    (tmp / "phone").mkdir()
    phone = collection(str(tmp / "phone" / "phone.anki2"))
    phone_auth = _pylib_login(phone, USERS[0], url)
    phone.sync_collection(phone_auth, False)
    _full(phone, phone_auth, upload=False)
    base_dir = tmp / "pylib"
    base_dir.mkdir()
    shutil.copy(paths.collection, base_dir / "collection.anki2")
    base = collection(str(base_dir / "collection.anki2"))
    base_auth = _pylib_login(base, USERS[1], url)
    base.sync_collection(base_auth, False)
    _full(base, base_auth, upload=True)
    base.close()
    phone2 = collection(str(tmp / "phone" / "phone2.anki2"))
    phone2_auth = _pylib_login(phone2, USERS[1], url)
    phone2.sync_collection(phone2_auth, False)
    _full(phone2, phone2_auth, upload=False)
    ours, theirs, ours_cpu, theirs_cpu, floor = [], [], [], [], []
    lines: list[str] = []
    deck_cards = [
        (deck.id, card.id) for deck in session.library.decks.values() for card in deck.cards
    ]
    for _ in range(ROUNDS):
        _answer_some(phone, rng)
        phone.sync_collection(phone_auth, False)
        for deck_id, card_id in rng.sample(deck_cards, NEW_ANSWERS):
            session.answer(session.study_card(deck_id, card_id), Rating.Good, duration_ms=3000)
        steps = _Steps()
        start, cpu = time.perf_counter(), time.process_time()
        done = run_sync(session, paths, SyncOptions(yes=True, progress=steps))
        end = time.perf_counter()
        ours.append(end - start)
        lines.append(steps.line(end))
        ours_cpu.append(time.process_time() - cpu)
        assert done.answers_in == NEW_ANSWERS and done.answers_out == NEW_ANSWERS, done
        _answer_some(phone2, rng)
        phone2.sync_collection(phone2_auth, False)
        base = collection(str(base_dir / "collection.anki2"))
        _answer_some(base, rng)
        base.close()
        start, cpu = time.perf_counter(), time.process_time()
        base = collection(str(base_dir / "collection.anki2"))
        base.sync_collection(base_auth, False)
        base.close()
        theirs.append(time.perf_counter() - start)
        theirs_cpu.append(time.process_time() - cpu)
        _answer_some(phone2, rng)
        phone2.sync_collection(phone2_auth, False)
        floor.append(_two_syncs(collection, base_dir / "collection.anki2", base_auth, rng))
    phone.close()
    phone2.close()
    report(
        f"sync: normal sync, {NEW_ANSWERS} new answers each side",
        statistics.median(ours),
        baseline=statistics.median(theirs),
        goal="≤ 2×",
    )
    report(
        "  floor: the pylib's pull, then push",
        statistics.median(floor),
        baseline=statistics.median(theirs),
    )
    report(
        "sync: normal sync, CPU of this process",
        statistics.median(ours_cpu),
        baseline=statistics.median(theirs_cpu),
    )
    median_round = sorted(range(len(ours)), key=ours.__getitem__)[len(ours) // 2]
    print(lines[median_round], flush=True)


if __name__ == "__main__":
    main()

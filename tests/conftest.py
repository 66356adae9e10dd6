"""Shared fixtures: a fake clock, settings in tmp_path, small hand-built libraries, sessions."""

from __future__ import annotations

import shutil
import signal
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from studykit.content.model import Card, Deck, Note, Section
from studykit.core.config import Settings, bundled_root

if TYPE_CHECKING:
    from anki.collection import Collection

    from studykit.checking.findings import Report
    from studykit.content.loading import Library
    from studykit.study.session import StudySession

CLOCK_START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

# Started in the background by a shell without job control, the tests inherit SIGINT ignored,
# and so would every process they start (an ignored signal stays ignored across exec): the
# Ctrl-C tests need it delivered. A caught signal is reset to the default in a child.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


class FakeClock:
    """A settable UTC clock: call it for "now"; `advance` and `set` move it."""

    def __init__(self, start: datetime = CLOCK_START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> datetime:
        self.now += delta
        return self.now

    def set(self, moment: datetime) -> datetime:
        if moment.tzinfo is None:
            raise ValueError("FakeClock needs an aware datetime")
        self.now = moment.astimezone(UTC)
        return self.now


@pytest.fixture
def fixed_clock() -> FakeClock:
    """A fake clock at 2026-03-02T09:00Z (a Monday)."""
    return FakeClock()


@pytest.fixture
def tmp_settings(tmp_path: Path) -> Settings:
    """Settings on the bundled content with the database in tmp_path, fuzz off."""
    return Settings(root=bundled_root(), data_dir=tmp_path, enable_fuzzing=False)


def make_deck(
    deck_id: str,
    n_cards: int = 3,
    *,
    name: str | None = None,
    prefix: str | None = None,
    **fields: Any,
) -> Deck:
    """A deck of `n_cards` basic cards with ids `<prefix>-1`, `<prefix>-2`, ..."""
    prefix = prefix or deck_id
    cards = tuple(
        Card(id=f"{prefix}-{i}", front=f"Question {i} of {deck_id}?", back=f"Answer {i}.")
        for i in range(1, n_cards + 1)
    )
    return Deck(id=deck_id, name=name or f"Test::{deck_id}", cards=cards, **fields)


def make_library(decks: Sequence[Deck], notes: Sequence[Note] = (), root: Path = Path()) -> Library:
    """A Library built from model objects, decks sorted by name as the loader does."""
    from studykit.content.loading import Library

    ordered = sorted(decks, key=lambda deck: deck.name)
    return Library(
        root=root,
        notes={note.id: note for note in notes},
        decks={deck.id: deck for deck in ordered},
        problems=(),
    )


@pytest.fixture(scope="session")
def bundled_library() -> Library:
    """The bundled content, loaded once per test process (each xdist worker): read, never change."""
    from studykit.content.loading import load_library

    return load_library(bundled_root())


@pytest.fixture
def small_library() -> Library:
    """One note and two decks citing it: `alpha` (3 basic cards), `beta` (2 cards, one cloze)."""
    note = Note(
        id="demo-note",
        title="Demo note",
        path=("Tests",),
        sections=(
            Section(id="intro", title="Intro", body="RNNs read tokens one by one."),
            Section(id="decay", title="Decay", body="$0.95^{295} \\approx 2.7 \\times 10^{-7}$"),
        ),
    )
    alpha = Deck(
        id="alpha",
        name="Demo::Alpha",
        note="demo-note",
        cards=(
            Card(id="sequential", front="Why are RNNs slow?", back="Sequential.", source="intro"),
            Card(id="decay", front="What is 0.95^295?", back="About 2.7e-7.", source="decay"),
            Card(id="parallel", front="What do transformers parallelise?", back="Tokens."),
        ),
    )
    beta = Deck(
        id="beta",
        name="Demo::Beta",
        note="demo-note",
        new_per_day=1,
        cards=(
            Card(id="gradient", front="Gradients {{c1::vanish}} over long spans.", kind="cloze"),
            Card(id="context", front="Effective context?", back="About 90 steps.", source="decay"),
        ),
    )
    return make_library([alpha, beta], [note])


@pytest.fixture
def make_session(
    tmp_settings: Settings, fixed_clock: FakeClock
) -> Iterator[Callable[..., StudySession]]:
    """Build sessions on a real SQLite file in tmp_path, fuzz off, clock = `fixed_clock`.

    Call with `library` (required), and optionally `settings`, `tz` (default UTC) or
    `clock`. Every session is closed at teardown.
    """
    from studykit.srs.store import Store
    from studykit.study.session import StudySession

    opened: list[StudySession] = []

    def build(
        library: Library,
        *,
        settings: Settings | None = None,
        tz: tzinfo | None = UTC,
        clock: Callable[[], datetime] | None = None,
    ) -> StudySession:
        settings = settings or tmp_settings
        store = Store.open(settings.database_path)
        session = StudySession(
            library, store, settings, clock=clock or fixed_clock, tz=tz, enable_fuzzing=False
        )
        opened.append(session)
        return session

    yield build
    for session in opened:
        session.close()


@pytest.fixture
def collection(tmp_path: Path) -> Iterator[Collection]:
    """A fresh Anki collection on disk (the real Anki backend, to import exports into)."""
    from anki.collection import Collection

    (tmp_path / "anki").mkdir()
    col = Collection(str(tmp_path / "anki" / "c.anki2"))
    yield col
    col.close()


@pytest.fixture(scope="session")
def bundled_records(
    pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory
) -> Path | None:
    """The recorded runs of the bundled content's measured entries, made once for the whole
    suite: every worker shares pytest's cache folder, so the first makes the runs (a real
    plain check) and the others wait on its lock, then read them. None without torch."""
    from studykit.checking.findings import Report
    from studykit.checking.measured import check_measured
    from studykit.checking.recorded import FILE
    from studykit.checking.scope import Scope
    from studykit.content.loading import load_library

    cache = getattr(pytestconfig, "cache", None)
    folder = cache.mkdir("studykit-records") if cache else tmp_path_factory.mktemp("records")
    root = bundled_root()
    check_measured(load_library(root), Scope(root, None), Report(), run=False, recorded=folder)
    records: Path = folder / FILE
    return records if records.is_file() else None


def seed_records(records: Path | None, data_dir: Path) -> Path:
    """`data_dir` with `records` in its cache folder, so that a plain check there of the
    bundled content (or a copy) makes no run; `data_dir` itself is returned."""
    if records is not None:
        (data_dir / "cache").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(records, data_dir / "cache" / records.name)
    return data_dir


@pytest.fixture(scope="session")
def bundled_report() -> Report:
    """`studykit check` of the bundled content, once per test process (read it, never change it)."""
    from studykit.checking import run_check

    return run_check([], bundled_root())

"""The SQLite store, on real files in tmp_path."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from studykit.core.errors import StudykitError
from studykit.srs.scheduler import Rating, State, card_key
from studykit.srs.store import (
    LATEST_VERSION,
    MIGRATIONS,
    CardState,
    DayCount,
    Migration,
    Store,
    StoreError,
    from_us,
    to_us,
)

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def new_state(deck_id: str = "deck", card_id: str = "card") -> CardState:
    return CardState(card_key(deck_id, card_id), deck_id, card_id)


def reviewed(state: CardState, when: datetime, *, lapses: int = 0) -> CardState:
    return CardState(
        key=state.key,
        deck_id=state.deck_id,
        card_id=state.card_id,
        state=State.Review,
        step=None,
        stability=3.25,
        difficulty=5.5,
        due=when + timedelta(days=3),
        last_review=when,
        reps=state.reps + 1,
        lapses=lapses,
        introduced_at=state.introduced_at or when,
    )


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "studykit.sqlite3"


@pytest.fixture
def store(db_path: Path) -> Iterator[Store]:
    opened = Store.open(db_path)
    yield opened
    opened.close()


def test_new_database_is_configured(store: Store, db_path: Path) -> None:
    assert db_path.exists()
    assert store.schema_version == LATEST_VERSION
    assert store.backup_path is None  # nothing to back up in a new file
    conn = store._conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"meta", "card_state", "review_log", "experiment_cache"} <= tables
    version = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    assert version == (str(LATEST_VERSION),)


def test_time_conversion_is_exact() -> None:
    moment = datetime(2026, 3, 2, 9, 0, 1, 123456, tzinfo=UTC)
    assert from_us(to_us(moment)) == moment
    assert to_us(datetime(1970, 1, 1, tzinfo=UTC)) == 0
    with pytest.raises(ValueError, match="naive"):
        to_us(datetime(2026, 1, 1))


def test_card_state_round_trips_through_row_and_json() -> None:
    state = CardState(
        key=card_key("d", "c"),
        deck_id="d",
        card_id="c",
        state=State.Relearning,
        step=0,
        stability=1.5390125302814700,
        difficulty=7.389975788014609,
        due=datetime(2026, 3, 2, 9, 10, 0, 999, tzinfo=UTC),
        last_review=datetime(2026, 3, 2, 9, 0, 0, 1, tzinfo=UTC),
        reps=9,
        lapses=2,
        suspended=True,
        leech=True,
        buried_until=datetime(2026, 3, 3, 4, 0, tzinfo=UTC),
        introduced_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    assert CardState.from_row(state.to_row()) == state
    assert CardState.from_json(state.to_json()) == state
    assert CardState.from_json(new_state().to_json()) == new_state()
    assert new_state().is_new and not state.is_new


def test_states_persist_across_reopen(db_path: Path) -> None:
    first = reviewed(new_state("d", "one"), T0)
    second = new_state("d", "two")
    with Store.open(db_path) as store:
        store.put_state(first)
        store.put_state(second)
        store.put_state(CardState(second.key, "d", "two", suspended=True))
    with Store.open(db_path) as store:
        assert store.backup_path is None
        assert store.get_state(first.key) == first
        assert store.get_state(second.key) == CardState(second.key, "d", "two", suspended=True)
        assert {s.key for s in store.load_states()} == {first.key, second.key}
        assert store.get_state(card_key("d", "absent")) is None


def test_answer_is_committed_when_record_answer_returns(store: Store, db_path: Path) -> None:
    before = new_state()
    after = reviewed(before, T0)
    log_id = store.record_answer(
        before, after, rating=Rating.Easy, reviewed_at=T0, duration_ms=2500, variant_seed=77
    )
    other = sqlite3.connect(db_path)  # a second connection sees only committed data
    try:
        row = other.execute(
            "SELECT key, rating, reviewed_at_us, duration_ms, state_before, state_after, "
            "variant_seed FROM review_log WHERE id = ?",
            (log_id,),
        ).fetchone()
        state = other.execute("SELECT state, due_us FROM card_state WHERE key = ?", (after.key,))
        assert row == (after.key, 4, to_us(T0), 2500, None, int(State.Review), 77)
        assert state.fetchone() == (int(State.Review), to_us(T0 + timedelta(days=3)))
    finally:
        other.close()


def test_log_keeps_before_and_after_for_undo(store: Store) -> None:
    before = new_state()
    after = reviewed(before, T0)
    log_id = store.record_answer(before, after, rating=Rating.Good, reviewed_at=T0, duration_ms=10)
    last = store.last_answer()
    assert last is not None
    assert (last.id, last.rating, last.reviewed_at, last.duration_ms) == (
        log_id,
        Rating.Good,
        T0,
        10,
    )
    assert (last.before, last.after, last.variant_seed) == (before, after, None)
    assert store.history(before.key) == [last]


def test_undo_answer_restores_and_persists(db_path: Path) -> None:
    first = reviewed(new_state(), T0)
    later = T0 + timedelta(days=3)
    second = reviewed(first, later, lapses=1)
    with Store.open(db_path) as store:
        store.record_answer(new_state(), first, rating=Rating.Easy, reviewed_at=T0, duration_ms=1)
        log_id = store.record_answer(
            first, second, rating=Rating.Again, reviewed_at=later, duration_ms=1
        )
        store.undo_answer(log_id, first)
        with pytest.raises(StoreError, match="no longer in the log"):
            store.undo_answer(log_id, first)
    with Store.open(db_path) as store:
        assert store.get_state(first.key) == first
        assert [a.after for a in store.history(first.key)] == [first]


def test_failed_write_rolls_back_everything(store: Store) -> None:
    before = new_state()
    store.put_state(before)
    after = reviewed(before, T0)
    with pytest.raises(StoreError, match="could not save"):
        # Rating 5 violates the log's CHECK after the state row was written.
        store.record_answer(before, after, rating=5, reviewed_at=T0, duration_ms=1)  # type: ignore[arg-type]
    assert store.get_state(before.key) == before
    assert store.last_answer() is None


def test_record_answer_refuses_mismatched_states(store: Store) -> None:
    with pytest.raises(ValueError, match="different cards"):
        store.record_answer(
            new_state(card_id="a"),
            reviewed(new_state(card_id="b"), T0),
            rating=Rating.Good,
            reviewed_at=T0,
            duration_ms=0,
        )
    with pytest.raises(ValueError, match="cannot be new"):
        store.record_answer(
            new_state(), new_state(), rating=Rating.Good, reviewed_at=T0, duration_ms=0
        )


def test_day_counts_and_outcomes(store: Store) -> None:
    a, b = new_state("one", "a"), new_state("two", "b")
    a1 = reviewed(a, T0)
    store.record_answer(a, a1, rating=Rating.Good, reviewed_at=T0, duration_ms=1)
    b1 = reviewed(b, T0 + timedelta(hours=1))
    store.record_answer(
        b, b1, rating=Rating.Good, reviewed_at=T0 + timedelta(hours=1), duration_ms=1
    )
    a2 = reviewed(a1, T0 + timedelta(days=1))
    store.record_answer(
        a1, a2, rating=Rating.Again, reviewed_at=T0 + timedelta(days=1), duration_ms=1
    )
    a3 = reviewed(a2, T0 + timedelta(days=2))
    store.record_answer(
        a2, a3, rating=Rating.Hard, reviewed_at=T0 + timedelta(days=2), duration_ms=1
    )

    assert store.day_counts(T0) == {"one": DayCount(3, 1, 2), "two": DayCount(1, 1, 0)}
    assert store.day_counts(T0 + timedelta(hours=2)) == {"one": DayCount(2, 0, 2)}
    assert store.day_counts(T0 + timedelta(days=5)) == {}
    assert store.review_outcomes(T0) == (2, 1)
    assert store.review_outcomes(T0 + timedelta(days=5)) == (0, 0)
    assert store.answer_times(T0 + timedelta(minutes=30)) == [
        to_us(T0 + timedelta(hours=1)),
        to_us(T0 + timedelta(days=1)),
        to_us(T0 + timedelta(days=2)),
    ]


def test_experiment_cache(store: Store) -> None:
    key = {
        "name": "effective-context",
        "params": {"gamma": 0.95, "steps": 10},
        "seed": 0,
        "device": "cpu",
        "torch_version": "2.5.1",
    }
    assert store.experiment_result(**key) is None  # type: ignore[arg-type]
    store.put_experiment_result(**key, result={"k": 90}, created_at=T0)  # type: ignore[arg-type]
    reordered = {**key, "params": {"steps": 10, "gamma": 0.95}}
    assert store.experiment_result(**reordered) == {"k": 90}  # type: ignore[arg-type]
    store.put_experiment_result(**key, result={"k": 91}, created_at=T0)  # type: ignore[arg-type]
    assert store.experiment_result(**key) == {"k": 91}  # type: ignore[arg-type]
    assert store.experiment_result(**{**key, "device": "cuda"}) is None  # type: ignore[arg-type]


def _set_version(path: Path, version: int) -> None:
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA journal_mode = DELETE")  # a single self-contained file
    conn.close()


def test_newer_schema_is_refused_and_file_untouched(db_path: Path) -> None:
    with Store.open(db_path) as store:
        store.put_state(reviewed(new_state(), T0))
    _set_version(db_path, LATEST_VERSION + 1)
    original = db_path.read_bytes()
    with pytest.raises(StoreError, match="newer studykit") as caught:
        Store.open(db_path)
    assert isinstance(caught.value, StudykitError)
    assert str(db_path) in str(caught.value)
    assert db_path.read_bytes() == original
    assert not (db_path.parent / "backups").exists()


def test_not_a_studykit_database(tmp_path: Path) -> None:
    foreign = tmp_path / "other.sqlite3"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="not a studykit database"):
        Store.open(foreign)
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError, match="not a readable SQLite database"):
        Store.open(garbage)
    assert garbage.read_bytes() == b"this is not sqlite at all" * 100


def test_empty_file_becomes_a_database(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite3"
    empty.touch()
    with Store.open(empty) as store:
        assert store.schema_version == LATEST_VERSION
        assert store.backup_path is None


V2 = Migration(
    LATEST_VERSION + 1,
    "test: a column for tags",
    ("ALTER TABLE card_state ADD COLUMN note TEXT",),
)


def test_migration_backs_up_first_then_upgrades(db_path: Path) -> None:
    state = reviewed(new_state(), T0)
    with Store.open(db_path) as store:
        store.put_state(state)
    with Store.open(db_path, migrations=(*MIGRATIONS, V2)) as store:
        assert store.schema_version == V2.version
        backup = store.backup_path
        assert backup is not None and backup.exists()
        assert backup.parent == db_path.parent / "backups"
        assert backup.name.startswith("studykit-") and backup.name.endswith(
            f"-v{LATEST_VERSION}.sqlite3"
        )
        assert store.get_state(state.key) == state
        columns = {row[1] for row in store._conn.execute("PRAGMA table_info(card_state)")}
        assert "note" in columns
    copy = sqlite3.connect(backup)
    try:
        assert copy.execute("SELECT value FROM meta").fetchone() == (str(LATEST_VERSION),)
        assert copy.execute("SELECT count(*) FROM card_state").fetchone() == (1,)
    finally:
        copy.close()
    # Reopening an up-to-date file makes no further backup.
    with Store.open(db_path, migrations=(*MIGRATIONS, V2)) as store:
        assert store.backup_path is None
    # And this version of studykit now refuses it, untouched.
    with pytest.raises(StoreError, match="newer"):
        Store.open(db_path)


def test_failed_migration_keeps_old_version(db_path: Path) -> None:
    state = reviewed(new_state(), T0)
    with Store.open(db_path) as store:
        store.put_state(state)
    broken = Migration(LATEST_VERSION + 1, "broken", ("ALTER TABLE nowhere ADD COLUMN x",))
    with pytest.raises(StoreError, match="cannot upgrade") as caught:
        Store.open(db_path, migrations=(*MIGRATIONS, broken))
    assert "nowhere" in str(caught.value)
    with Store.open(db_path) as store:
        assert store.schema_version == LATEST_VERSION
        assert store.get_state(state.key) == state


def test_migrations_must_be_numbered_in_order(db_path: Path) -> None:
    with pytest.raises(ValueError, match="numbered"):
        Store.open(db_path, migrations=(V2,))
    with pytest.raises(ValueError, match="numbered"):
        Store.open(db_path, migrations=())

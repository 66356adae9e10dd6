"""The database schema: numbered migrations, each run in one transaction with its version bump."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["LATEST_VERSION", "MIGRATIONS", "Migration", "check_migrations"]


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step: its statements run in one transaction with the version bump."""

    version: int
    summary: str
    statements: tuple[str, ...]
    rebuilds: bool = False
    """It rebuilds a table that others reference: foreign keys are off for its transaction
    (SQLite's procedure for changing a table's constraints) and checked before the commit."""


# card_state's columns before ordinals, as migration 1 made them (migration 5 copies them).
_STATE_COLUMNS = """key INTEGER PRIMARY KEY,
                deck_id TEXT NOT NULL,
                card_id TEXT NOT NULL,
                state INTEGER CHECK (state IN (1, 2, 3)),
                step INTEGER,
                stability REAL,
                difficulty REAL,
                due_us INTEGER,
                last_review_us INTEGER,
                reps INTEGER NOT NULL DEFAULT 0,
                lapses INTEGER NOT NULL DEFAULT 0,
                suspended INTEGER NOT NULL DEFAULT 0 CHECK (suspended IN (0, 1)),
                leech INTEGER NOT NULL DEFAULT 0 CHECK (leech IN (0, 1)),
                buried_until_us INTEGER,
                introduced_at_us INTEGER"""
_STATE_NAMES = ", ".join(line.split()[0] for line in _STATE_COLUMNS.splitlines())

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "card state, review log, experiment cache",
        (
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            # key = card_key(deck_id, card_id). Rows outlive their YAML card, so a card
            # that is removed and comes back finds its history again.
            f"""CREATE TABLE card_state (
                {_STATE_COLUMNS},
                UNIQUE (deck_id, card_id)
            )""",
            "CREATE INDEX card_state_due ON card_state (deck_id, state, due_us)",
            """CREATE TABLE review_log (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                key INTEGER NOT NULL REFERENCES card_state (key),
                deck_id TEXT NOT NULL,
                card_id TEXT NOT NULL,
                rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
                reviewed_at_us INTEGER NOT NULL,
                duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),
                state_before INTEGER,
                state_after INTEGER NOT NULL,
                before_json TEXT NOT NULL,
                after_json TEXT NOT NULL,
                variant_seed INTEGER
            )""",
            "CREATE INDEX review_log_time ON review_log (reviewed_at_us)",
            "CREATE INDEX review_log_key ON review_log (key, reviewed_at_us)",
            """CREATE TABLE experiment_cache (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                params_json TEXT NOT NULL,
                seed INTEGER NOT NULL,
                device TEXT NOT NULL,
                torch_version TEXT NOT NULL,
                result_json TEXT NOT NULL,
                created_at_us INTEGER NOT NULL,
                UNIQUE (name, params_json, seed, device, torch_version)
            )""",
        ),
    ),
    Migration(
        2,
        "memory model: fitted FSRS parameters, globally (scope '') or per deck",
        (
            """CREATE TABLE memory_model (
                scope TEXT PRIMARY KEY,
                parameters_json TEXT NOT NULL,
                fitted_at_us INTEGER NOT NULL,
                reviews INTEGER NOT NULL,
                cards INTEGER NOT NULL,
                log_loss REAL,
                rmse REAL
            )""",
        ),
    ),
    Migration(
        3,
        "review log source: NULL for answers given here, else where an imported row came from",
        # Imported rows (e.g. an Obsidian plugin schedule) set a card's starting state; they
        # are no answers, so stats, daily limits and the optimizer leave them out.
        ("ALTER TABLE review_log ADD COLUMN source TEXT",),
    ),
    Migration(
        4,
        "forget log: a card reset to new keeps its review history; its state before is kept here",
        (
            """CREATE TABLE forget_log (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                key INTEGER NOT NULL REFERENCES card_state (key),
                deck_id TEXT NOT NULL,
                card_id TEXT NOT NULL,
                forgotten_at_us INTEGER NOT NULL,
                before_json TEXT NOT NULL
            )""",
            "CREATE INDEX forget_log_key ON forget_log (key, forgotten_at_us)",
        ),
    ),
    Migration(
        5,
        "ordinals: a schedule is (deck, card, ordinal); what there was is ordinal 1",
        # A reversed card's second direction and each cloze deletion get a schedule of their
        # own (key = schedule_key(deck_id, card_id, ordinal)); the key of ordinal 1 is the
        # card's old key, so every state and answer stays where it was.
        (
            f"""CREATE TABLE card_state_v5 (
                {_STATE_COLUMNS},
                ordinal INTEGER NOT NULL DEFAULT 1 CHECK (ordinal BETWEEN 1 AND 500),
                UNIQUE (deck_id, card_id, ordinal)
            )""",
            f"INSERT INTO card_state_v5 ({_STATE_NAMES}) SELECT {_STATE_NAMES} FROM card_state",
            "DROP TABLE card_state",
            "ALTER TABLE card_state_v5 RENAME TO card_state",
            "CREATE INDEX card_state_due ON card_state (deck_id, state, due_us)",
            "ALTER TABLE review_log ADD COLUMN ordinal INTEGER NOT NULL DEFAULT 1",
            "ALTER TABLE forget_log ADD COLUMN ordinal INTEGER NOT NULL DEFAULT 1",
        ),
        rebuilds=True,
    ),
    Migration(
        6,
        "anki sync: the Anki revlog id of each review and forget, Anki rows taken in otherwise, "
        "and whether a card's state has gone out to Anki",
        (
            # The id of the row in Anki's revlog: the dedupe key of every later sync.
            "ALTER TABLE review_log ADD COLUMN anki_revlog_id INTEGER",
            "CREATE UNIQUE INDEX review_log_anki ON review_log (anki_revlog_id) "
            "WHERE anki_revlog_id IS NOT NULL",
            "CREATE INDEX review_log_unsent ON review_log (reviewed_at_us, id) "
            "WHERE anki_revlog_id IS NULL AND source IS NULL",
            "ALTER TABLE forget_log ADD COLUMN anki_revlog_id INTEGER",
            "CREATE UNIQUE INDEX forget_log_anki ON forget_log (anki_revlog_id) "
            "WHERE anki_revlog_id IS NOT NULL",
            # Every write of a state row (INSERT OR REPLACE) sets this back to 0: the card's
            # state has changed since it last went out.
            "ALTER TABLE card_state ADD COLUMN anki_sent INTEGER NOT NULL DEFAULT 0",
            "CREATE INDEX card_state_unsent ON card_state (key) WHERE anki_sent = 0",
            # Anki revlog rows that are no review here: a set due date, a cram answer the quiz
            # rule leaves out, Anki's own rescheduling, an answer undone here after it went out.
            """CREATE TABLE anki_revlog_seen (
                revlog_id INTEGER PRIMARY KEY,
                key INTEGER NOT NULL,
                kind TEXT NOT NULL,
                at_us INTEGER NOT NULL,
                due_us INTEGER
            )""",
            "CREATE INDEX anki_revlog_seen_key ON anki_revlog_seen (key, at_us)",
        ),
    ),
)
LATEST_VERSION = MIGRATIONS[-1].version


def check_migrations(migrations: Sequence[Migration]) -> int:
    """The last version of a migration list numbered 1, 2, 3, ... (ValueError otherwise)."""
    versions = [m.version for m in migrations]
    if not versions or versions != list(range(1, len(versions) + 1)):
        raise ValueError(f"migrations must be numbered 1, 2, 3, ...; got {versions}")
    return versions[-1]

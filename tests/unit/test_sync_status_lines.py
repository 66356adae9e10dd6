"""`studykit sync status` in words, from the typed status (no server, no anki needed)."""

from __future__ import annotations

from studykit.commands.sync import _status_lines
from studykit.sync.status import SyncStatus

LOGGED_OUT: SyncStatus = {
    "account": None,
    "server": None,
    "username": None,
    "mirror": "/data/sync/collection.anki2",
    "notes": 0,
    "last": None,
    "unsent_answers": 0,
    "unsent_states": 0,
    "conflicts": [],
    "fsrs": None,
    "server_status": "not asked",
}


def test_logged_out_is_one_line() -> None:
    assert _status_lines(LOGGED_OUT) == [
        "Not logged in: `studykit sync login` (AnkiWeb) or `--endpoint URL`."
    ]


def test_logged_in_says_who_what_waits_and_the_conflicts() -> None:
    found: SyncStatus = {
        **LOGGED_OUT,
        "account": "ana@AnkiWeb",
        "server": "AnkiWeb",
        "username": "ana",
        "notes": 12,
        "last": {"at": "2026-12-01T10:00:00+00:00", "answers_in": 3, "answers_out": 4},
        "unsent_answers": 2,
        "unsent_states": 1,
        "conflicts": ["decks/a.yaml:3: edited in Anki"],
        "fsrs": False,
        "server_status": "up to date",
    }
    assert _status_lines(found) == [
        "Logged in to AnkiWeb as ana.",
        "Mirror collection: /data/sync/collection.anki2 (12 studykit notes).",
        "Last sync 2026-12-01T10:00:00+00:00: 3 answer(s) in, 4 out.",
        "Waiting to go out: 2 answer(s), 1 card state(s).",
        "FSRS is off in the Anki collection (`studykit sync --enable-fsrs`).",
        "  decks/a.yaml:3: edited in Anki",
        "Server: up to date.",
    ]

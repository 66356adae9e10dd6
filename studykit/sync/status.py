"""`studykit sync status`: the login, the last sync, what waits to go out, open conflicts, and
what the server says (one cheap request)."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from studykit.core.jsontypes import JsonObject
from studykit.sync.account import SyncKey, SyncPaths, read_key
from studykit.sync.errors import SyncFailed
from studykit.sync.report import ConflictLine, conflict_line
from studykit.sync.state import open_state

if TYPE_CHECKING:
    from studykit.core.config import Settings

_SERVER = {0: "up to date", 1: "changes waiting: run `studykit sync`", 2: "a full sync is due"}


class SyncStatus(TypedDict):
    """What `sync status` shows (and prints with --json)."""

    account: str | None
    server: str | None
    username: str | None
    mirror: str
    notes: int
    last: JsonObject | None  # the last sync's report, with its time under "at"
    unsent_answers: int
    unsent_states: int
    conflicts: list[str]
    fsrs: bool | None  # whether the Anki collection schedules with FSRS; None: not asked
    server_status: str


def sync_status(settings: Settings, paths: SyncPaths) -> SyncStatus:
    """What `sync status` shows, as one JSON-ready dict."""
    from studykit.content.loading import load_library
    from studykit.srs.store import Store

    key = read_key(paths)
    found: SyncStatus = {
        "account": None if key is None else key.account,
        "server": None if key is None else key.server,
        "username": None if key is None else key.username,
        "mirror": str(paths.collection),
        "notes": 0,
        "last": None,
        "unsent_answers": 0,
        "unsent_states": 0,
        "conflicts": [],
        "fsrs": None,
        "server_status": "not asked",
    }
    if key is None:
        return found
    if settings.database_path.exists():
        with Store.open(settings.database_path) as store:
            found["unsent_states"], found["unsent_answers"] = store.unsent_count()
    if paths.state.exists():
        library = load_library(settings.root, cache_dir=settings.cache_dir)
        with open_state(paths.state) as state:
            found["notes"] = state.note_count()
            found["last"] = state.get("last")
            lines: list[ConflictLine] = [
                conflict_line(library, c, c.kind, new=False) for c in state.conflicts().values()
            ]
            found["conflicts"] = [line.text() for line in lines]
    found["fsrs"], found["server_status"] = _ask_server(paths, key)
    return found


def _ask_server(paths: SyncPaths, key: SyncKey) -> tuple[bool | None, str]:
    from studykit.sync.mirror import Mirror

    try:
        with Mirror.open(paths) as mirror:
            fsrs = mirror.fsrs
            answer = mirror.run(key, lambda: mirror.col.sync_status(mirror.auth(key)))
    except SyncFailed as error:
        return None, f"not reached ({error})"
    return fsrs, _SERVER.get(int(answer.required), "unknown")

"""Where a sync keeps its files, and the login: the key the server gave, never the password.

Everything lives in `<data dir>/anki-sync/`: `key.json` (the key, readable by its owner
only), the mirror collection `collection.anki2` with its media, the sync's own bookkeeping
`state.sqlite3`, and the export ledger of the packages it imports (`ledger.sqlite3`).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from studykit.sync.errors import SyncFailed

SYNC_DIR = "anki-sync"
KEY_FILE = "key.json"
PASSWORD_ENV = "STUDYKIT_SYNC_PASSWORD"
"""A password for `sync login` without a prompt (for scripts); it is never stored."""
ANKIWEB = "AnkiWeb"
"""How a login without `--endpoint` is named: the backend's own default server."""


class SyncKey(BaseModel):
    """What `sync login` keeps: who, where, and the key the server returned."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    username: str = Field(description="The account's user name or e-mail, as typed at login.")
    endpoint: str | None = Field(
        default=None, description="The sync server's URL; None for AnkiWeb."
    )
    hkey: str = Field(description="The key the server returned at login (not the password).")

    @property
    def server(self) -> str:
        """The endpoint, or `AnkiWeb`."""
        return self.endpoint or ANKIWEB

    @property
    def account(self) -> str:
        """Who and where, as the mirror remembers whom it belongs to."""
        return f"{self.username}@{self.server}"


@dataclass(frozen=True)
class SyncPaths:
    """The files of one data dir's sync."""

    folder: Path

    @classmethod
    def in_data_dir(cls, data_dir: Path) -> SyncPaths:
        """The sync folder of a data dir."""
        return cls(Path(data_dir) / SYNC_DIR)

    @property
    def key(self) -> Path:
        """The login key (0600)."""
        return self.folder / KEY_FILE

    @property
    def collection(self) -> Path:
        """The mirror collection."""
        return self.folder / "collection.anki2"

    @property
    def state(self) -> Path:
        """The sync's bookkeeping."""
        return self.folder / "state.sqlite3"

    @property
    def ledger(self) -> Path:
        """The export ledger of the packages the sync imports into the mirror."""
        return self.folder / "ledger.sqlite3"

    @property
    def package(self) -> Path:
        """Where the sync writes the package it imports."""
        return self.folder / "content.apkg"

    @property
    def lock(self) -> Path:
        """Held while a sync runs (one at a time)."""
        return self.folder / "sync.lock"

    def mirror_files(self) -> list[Path]:
        """The mirror collection's files (the collection, its WAL, its media and media db)."""
        base = self.collection
        return [
            base,
            base.with_name(base.name + "-wal"),
            base.with_name(base.name + "-shm"),
            base.with_name("collection.media.db2"),
            base.with_name("collection.media"),
        ]


def normal_endpoint(text: str) -> str:
    """An http(s) URL ending in `/`; SyncFailed (bad input) for anything else."""
    value = text.strip()
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SyncFailed(
            f"--endpoint {value!r} is not an http:// or https:// URL "
            "(e.g. http://192.168.1.20:8080/)",
            usage=True,
        )
    return value if value.endswith("/") else value + "/"


def read_key(paths: SyncPaths) -> SyncKey | None:
    """The stored login, None when there is none; SyncFailed for a file we cannot use."""
    try:
        text = paths.key.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as error:
        raise SyncFailed(f"cannot read {paths.key}: {error.strerror or error}") from error
    try:
        return SyncKey.model_validate(json.loads(text))
    except (ValueError, ValidationError) as error:
        raise SyncFailed(
            f"{paths.key} is damaged ({type(error).__name__}); run `studykit sync login` again"
        ) from error


def write_key(paths: SyncPaths, key: SyncKey) -> None:
    """Store the key readable by its owner only: a 0600 file, renamed into place."""
    paths.folder.mkdir(parents=True, exist_ok=True)
    temporary = paths.folder / f".{KEY_FILE}.{secrets.token_hex(4)}.tmp"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            os.fchmod(out.fileno(), stat.S_IRUSR | stat.S_IWUSR)
            out.write(key.model_dump_json(indent=2) + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, paths.key)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


def forget_key(paths: SyncPaths) -> bool:
    """Remove the stored key; False when there was none."""
    try:
        paths.key.unlink()
    except FileNotFoundError:
        return False
    return True


def keep_new_endpoint(paths: SyncPaths, key: SyncKey, new_endpoint: str) -> SyncKey:
    """The key with the endpoint a server named (AnkiWeb moves accounts), stored at once."""
    if not new_endpoint or new_endpoint == key.endpoint:
        return key
    moved = key.model_copy(update={"endpoint": new_endpoint})
    write_key(paths, moved)
    return moved

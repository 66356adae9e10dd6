"""The mirror: an Anki collection in the data dir that syncs through Anki's own backend.

Only this module and the sync's others import `anki` (the `sync` extra), and only when a
sync or a login runs. Every call to the server goes through the pylib (`sync_login`,
`sync_collection`, `full_upload_or_download`, `sync_media`): no protocol code here.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from studykit.srs.lock import holding
from studykit.sync.account import SyncKey, SyncPaths
from studykit.sync.errors import SyncFailed, anki_said, from_anki

if TYPE_CHECKING:
    from anki.collection import Collection
    from anki.dbproxy import DBProxy

INSTALL_HINT = (
    "syncing needs Anki's `anki` package: install the sync extra "
    "(pip install 'studykit[sync]'; Linux needs glibc 2.35 or newer, macOS 12 or newer)"
)
MEDIA_WAIT_S = 120.0
"""How long a media sync may take before the sync says so and goes on."""


def _collection_class() -> type[Collection]:
    try:
        from anki.collection import Collection
    except ImportError as error:  # the extra is not installed, or its wheel does not load
        raise SyncFailed(f"{INSTALL_HINT} ({error})") from error
    return Collection


@dataclass(frozen=True)
class Required:
    """What the server said a normal sync needs next."""

    kind: str
    """`none` (done), `full` (both sides changed: a full sync), `download` (we are empty),
    `upload` (the server is empty)."""
    media_usn: int | None
    """The server's media usn, which a full sync passes on (as Anki's desktop does)."""
    new_endpoint: str
    server_message: str


_KINDS = {0: "none", 1: "none", 2: "full", 3: "download", 4: "upload"}


class Mirror:
    """The mirror collection, open for one sync (use `Mirror.open` as a context manager)."""

    def __init__(self, paths: SyncPaths, col: Collection) -> None:
        self.paths = paths
        self.col = col

    @classmethod
    @contextmanager
    def open(cls, paths: SyncPaths) -> Iterator[Mirror]:
        """Open (creating) the mirror, one sync at a time; closed at the end of the block."""
        collection = _collection_class()
        paths.folder.mkdir(parents=True, exist_ok=True)
        with holding(paths.lock) as held:
            if not held:
                raise SyncFailed(
                    "another sync of this data dir is running; try again when it has finished"
                )
            col = _open_collection(collection, paths)
            mirror = cls(paths, col)
            try:
                yield mirror
            finally:
                mirror.close()

    @property
    def db(self) -> DBProxy:
        """The open collection's database."""
        db = self.col.db
        if db is None:
            raise SyncFailed("the mirror collection was closed in the middle of a sync")
        return db

    def close(self) -> None:
        """Close the collection (idempotent)."""
        if self.col.db is not None:
            self.col.close()

    def run(self, key: SyncKey, call: Callable[[], Any]) -> Any:
        """Run one backend call to the server; its errors as SyncFailed."""
        from anki.errors import BackendError

        try:
            return call()
        except BackendError as error:
            raise from_anki(error, key.server) from error

    def run_local(self, call: Callable[[], Any]) -> Any:
        """Run one backend call on the mirror alone (an import); its errors as SyncFailed."""
        from anki.errors import BackendError

        try:
            return call()
        except BackendError as error:
            said = anki_said(error)
            raise SyncFailed(f"Anki's backend refused a change to the mirror: {said}") from error

    def auth(self, key: SyncKey) -> Any:
        """The pylib's SyncAuth for this key."""
        from anki.sync import SyncAuth

        return SyncAuth(hkey=key.hkey, endpoint=key.endpoint)

    def sync(self, key: SyncKey) -> Required:
        """One normal sync (pull and push of everything changed); what the server needs next."""
        out = self.run(key, lambda: self.col.sync_collection(self.auth(key), False))
        return Required(
            kind=_KINDS.get(int(out.required), "none"),
            media_usn=int(out.server_media_usn) if out.server_media_usn else None,
            new_endpoint=out.new_endpoint,
            server_message=out.server_message,
        )

    def full(self, key: SyncKey, *, upload: bool, server_usn: int | None = None) -> None:
        """A full download (the server's collection replaces the mirror) or upload."""
        col = self.col
        col.close_for_full_sync()
        try:
            self.run(
                key,
                lambda: col.full_upload_or_download(
                    auth=self.auth(key), server_usn=server_usn, upload=upload
                ),
            )
        finally:
            col.reopen(after_full_sync=True)

    def sync_media(self, key: SyncKey) -> str | None:
        """Sync the media folder and wait for it; None, or what went wrong (said, not raised)."""
        from anki.errors import BackendError

        try:
            self.col.sync_media(self.auth(key))
            deadline = time.monotonic() + MEDIA_WAIT_S
            while self.col.media_sync_status().active:
                if time.monotonic() > deadline:
                    return "the media sync goes on in the background of the next sync"
                time.sleep(0.005)
        except BackendError as error:
            return str(from_anki(error, key.server))
        return None

    @property
    def usn(self) -> int:
        """The collection's update sequence number: rows pulled later carry one at least this."""
        return int(self.db.scalar("SELECT usn FROM col"))

    @property
    def today(self) -> int:
        """Anki's day number of today in this collection."""
        return int(self.col.sched.today)

    @property
    def fsrs(self) -> bool:
        """Whether FSRS is on (one switch for the whole collection)."""
        return bool(self.col.get_config("fsrs", False))

    def enable_fsrs(self) -> None:
        """Switch FSRS on for the whole collection (synced with the next sync)."""
        self.col.set_config("fsrs", True)


def _open_collection(collection: type[Collection], paths: SyncPaths) -> Collection:
    from anki.errors import BackendError, DBError

    try:
        return collection(str(paths.collection))
    except (BackendError, DBError) as error:
        raise SyncFailed(
            f"cannot open the mirror collection {paths.collection} ({anki_said(error)}); "
            "`studykit sync logout` and `studykit sync login` start a fresh one"
        ) from error


def remove_mirror(paths: SyncPaths) -> None:
    """Delete the mirror collection's files: the next sync starts with a fresh one."""
    for path in [*paths.mirror_files(), paths.package]:
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


def login(paths: SyncPaths, username: str, password: str, endpoint: str | None) -> SyncKey:
    """Log in through the backend; the key to store (the password is not kept)."""
    from anki.errors import BackendError

    collection = _collection_class()
    server = endpoint or "AnkiWeb"
    paths.folder.mkdir(parents=True, exist_ok=True)
    with holding(paths.lock) as held:
        if not held:
            raise SyncFailed("a sync of this data dir is running; log in when it has finished")
        col = _open_collection(collection, paths)
        try:
            auth = col.sync_login(username=username, password=password, endpoint=endpoint)
        except BackendError as error:
            if _is_auth(error):
                raise SyncFailed(
                    f"{server} refused the login: {anki_said(error)} "
                    "(check the user name and password)",
                    usage=True,
                ) from error
            raise from_anki(error, server) from error
        finally:
            col.close()
    return SyncKey(username=username, endpoint=auth.endpoint or endpoint, hkey=auth.hkey)


def _is_auth(error: BaseException) -> bool:
    from anki.errors import SyncError, SyncErrorKind

    return isinstance(error, SyncError) and error.kind == SyncErrorKind.AUTH

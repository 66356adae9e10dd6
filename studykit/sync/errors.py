"""What a sync says when it cannot go on: one line a user can act on, never a traceback."""

from __future__ import annotations

from studykit.core.errors import StudykitError

NOTHING_LOST = "nothing was lost: your answers stay here and go out at the next sync"


class SyncFailed(StudykitError):
    """A sync or login that could not finish; `usage` marks bad input (exit 2)."""

    def __init__(self, message: str, *, usage: bool = False) -> None:
        super().__init__(message)
        self.usage = usage


class NotLoggedIn(SyncFailed):
    """No key stored: `studykit sync login` first."""

    def __init__(self) -> None:
        super().__init__("not logged in: run `studykit sync login` first", usage=True)


class UploadDeclined(SyncFailed):
    """The server holds no collection and uploading was not agreed to; `question` is what to
    ask the user (an app asks it, then syncs again with `yes`)."""

    def __init__(self, message: str, *, question: str) -> None:
        super().__init__(message)
        self.question = question


_ISOLATES = dict.fromkeys(map(ord, "\u2066\u2067\u2068\u2069"))
"""The invisible marks Anki's translated messages put around each value (Unicode's bidi
isolates): a terminal-safe line shows them escaped, as they could reorder what is shown."""


def anki_said(error: BaseException) -> str:
    """What an error of Anki's backend says, on one line, without the invisible marks."""
    return " ".join(str(error).translate(_ISOLATES).split()) or type(error).__name__


def from_anki(error: BaseException, server: str) -> SyncFailed:
    """A `SyncFailed` for an error of Anki's backend during a login or a sync with `server`."""
    from anki.errors import BackendError, Interrupted, NetworkError, SyncError, SyncErrorKind

    text = anki_said(error)
    if isinstance(error, NetworkError):
        return SyncFailed(f"cannot reach the sync server {server} ({_short(text)}); {NOTHING_LOST}")
    if isinstance(error, SyncError) and error.kind == SyncErrorKind.AUTH:
        return SyncFailed(
            f"the sync server {server} refused the login ({_short(text)}); "
            "run `studykit sync login` again"
        )
    if isinstance(error, Interrupted):
        return SyncFailed(f"the sync was interrupted; {NOTHING_LOST}")
    if isinstance(error, BackendError):
        return SyncFailed(f"the sync with {server} failed: {_short(text)}; {NOTHING_LOST}")
    return SyncFailed(f"the sync with {server} failed ({type(error).__name__}: {_short(text)})")


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"

"""Messages the screens post up to the app, which owns navigation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from datetime import datetime

    from studykit.export import ExportResult
    from studykit.study.browser import BrowserView
    from studykit.study.flow import FlowResult, StudyFlow


@dataclass(frozen=True)
class ReviewScope:
    """Which decks a review covers: `deck_ids=None` means every deck."""

    title: str
    deck_ids: tuple[str, ...] | None = None


class ReviewRequested(Message):
    """Review `scope`: with `flow`, carry on with it; `undo` first undoes its last action."""

    def __init__(
        self,
        scope: ReviewScope,
        *,
        flow: StudyFlow | None = None,
        undo: bool = False,
    ) -> None:
        super().__init__()
        self.scope = scope
        self.flow = flow
        self.undo = undo


class ReviewFinished(Message):
    """Nothing is left to study today in `scope`; `flow` can still undo its last action."""

    def __init__(
        self,
        scope: ReviewScope,
        *,
        next_due: datetime | None = None,
        flow: StudyFlow | None = None,
    ) -> None:
        super().__init__()
        self.scope = scope
        self.next_due = next_due
        self.flow = flow


class FlowDone(Message):
    """A study flow call finished in its worker; `result` says what to show."""

    def __init__(self, result: FlowResult | None) -> None:
        super().__init__()
        self.result = result


class WorkerFailed(Message):
    """Work off the UI thread failed; the app shows `title` and the error (never swallowed)."""

    def __init__(self, title: str, error: BaseException) -> None:
        super().__init__()
        self.title = title
        self.error = error


class NotesRequested(Message):
    """Open a note, scrolled to a section when one is given."""

    def __init__(self, note_id: str, section_id: str | None = None) -> None:
        super().__init__()
        self.note_id = note_id
        self.section_id = section_id


class BrowseRequested(Message):
    """Open the card browser on a search (e.g. `is:suspended`); empty: every card."""

    def __init__(self, query: str = "") -> None:
        super().__init__()
        self.query = query


class BrowserDone(Message):
    """A card-browser call finished in its worker; `view` says what to show."""

    def __init__(self, view: BrowserView) -> None:
        super().__init__()
        self.view = view


class StatsRequested(Message):
    """Open the statistics screen."""


class HomeRequested(Message):
    """Go back to the deck list."""


class ReloadRequested(Message):
    """Reload the content files and reopen the study session."""


class ExperimentRequested(Message):
    """Open the Experiments screen on `name`, its form filled with `params`; `run` starts it."""

    def __init__(
        self, name: str, params: dict[str, str | int | float | bool], *, run: bool = False
    ) -> None:
        super().__init__()
        self.name = name
        self.params = params
        self.run = run


class QuizRequested(Message):
    """Start a quiz over the decks of `scope`; `count=None` asks as many as the app was told."""

    def __init__(self, scope: ReviewScope, *, count: int | None = None) -> None:
        super().__init__()
        self.scope = scope
        self.count = count


class Exported(Message):
    """An Anki export of `title` finished."""

    def __init__(self, title: str, result: ExportResult) -> None:
        super().__init__()
        self.title = title
        self.result = result

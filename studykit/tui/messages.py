"""Messages the screens post up to the app, which owns navigation."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
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


@dataclass
class ReviewRequested(Message):
    """Review `scope`: with `flow`, carry on with it; `undo` first undoes its last action."""

    scope: ReviewScope
    _: KW_ONLY
    flow: StudyFlow | None = None
    undo: bool = False


@dataclass
class ReviewFinished(Message):
    """Nothing is left to study today in `scope`; `flow` can still undo its last action."""

    scope: ReviewScope
    _: KW_ONLY
    next_due: datetime | None = None
    flow: StudyFlow | None = None


@dataclass
class FlowDone(Message):
    """A study flow call finished in its worker; `result` says what to show."""

    result: FlowResult | None


@dataclass
class WorkerFailed(Message):
    """Work off the UI thread failed; the app shows `title` and the error (never swallowed)."""

    title: str
    error: BaseException


@dataclass
class NotesRequested(Message):
    """Open a note, scrolled to a section when one is given."""

    note_id: str
    section_id: str | None = None


@dataclass
class BrowseRequested(Message):
    """Open the card browser on a search (e.g. `is:suspended`); empty: every card."""

    query: str = ""


@dataclass
class BrowserDone(Message):
    """A card-browser call finished in its worker; `view` says what to show."""

    view: BrowserView


class StatsRequested(Message):
    """Open the statistics screen."""


class HomeRequested(Message):
    """Go back to the deck list."""


@dataclass
class ReloadRequested(Message):
    """Reload the content files and reopen the study session; with `review`, review it again
    (a card edited from review shows as edited)."""

    review: ReviewScope | None = None


@dataclass
class ExperimentRequested(Message):
    """Open the Experiments screen on `name`, its form filled with `params`; `run` starts it."""

    name: str
    params: dict[str, str | int | float | bool]
    _: KW_ONLY
    run: bool = False


@dataclass
class QuizRequested(Message):
    """Start a quiz over the decks of `scope`; `count=None` asks as many as the app was told."""

    scope: ReviewScope
    _: KW_ONLY
    count: int | None = None


@dataclass
class Exported(Message):
    """An Anki export of `title` finished."""

    title: str
    result: ExportResult

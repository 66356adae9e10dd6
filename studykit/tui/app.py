"""The Textual app, built by `make_app` for the command line and the tests alike."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime
from typing import ClassVar

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Input
from textual.worker import Worker, WorkerState

from studykit.core.config import Settings
from studykit.core.defaults import QUIZ_QUESTIONS
from studykit.core.terminal import terminal_safe
from studykit.study.session import StudySession
from studykit.tui.guard import (
    CARRY_ON_LIMIT,
    GuardedHandlers,
    carry_on,
    describe_error,
    show_error,
)
from studykit.tui.messages import (
    BrowseRequested,
    ExperimentRequested,
    Exported,
    HomeRequested,
    NotesRequested,
    QuizRequested,
    ReloadRequested,
    ReviewFinished,
    ReviewRequested,
    ReviewScope,
    StatsRequested,
    WorkerFailed,
)
from studykit.tui.screens.home import HomeScreen
from studykit.tui.screens.loading import LoadingScreen

# Screens past the first are imported when first opened: start-up pays only for home.
START_SCREENS = ("home", "review", "stats", "quiz")
OPEN_WORKER = "open-session"
LOADING_DELAY_S = 0.3
"""How long the session may take to open before the loading screen shows: a quick open
goes straight to home (and never pays for composing, styling and animating that screen)."""
EXPORT_WORKER = "export-anki"
PRELOAD_WORKER = "build-models"
PRELOAD_DELAY_S = 0.5
"""How long after home shows that a library read from the cache builds its models (and
imports pydantic) in a thread worker: home needs none of them, so it is up first; a key
pressed before then builds them itself."""
_frozen: set[bool] = set()  # freeze_start_up ran without (False) / with (True) the models


class StudykitApp(GuardedHandlers, App[None]):
    """Decks, review, notes and stats over one `StudySession`."""

    CSS_PATH = "studykit.tcss"
    TITLE = "studykit"
    # Every screen gets `-narrow` below 100 columns and `-short` below 32 rows (studykit.tcss).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012 (App declares it)
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]  # noqa: RUF012
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("e", "experiments", "Experiments"),
    ]

    def __init__(
        self,
        settings: Settings,
        *,
        session: StudySession | None = None,
        start: str = "home",
        deck_id: str | None = None,
        opener: Callable[[Settings], StudySession] | None = None,
        questions: int = QUIZ_QUESTIONS,
    ) -> None:
        super().__init__()
        self.questions = questions  # how many a quiz asks
        self.settings = settings
        self.session = session
        self.start = start
        self.deck_id = deck_id
        self._opener = opener or StudySession.open
        self._owns_session = session is None
        self.carried_on = 0  # errors a handler raised that the app showed and carried on from

    # -- session -------------------------------------------------------------

    def on_mount(self) -> None:
        if self.session is None:
            self.open_session()
            self.set_timer(LOADING_DELAY_S, self._show_loading)
        else:
            self._show_start(self.session)

    def _show_loading(self) -> None:
        """The loading screen, if the session is still opening (a quick open never shows it)."""
        if self.session is None and not isinstance(self.screen, LoadingScreen):
            self.push_screen(LoadingScreen())

    @work(thread=True, exclusive=True, exit_on_error=False, group="session", name=OPEN_WORKER)
    def open_session(self) -> StudySession:
        """Load the content and open the database, off the UI thread."""
        return self._opener(self.settings)

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place a worker's failure becomes a message on screen."""
        worker = event.worker
        if event.state == WorkerState.ERROR:
            self.show_failure(worker.error)
        elif event.state == WorkerState.SUCCESS and worker.name == OPEN_WORKER:
            result = worker.result
            if isinstance(result, StudySession):
                await self._session_opened(result)

    def on_worker_failed(self, message: WorkerFailed) -> None:
        """A screen's or widget's worker failed: say so in a dialog."""
        show_error(self, message.title, describe_error(message.error))

    def show_failure(self, error: BaseException | None) -> None:
        """Say what went wrong: on the loading screen if we never opened, else in a dialog."""
        message = describe_error(error) if error is not None else "Unknown error."
        home = self._home()
        if home is not None:
            home.query_one("#decks").loading = False
        if isinstance(self.screen, LoadingScreen):
            self.screen.show_error(message)
        elif self.session is None:  # it failed before the loading screen was due
            self.push_screen(LoadingScreen(error=message))
        else:
            show_error(self, "Something went wrong", message)

    async def _session_opened(self, session: StudySession) -> None:
        # Screens above home hold the old session, which is about to close.
        home = await self._back_to_home()
        old, self.session = self.session, session
        if old is not None and old is not session and self._owns_session:
            old.close()
        self._owns_session = True
        freeze_start_up()  # what loading the YAML imported, if it did
        self.set_timer(PRELOAD_DELAY_S, lambda: self.build_models(session))
        if home is None:
            self._show_start(session)
            return
        home.set_session(session)
        library = session.library
        self.notify(f"Reloaded {len(library.decks)} deck(s), {len(library.notes)} note(s).")

    @work(thread=True, exit_on_error=False, group="preload", name=PRELOAD_WORKER)
    def build_models(self, session: StudySession) -> None:
        """Build the notes and decks of the session's library now, off the UI thread."""
        if session is self.session:
            session.library.ready()
            freeze_start_up()

    def _show_start(self, session: StudySession) -> None:
        home = HomeScreen(session)
        if isinstance(self.screen, LoadingScreen):
            self.switch_screen(home)
        else:
            self.push_screen(home)
        if self.start == "review":
            from studykit.tui.screens.review import ReviewScreen

            deck_ids = None if self.deck_id is None else (self.deck_id,)
            if self.deck_id is not None and self.deck_id not in session.outlines:
                known = ", ".join(session.outlines) or "none"
                self.notify(f"Unknown deck {self.deck_id!r}; known: {known}", severity="error")
                return
            title = session.outlines[self.deck_id].name if self.deck_id else "All decks"
            title = terminal_safe(title)
            self.push_screen(ReviewScreen(session, ReviewScope(title, deck_ids)))
        elif self.start == "quiz":
            from studykit.tui.screens.quiz import QuizScreen

            deck = session.outlines.get(self.deck_id) if self.deck_id else None
            scope = (
                ReviewScope(terminal_safe(deck.name), (deck.id,))
                if deck
                else ReviewScope("All decks")
            )
            self.push_screen(QuizScreen(session, scope, count=self.questions))
        elif self.start == "stats":
            from studykit.tui.screens.stats import StatsScreen

            self.push_screen(StatsScreen(session, today=self.today))

    def on_unmount(self) -> None:
        if self.session is not None and self._owns_session:
            self.session.close()

    # -- errors nobody handled -----------------------------------------------

    def carry_on_after(self, error: Exception) -> None:
        """A handler raised `error`: say so in a dialog, log its traceback, and go on."""
        self.carried_on += 1
        carry_on(self, error, self.settings.data_dir)

    def _handle_exception(self, error: Exception) -> None:
        """An error outside the handlers GuardedHandlers guards (a timer's callback, a
        built-in widget's handler) is shown too, while the app runs; else Textual's policy."""
        if self.is_running and not self._exit and self.carried_on < CARRY_ON_LIMIT:
            self.carry_on_after(error)
            return
        super()._handle_exception(error)

    # -- time ----------------------------------------------------------------

    def now(self) -> datetime:
        """The session's clock (a fake one in tests)."""
        if self.session is None:
            return datetime.now(UTC)
        return self.session.now()

    def today(self) -> date:
        """The study day, which starts at the rollover hour as in Anki."""
        if self.session is None:
            return self.now().astimezone().date()
        return self.session.study_day(self.now())

    # -- navigation ----------------------------------------------------------

    def open_screen(self, screen: Screen[None]) -> None:
        """Push `screen`, unless one with its id is open: a key pressed twice before the
        first screen showed opens it once (Textual refuses two screens with one id)."""
        open_ = next((s for s in self.screen_stack if screen.id and s.id == screen.id), None)
        if open_ is None:
            self.push_screen(screen)
        elif open_ is not self.screen:
            self.notify(
                f"{open_.sub_title or 'That screen'} is open already: Escape goes back to it."
            )

    def _home(self) -> HomeScreen | None:
        return next((s for s in self.screen_stack if isinstance(s, HomeScreen)), None)

    async def _back_to_home(self) -> HomeScreen | None:
        home = self._home()
        if home is None:
            return None
        while self.screen is not home:
            await self.pop_screen()
        return home

    async def on_home_requested(self, message: HomeRequested) -> None:
        await self._back_to_home()

    async def on_review_requested(self, message: ReviewRequested) -> None:
        session = self.session
        if session is None:
            return
        from studykit.tui.screens.review import ReviewScreen

        await self._back_to_home()
        screen = ReviewScreen(session, message.scope, flow=message.flow, undo=message.undo)
        await self.push_screen(screen)

    async def on_review_finished(self, message: ReviewFinished) -> None:
        from studykit.tui.screens.finish import FinishScreen
        from studykit.tui.screens.review import ReviewScreen

        session = self.session
        if session is None or not isinstance(self.screen, ReviewScreen):
            return
        finish = FinishScreen(
            session, message.scope, now=self.now, next_due=message.next_due, flow=message.flow
        )
        await self.switch_screen(finish)

    def on_notes_requested(self, message: NotesRequested) -> None:
        session = self.session
        note = session.library.notes.get(message.note_id) if session else None
        if note is None:
            self.notify(f"No note {message.note_id!r}.", severity="warning")
            return
        from studykit.tui.screens.notes import NotesScreen

        self.open_screen(NotesScreen(note, section_id=message.section_id))

    async def on_quiz_requested(self, message: QuizRequested) -> None:
        session = self.session
        if session is None:
            return
        from studykit.tui.screens.quiz import QuizScreen

        await self._back_to_home()
        count = message.count if message.count is not None else self.questions
        await self.push_screen(QuizScreen(session, message.scope, count=count))

    def on_stats_requested(self, message: StatsRequested) -> None:
        from studykit.tui.screens.stats import StatsScreen

        if self.session is not None:
            self.open_screen(StatsScreen(self.session, today=self.today))

    def on_browse_requested(self, message: BrowseRequested) -> None:
        from studykit.tui.screens.browser import BrowserScreen

        if self.session is not None:
            self.open_screen(BrowserScreen(self.session, message.query))

    def on_reload_requested(self, message: ReloadRequested) -> None:
        home = self._home()
        if home is not None:
            home.query_one("#decks").loading = True
        self.open_session()

    # -- export --------------------------------------------------------------

    def on_home_screen_export_requested(self, message: HomeScreen.ExportRequested) -> None:
        if self.session is None:
            return
        self.notify(f"Exporting {message.title} to Anki…", timeout=3)
        self.export_anki(message.title, message.deck_ids, message.stem)

    @work(thread=True, exclusive=True, exit_on_error=False, group="export", name=EXPORT_WORKER)
    def export_anki(self, title: str, deck_ids: tuple[str, ...], stem: str) -> None:
        """Write `<data dir>/exports/<stem>.apkg` off the UI thread; Exported says how it went."""
        from studykit.export import export_anki
        from studykit.export.ledger import ExportLedger

        session = self.session
        assert session is not None
        data_dir = session.settings.data_dir
        result = export_anki(
            session.library,
            data_dir / "exports" / f"{stem}.apkg",
            deck_ids=deck_ids,
            ledger=ExportLedger.in_data_dir(data_dir),
            session=session,
            plot_dir=data_dir / "plots",
        )
        self.post_message(Exported(title, result))

    def on_exported(self, message: Exported) -> None:
        """Say what an export wrote."""
        result = message.result
        lines = [
            f"Exported {message.title}: {result.notes} notes, {result.cards} cards.",
            str(result.path),
        ]
        if result.reused:
            from studykit.export import REUSED

            lines.append(REUSED)
        if result.unbaked:
            lines.append(f"{len(result.unbaked)} computed card(s) as their formula only.")
        media = result.media
        if media is not None and media.skipped_plots:
            lines.append(
                f"{media.skipped_plots} plot(s) skipped: install the plots extra (matplotlib)."
            )
        if media is not None and media.missing:
            names = ", ".join(sorted({run.experiment for run in media.missing}))
            lines.append(
                f"{len(media.missing)} linked experiment run(s) not run yet, so no plot "
                f"({names}): run them in Experiments, or see `studykit export anki`."
            )
        if result.removed:
            lines.append(
                f"{len(result.removed)} removed card(s) or variant(s) sent once more, tagged "
                f"studykit::removed (in Anki: tag:studykit::removed): {', '.join(result.removed)}"
            )
        lines += result.ledger_damage
        self.notify("\n".join(lines), title="Anki export", timeout=12, markup=False)

    # -- command palette -----------------------------------------------------

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if self.session is None:
            return
        yield SystemCommand(
            "Home", "Go to the deck list", lambda: self.post_message(HomeRequested())
        )
        yield SystemCommand(
            "Notes", "Read the note of the deck or card in view", self.action_open_notes
        )
        yield SystemCommand(
            "Stats", "Reviews, retention, forecast", lambda: self.post_message(StatsRequested())
        )
        yield SystemCommand(
            "Quiz", f"{self.questions} questions from every deck", self.action_quiz_all
        )
        yield SystemCommand(
            "Browse cards",
            "Search every card: its history; suspend, bury, forget, edit",
            lambda: self.post_message(BrowseRequested()),
        )
        yield SystemCommand(
            "Suspended cards",
            "Put suspended cards and leeches back into reviews (the browser on is:suspended)",
            lambda: self.post_message(BrowseRequested("is:suspended")),
        )
        yield SystemCommand(
            "Reload", "Reload the content files", lambda: self.post_message(ReloadRequested())
        )
        yield SystemCommand(
            "Experiments", "Run the live PyTorch experiments", self.action_experiments
        )

    def action_quiz_all(self) -> None:
        """A quiz over every deck."""
        self.post_message(QuizRequested(ReviewScope("All decks"), count=self.questions))

    def on_experiment_requested(self, message: ExperimentRequested) -> None:
        """Open the Experiments screen with linked parameters filled in (and run them if asked)."""
        from studykit.experiments.base import ParamError
        from studykit.experiments.params import validate
        from studykit.experiments.registry import experiments
        from studykit.tui.screens.experiments import ExperimentsScreen

        experiment = experiments().get(message.name)
        if self.session is None or experiment is None:
            self.notify(f"No experiment called {message.name!r}.", severity="warning")
            return
        try:
            params = validate(experiment, message.params)
        except ParamError as error:
            self.notify(str(error), severity="error")
            return
        self.open_screen(
            ExperimentsScreen(
                self.session,
                selected=message.name,
                params=params,
                run=message.run,
                budget=self.session.settings.experiment_budget,
            )
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide keys that would do nothing: letters typed into a box, Experiments on itself."""
        if action in {"quit", "experiments"} and isinstance(self.focused, Input):
            return False
        return not (action == "experiments" and self.screen.id == "experiments")

    def action_experiments(self) -> None:
        """Open the Experiments screen (results cached in the session's store)."""
        from studykit.tui.screens.experiments import ExperimentsScreen

        if self.session is not None and not isinstance(self.screen, ExperimentsScreen):
            self.open_screen(
                ExperimentsScreen(self.session, budget=self.session.settings.experiment_budget)
            )

    def action_open_notes(self) -> None:
        """Open the note of the highlighted deck (home) or card (review)."""
        from studykit.tui.screens.review import ReviewScreen

        screen = self.screen
        if isinstance(screen, HomeScreen | ReviewScreen):
            screen.action_notes()
            return
        session = self.session
        if session is not None and session.library.notes:
            self.post_message(NotesRequested(next(iter(session.library.notes))))


def freeze_start_up() -> None:
    """Take what start-up imported out of the cyclic collector's walks, once per process.

    Modules, classes, pydantic's schemas and Textual's tables live as long as the process;
    while the first screen is built, each full collection walked them all again (~30 ms of
    CPU). Frozen objects are still freed by reference counting; only a cycle that was
    already garbage at this moment is never collected (one-off, and small).
    The content models (and pydantic) may come later, in a worker: once they are imported,
    the next call freezes again, once.
    """
    models = "studykit.content.model" in sys.modules
    if models not in _frozen:
        _frozen.add(models)
        gc.freeze()


def make_app(
    settings: Settings,
    *,
    session: StudySession | None = None,
    start: str = "home",
    deck_id: str | None = None,
    questions: int = QUIZ_QUESTIONS,
) -> StudykitApp:
    """The app on `settings`; with no `session`, one is opened in a thread worker."""
    if start not in START_SCREENS:
        raise ValueError(f"start must be one of {', '.join(START_SCREENS)}, not {start!r}")
    freeze_start_up()
    return StudykitApp(settings, session=session, start=start, deck_id=deck_id, questions=questions)


__all__ = ["START_SCREENS", "StudykitApp", "make_app"]

"""The Textual app, built by `make_app` for the command line and the tests alike.

The shell: start-up, the worker that opens the session, the errors nobody handled. Moves
between screens are in `navigation`, the Anki export in `exporting`, the command palette in
`palette`.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Input
from textual.worker import Worker, WorkerState, get_current_worker

from studykit.core.config import Settings
from studykit.core.defaults import QUIZ_QUESTIONS
from studykit.core.errors import describe_error
from studykit.core.terminal import terminal_safe
from studykit.study.session import StudySession
from studykit.tui.exporting import AnkiExports
from studykit.tui.guard import CARRY_ON_LIMIT, GuardedHandlers
from studykit.tui.messages import ReloadRequested, ReviewScope, WorkerFailed
from studykit.tui.navigation import Navigation
from studykit.tui.preferences import PreferencesKeeper
from studykit.tui.screens import preload_screens_css
from studykit.tui.screens.error import carry_on, show_error
from studykit.tui.screens.home import HomeScreen
from studykit.tui.screens.loading import LoadingScreen

if TYPE_CHECKING:
    from studykit.tui.palette import StudykitCommands

# Screens past the first are imported when first opened: start-up pays only for home.
START_SCREENS = ("home", "review", "stats", "quiz")
OPEN_WORKER = "open-session"
LOADING_DELAY_S = 0.3
"""How long the session may take to open before home's deck list shows a loading indicator:
a quick open goes straight to the decks (and never pays for composing and animating it)."""
PRELOAD_WORKER = "build-models"
PRELOAD_DELAY_S = 0.5
"""How long after home shows that a library read from the cache builds its models (and
imports pydantic) in a thread worker: home needs none of them, so it is up first; a key
pressed before then builds them itself."""
WARM_UP_WORKER = "warm-up"
"""Started when the models are built (so after the first screen has settled): sympy, the
claim values, the screens' modules and the CUDA probe, off the UI thread (`warmup.py`)."""
_frozen: set[bool] = set()  # freeze_start_up ran without (False) / with (True) the models


def _palette() -> type[StudykitCommands]:
    """The palette's provider, imported when the palette first opens."""
    from studykit.tui.palette import StudykitCommands

    return StudykitCommands


class StudykitApp(GuardedHandlers, Navigation, AnkiExports):
    """Decks, review, notes and stats over one `StudySession`."""

    CSS_PATH = "studykit.tcss"
    TITLE = "studykit"
    # Every screen gets `-narrow` below 100 columns and `-short` below 32 rows (studykit.tcss).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012 (App declares it)
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]  # noqa: RUF012
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("e", "experiments", "Experiments"),
        # `?` is typed into a box: f1 opens the help there (and anywhere).
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("f1", "help_typing", "Help"),
        Binding("f1", "help", "Help", show=False),
    ]
    # In place of Textual's system commands provider: ours lists those too.
    COMMANDS = {_palette}  # noqa: RUF012 (App declares it)

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
        self._resume: ReviewScope | None = None  # the review to go back to after a reload
        self.preferences = PreferencesKeeper(settings.data_dir)
        """ui.json: the theme, the browser's columns and sort."""

    # -- session -------------------------------------------------------------

    def get_default_screen(self) -> HomeScreen:
        """Home, from the start: it shows the decks once the session has opened.

        The first screen is then composed, styled and drawn once, while the session opens
        in a worker (a blank default screen with home pushed over it cost ~6 % more CPU).
        """
        return HomeScreen(self.session)

    def on_mount(self) -> None:
        self.preferences.apply_theme(self)
        if self.preferences.problem:
            self.notify(self.preferences.problem, severity="warning", markup=False)
        if self.session is None:
            self.open_session()
            self.set_timer(LOADING_DELAY_S, self._show_loading)  # if it is slow
        else:
            self._show_start(self.session)

    def _show_loading(self) -> None:
        """A loading indicator in home's deck list, if the session is still opening."""
        home = self._home()
        if home is not None and not home.opened:
            home.show_loading(True)

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
        elif worker.name == PRELOAD_WORKER and event.state == WorkerState.SUCCESS:
            session = self.session
            if session is not None:
                self.warm_up(session)  # the first screen has settled: warm the later ones

    def on_worker_failed(self, message: WorkerFailed) -> None:
        """A screen's or widget's worker failed: say so in a dialog."""
        show_error(self, message.title, describe_error(message.error))

    def show_failure(self, error: BaseException | None) -> None:
        """Say what went wrong: on the loading screen if we never opened, else in a dialog."""
        message = describe_error(error) if error is not None else "Unknown error."
        home = self._home()
        if home is not None:
            home.show_loading(False)
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
        self.set_timer(PRELOAD_DELAY_S, lambda: self._preload(session))
        if home is None or not home.opened:  # the first open (or one that failed before)
            self._show_start(session)
            return
        home.set_session(session)
        library = session.library
        self.notify(f"Reloaded {len(library.decks)} deck(s), {len(library.notes)} note(s).")
        resume, self._resume = self._resume, None
        if resume is not None:
            from studykit.tui.screens.review import ReviewScreen

            await self.push_screen(ReviewScreen(session, resume))

    def _preload(self, session: StudySession) -> None:
        """Home has settled: build the models in a worker, and read the later screens' CSS."""
        self.build_models(session)
        preload_screens_css(self)

    @work(thread=True, exit_on_error=False, group="preload", name=PRELOAD_WORKER)
    def build_models(self, session: StudySession) -> None:
        """Build the notes and decks of the session's library now, off the UI thread."""
        if session is self.session:
            session.library.ready()
            freeze_start_up()

    @work(thread=True, exclusive=True, exit_on_error=False, group="warm-up", name=WARM_UP_WORKER)
    def warm_up(self, session: StudySession) -> None:
        """What later screens would wait for, done now, off the UI thread (`warmup.py`)."""
        from studykit.tui.warmup import warm_up

        worker = get_current_worker()
        warm_up(session, lambda: worker.is_cancelled or session is not self.session)

    def on_reload_requested(self, message: ReloadRequested) -> None:
        self._resume = message.review
        home = self._home()
        if home is not None:
            home.show_loading(True)
        self.open_session()

    def _show_start(self, session: StudySession) -> None:
        home = self._home()
        if home is None:  # the app is closing
            return
        if not home.opened:  # else it was made with this session
            home.set_session(session)
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

    # -- keys ----------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide keys that would do nothing: letters typed into a box, Experiments on itself;
        dim Experiments until the session has opened (its results are kept there)."""
        typing = isinstance(self.focused, Input)
        if action in {"quit", "experiments", "help"} and typing:
            return False
        if action == "help_typing":
            return typing
        if action == "experiments" and self.session is None:
            return None
        return not (action == "experiments" and self.screen.id == "experiments")

    def action_help(self) -> None:
        """The keys of the screen in view, in a panel that escape or `?` closes."""
        from studykit.tui.screens.help import HelpScreen, screen_keys

        screen = self.screen
        if isinstance(screen, HelpScreen):
            screen.dismiss()
            return
        if any(isinstance(shown, HelpScreen) for shown in self.screen_stack):
            return  # one is opening (keys typed fast): one help at a time
        self.push_screen(HelpScreen(screen.sub_title or self.title, screen_keys(screen)))

    def action_help_typing(self) -> None:
        """f1 while typing into a box (where `?` is a character)."""
        self.action_help()

    def get_system_commands(self, screen: Screen[object]) -> Iterator[SystemCommand]:
        """Textual's, with Keys opening the `?` help (a panel that escape closes)."""
        for command in super().get_system_commands(screen):
            if command.title == "Keys":
                yield SystemCommand("Keys", "This screen's keys (?)", self.action_help)
            else:
                yield command


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

"""The app's moves between screens: the requests screens post, opening each screen once.

Screens past home are imported when first opened: start-up pays only for home.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime

from textual.app import App
from textual.screen import Screen

from studykit.study.session import StudySession
from studykit.tui.messages import (
    BrowseRequested,
    ExperimentRequested,
    HomeRequested,
    NotesRequested,
    QuizRequested,
    ReviewFinished,
    ReviewRequested,
    ReviewScope,
    StatsRequested,
)
from studykit.tui.screens.home import HomeScreen


class Navigation(App[None]):
    """Mixin for the app: home, review, finish, quiz, notes, stats, browser, experiments."""

    session: StudySession | None
    questions: int
    """How many questions a quiz asks."""
    now: Callable[[], datetime]
    today: Callable[[], date]

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

    def action_quiz_all(self) -> None:
        """A quiz over every deck."""
        self.post_message(QuizRequested(ReviewScope("All decks"), count=self.questions))

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

"""The command palette (ctrl+p): studykit's commands beside Textual's, in one sorted list."""

from __future__ import annotations

from collections.abc import Iterator

from textual.app import SystemCommand
from textual.command import DiscoveryHit, Hit, Hits, Provider

from studykit.tui.messages import (
    BrowseRequested,
    HomeRequested,
    ReloadRequested,
    StatsRequested,
)
from studykit.tui.navigation import Navigation


def palette_commands(app: Navigation) -> Iterator[SystemCommand]:
    """Studykit's commands, once a session is open (none while it opens)."""
    if app.session is None:
        return
    yield SystemCommand("Home", "Go to the deck list", lambda: app.post_message(HomeRequested()))
    yield SystemCommand("Notes", "Read the note of the deck or card in view", app.action_open_notes)
    yield SystemCommand(
        "Stats", "Reviews, retention, forecast", lambda: app.post_message(StatsRequested())
    )
    yield SystemCommand("Quiz", f"{app.questions} questions from every deck", app.action_quiz_all)
    yield SystemCommand(
        "Browse cards",
        "Search every card: its history; suspend, bury, forget, edit",
        lambda: app.post_message(BrowseRequested()),
    )
    yield SystemCommand(
        "Suspended cards",
        "Put suspended cards and leeches back into reviews (the browser on is:suspended)",
        lambda: app.post_message(BrowseRequested("is:suspended")),
    )
    yield SystemCommand(
        "Reload", "Reload the content files", lambda: app.post_message(ReloadRequested())
    )
    home = app._home()
    if home is not None:
        yield SystemCommand(
            "Custom study",
            "Forgotten cards, cards due ahead, or a tag's cards of the deck highlighted at home",
            home.action_custom_study,
        )
        yield SystemCommand(
            "Deck options",
            "New cards and reviews per day, desired retention of the deck highlighted at home",
            home.action_deck_options,
        )
    yield SystemCommand("Experiments", "Run the live PyTorch experiments", app.action_experiments)


class StudykitCommands(Provider):
    """Textual's system commands (theme, keys, quit, …) and studykit's, sorted by title.

    It stands in for Textual's SystemCommandsProvider, so that the two sets show as one
    list, in the same order every time the palette opens.
    """

    def _commands(self) -> list[SystemCommand]:
        commands = list(self.app.get_system_commands(self.screen))
        if isinstance(self.app, Navigation):
            commands += palette_commands(self.app)
        return sorted(commands, key=lambda command: command.title)

    async def discover(self) -> Hits:
        """Every command, before anything is typed."""
        for command in self._commands():
            if command.discover:
                yield DiscoveryHit(command.title, command.callback, help=command.help)

    async def search(self, query: str) -> Hits:
        """The commands whose titles match what is typed, best first."""
        matcher = self.matcher(query)
        for command in self._commands():
            if (score := matcher.match(command.title)) > 0:
                yield Hit(
                    score, matcher.highlight(command.title), command.callback, help=command.help
                )

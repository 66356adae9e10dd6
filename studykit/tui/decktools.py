"""Home's keys for the highlighted deck's own settings: `c` Custom study, `o` deck options.

The dialogs live in `screens/custom_study.py` and `screens/deck_options.py`; both are
imported when first opened, so the first screen pays nothing for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

from studykit.core.terminal import terminal_safe
from studykit.tui.messages import ReloadRequested, ReviewRequested, ReviewScope

if TYPE_CHECKING:
    from studykit.study.custom import CustomQueue
    from studykit.study.session import StudySession
    from studykit.tui.widgets.deck_tree import DeckGroup


class HomeDeckTools(Screen[None]):
    """Home's part that opens Custom study and the deck options for the highlighted deck."""

    @property
    def session(self) -> StudySession:
        """Home's open session."""
        raise NotImplementedError

    def _highlighted(self) -> DeckGroup | None:
        raise NotImplementedError

    def action_custom_study(self) -> None:
        """Custom study of the highlighted deck and its sub-decks (Anki's Custom Study)."""
        from studykit.tui.screens.custom_study import CustomStudyScreen

        group = self._highlighted()
        if group is None or not group.deck_ids:
            self.notify("Highlight a deck first.", severity="warning")
            return
        name = terminal_safe(group.full_name)
        deck_ids = tuple(group.deck_ids)

        def chosen(queue: CustomQueue | None) -> None:
            if queue is not None:
                self._study(queue, name, deck_ids)

        self.app.push_screen(CustomStudyScreen(self.session, deck_ids, name), chosen)

    def _study(self, queue: CustomQueue, name: str, deck_ids: tuple[str, ...]) -> None:
        from studykit.study.custom_flow import CustomFlow

        shown = len(queue.refs)
        if queue.found > shown:
            self.notify(f"{queue.found} cards match; this custom study serves the first {shown}.")
        scope = ReviewScope(f"Custom study · {name}", deck_ids)
        self.post_message(ReviewRequested(scope, flow=CustomFlow(self.session, queue, deck_ids)))

    def action_deck_options(self) -> None:
        """Edit the highlighted deck's daily limits and retention in its YAML file."""
        from studykit.tui.screens.deck_options import DeckOptionsScreen

        group = self._highlighted()
        if group is None or group.deck_id is None:
            self.notify(
                "Highlight a deck with a file of its own (a group of sub-decks has none).",
                severity="warning",
            )
            return
        name = terminal_safe(group.full_name)

        def saved(written: bool | None) -> None:
            if written:
                self.notify(f"Saved the options of {name}; reloading.")
                self.post_message(ReloadRequested())

        self.app.push_screen(DeckOptionsScreen(self.session, group.deck_id), saved)

"""A one-line title bar: `studykit — <screen>`.

Textual's Header watches the screen's title from a coroutine that can run after a
short-lived screen (loading, an empty review) is gone, and then fails; this bar does not.
"""

from __future__ import annotations

from textual.widgets import Static

from studykit.tui.guard import GuardedHandlers


class TitleBar(GuardedHandlers, Static):
    """The app name and the screen's sub-title, docked at the top."""

    def __init__(self) -> None:
        super().__init__("", classes="title-bar", markup=False)

    def on_mount(self) -> None:
        self.show_sub_title()

    def show_sub_title(self) -> None:
        """The screen's sub-title now (a screen that changes it calls this)."""
        sub_title = self.screen.sub_title
        self.update(f"studykit — {sub_title}" if sub_title else "studykit")

"""The footer every screen shows: Textual's Footer, with Quit kept in view on narrow terminals."""

from __future__ import annotations

from textual import events
from textual.widgets import Footer

# Below this width the keys lose their spacing (Textual's compact footer) and the palette key
# gives its room to them (ctrl+p still opens the palette).
COMPACT_BELOW = 100


class StudyFooter(Footer):
    """Quit first, then the keys of the focused widget, the screen and the app."""

    def __init__(self) -> None:
        super().__init__()
        self._wide: bool | None = None

    async def recompose(self) -> None:
        # Footer lists the app's keys last, the first cut at 80 columns; Quit must stay in view.
        await super().recompose()
        keys = [child for child in self.children if getattr(child, "action", None) == "quit"]
        if keys and self.children[0] is not keys[0]:
            self.move_child(keys[0], before=0)

    def on_resize(self, event: events.Resize) -> None:
        wide = event.size.width >= COMPACT_BELOW
        if wide != self._wide:
            self._wide = wide
            self.compact = not wide
            # Docked right over keys that overflow, the palette key left a stray cell beside it.
            self.show_command_palette = wide
            self.call_after_refresh(self.recompose)

"""The footer every screen shows: Textual's Footer, with Quit and Help kept in view when narrow."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from studykit.tui.guard import GuardedHandlers

# Below this width the keys lose their spacing (Textual's compact footer) and the palette key
# gives its room to them (ctrl+p still opens the palette).
COMPACT_BELOW = 100

KeysShown = tuple[object, ...]
FIRST = (frozenset({"quit"}), frozenset({"help", "help_typing"}), frozenset({"back"}))
"""The keys the footer shows first, in this order (when they work now): Quit, Help, Back."""


class StudyFooter(GuardedHandlers, Footer):
    """Quit and Help first, then the keys of the focused widget, the screen and the app."""

    def __init__(self) -> None:
        super().__init__()
        self._wide: bool | None = None
        self._composed: KeysShown | None = None  # what the keys on show were composed from

    def _keys_shown(self) -> KeysShown:
        """Everything the composed keys depend on: the bindings on show and the footer's style."""
        bindings = tuple(
            (key, binding, enabled, tooltip)
            for key, (_, binding, enabled, tooltip) in self.screen.active_bindings.items()
        )
        return (self._bindings_ready, self.compact, self.show_command_palette, bindings)

    def compose(self) -> ComposeResult:
        # A FooterKey starts compact and is data-bound to ours after mounting: two restylings
        # per key on every recompose. Giving it our value first makes both no-ops. (The palette
        # key is not bound: it stays compact.)
        for widget in super().compose():
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                widget.set_reactive(FooterKey.compact, self.compact)
                widget.set_class(self.compact, "-compact", update=False)
            yield widget

    async def recompose(self) -> None:
        # Bindings are published on every focus change and refresh, mostly unchanged: only a
        # change of what the footer shows rebuilds its keys.
        if not self.is_attached:
            return
        shown = self._keys_shown()
        if shown == self._composed:
            return
        self._composed = shown
        await super().recompose()
        # Footer lists the app's keys last, the first cut at 80 columns; Quit and Help must
        # stay in view, first.
        place = 0
        for actions in FIRST:
            keys = [child for child in self.children if getattr(child, "action", None) in actions]
            if keys:
                if self.children[place] is not keys[0]:
                    self.move_child(keys[0], before=place)
                place += 1

    def on_resize(self, event: events.Resize) -> None:
        wide = event.size.width >= COMPACT_BELOW
        if wide != self._wide:
            self._wide = wide
            self.compact = not wide
            # Docked right over keys that overflow, the palette key left a stray cell beside it.
            self.show_command_palette = wide
            self.call_after_refresh(self.recompose)

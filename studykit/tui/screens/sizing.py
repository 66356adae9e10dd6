"""Screens laid out at their size from the first layout on."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.screen import Screen

    _Screen = Screen[Any]
else:
    _Screen = object  # a mixin: as a Screen subclass it would bring Screen's CSS again

Breakpoints = list[tuple[int, str]]


def breakpoint_class(dimension: int, breakpoints: Breakpoints) -> str | None:
    """The class of the highest breakpoint `dimension` reaches, as Textual chooses it."""
    for at, name in sorted(breakpoints, reverse=True):
        if dimension >= at:
            return name
    return None


class SizedScreen(_Screen):
    """Mixin for a screen: the app's breakpoint classes (`-narrow`, `-short`, ...) from its
    first layout on.

    Textual adds them on the screen's first Resize, which comes after a first layout without
    them: each screen was laid out twice as it opened, its text drawn at two widths. Textual
    calls the Mount handler of every class a screen has, and before the first layout."""

    def on_mount(self) -> None:
        app = self.app
        width, height = app.size
        horizontal = self.HORIZONTAL_BREAKPOINTS
        vertical = self.VERTICAL_BREAKPOINTS
        for dimension, breakpoints in (
            (width, app.HORIZONTAL_BREAKPOINTS if horizontal is None else horizontal),
            (height, app.VERTICAL_BREAKPOINTS if vertical is None else vertical),
        ):
            chosen = breakpoint_class(dimension, breakpoints or [])
            for _, name in breakpoints or []:
                self.set_class(name == chosen, name)

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
    calls the Compose handler of every class a screen has, this one's before the screen's
    own compose: the classes come before any widget of it is styled."""

    def on_compose(self) -> None:
        app = self.app
        width, height = app.size
        horizontal = self.HORIZONTAL_BREAKPOINTS
        vertical = self.VERTICAL_BREAKPOINTS
        classes: dict[str, bool] = {}
        for dimension, breakpoints in (
            (width, app.HORIZONTAL_BREAKPOINTS if horizontal is None else horizontal),
            (height, app.VERTICAL_BREAKPOINTS if vertical is None else vertical),
        ):
            chosen = breakpoint_class(dimension, breakpoints or [])
            classes |= {name: name == chosen for _, name in breakpoints or []}
        self.update_classes(classes)

"""The app's screens, one module each."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

SCREENS_CSS = Path(__file__).with_name("screens.tcss")
"""Every screen past home names this as its CSS_PATH: start-up parses only studykit.tcss."""


def preload_screens_css(app: App[Any]) -> None:
    """Read SCREENS_CSS into the app's stylesheet now, while home is idle.

    A screen that brings CSS Textual has not read makes it parse every rule of the app again
    (and once more as the screen's new widgets register theirs), so the first screen opened
    past home would pay for it (100-200 ms here). Parsed here, into the stylesheet's own
    cache, it costs 30-60 ms once. Its rules all name screens past home (a screen class
    or an id of theirs), so home looks the same."""
    sheet, path = app.stylesheet, str(SCREENS_CSS)
    if sheet.has_source(path, ""):  # the key Textual gives a screen's CSS_PATH
        return
    sheet.read(SCREENS_CSS)
    try:
        sheet.parse()  # only what its cache lacks: this file
    except Exception:
        # Left for the first screen that names it, which reports it as Textual does.
        sheet.source.pop((path, ""), None)
        return
    sheet.update(app)

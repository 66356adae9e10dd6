"""Starting the app as the command line does: its imports made with the collector paused.

Importing textual and the app allocates some hundred thousand objects and frees almost
none, so each automatic collection on the way walks them all again for nothing (~15 ms of
CPU on the first screen, 6 % of it). The collector is off while they import, and back on
once `make_app` has frozen what they made (`freeze_start_up`).
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from studykit.core.config import Settings
    from studykit.tui.app import StudykitApp


def launch(settings: Settings, *, start: str = "home", deck_id: str | None = None) -> StudykitApp:
    """The app on `settings`, its modules imported now (textual's included)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        from studykit.tui.app import make_app

        return make_app(settings, start=start, deck_id=deck_id)
    finally:
        if was_enabled:
            gc.enable()

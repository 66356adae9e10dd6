"""Helpers for Pilot tests: waiting for the app to settle and reading widget text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Static

from studykit.tui.app import StudykitApp
from studykit.tui.screens.home import HomeScreen
from studykit.tui.screens.review import ReviewScreen


async def settle(pilot: Pilot[None], until: Callable[[], bool], *, steps: int = 200) -> None:
    """Let the app process messages until `until()` holds (fails the test if it never does)."""
    for _ in range(steps):
        await pilot.pause()
        if until():
            return
        await pilot.pause(0.01)
    raise AssertionError("the app never reached the expected state")


def at_home(app: object) -> bool:
    """Home is in view, showing the decks of an open session (it is up before that)."""
    screen = getattr(app, "screen", None)
    return isinstance(screen, HomeScreen) and screen.opened


async def shown_review(app: StudykitApp, pilot: Pilot[None]) -> ReviewScreen:
    """The review screen once it shows a card."""
    await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
    review = app.screen
    assert isinstance(review, ReviewScreen)
    await settle(pilot, lambda: review.card is not None)
    return review


async def reveal_and_rate(pilot: Pilot[None], review: ReviewScreen, key: str) -> None:
    """Show the answer of the card on `review`, then rate it with `key` (1-4)."""
    await pilot.press("space")
    await settle(pilot, lambda: review.revealed)
    await pilot.press(key)


def plain(widget: Static) -> str:
    """The text a Static was last given, without styles."""
    content = widget.content
    if isinstance(content, Text):
        return content.plain
    return str(content)


def screen_text(app: StudykitApp) -> str:
    """Everything on screen as plain text (what a user would read)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def write(root: Path, rel: str, text: str) -> Path:
    """Write a YAML file under `root`, creating folders."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path

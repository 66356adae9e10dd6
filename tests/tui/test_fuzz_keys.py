"""No input ends the app: keys typed fast and at random on every screen leave it running.

Keys go in as a terminal sends them when typed fast: a burst, all queued before the app has
handled the first (Pilot's `press` waits for the app after each key, which hides races).
The content is the hostile deck and note (terminal escapes in every text): no screen may
show a control character raw.
"""

from __future__ import annotations

import random
import re
import shutil
import string
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import ClassVar

import pytest
from textual import events
from textual.binding import Binding, BindingType
from textual.keys import _character_to_key
from textual.message import Message
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Static

from studykit.content.loading import Library, load_library
from studykit.core.config import Settings
from studykit.experiments import availability
from studykit.experiments.budget import Budget
from studykit.study.session import StudySession
from studykit.tui.app import StudykitApp, make_app
from studykit.tui.guard import ERROR_LOG, GuardedHandlers
from studykit.tui.messages import (
    BrowseRequested,
    NotesRequested,
    QuizRequested,
    ReviewRequested,
    ReviewScope,
    StatsRequested,
)
from studykit.tui.screens.browser import BrowserScreen
from studykit.tui.screens.error import ErrorScreen
from studykit.tui.screens.experiments import ExperimentsScreen
from studykit.tui.screens.finish import FinishScreen
from studykit.tui.screens.home import HomeScreen
from studykit.tui.screens.notes import NotesScreen
from studykit.tui.screens.quiz import QuizScreen
from studykit.tui.screens.review import ReviewScreen
from studykit.tui.screens.stats import StatsScreen
from tests.tui.helpers import at_home, plain, screen_text, settle

MakeSession = Callable[..., StudySession]
ESCAPES = Path(__file__).resolve().parents[1] / "data" / "escapes"
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
NAMED = {"backspace": "\x7f", "tab": "\t", "enter": "\r", "space": " "}
# Printable characters and the editing and moving keys; `q` quits and Escape leaves, which
# is what they are for: the test leaves them out and stays on the screen it fuzzes.
KEYS = [
    *(c for c in string.ascii_letters + string.digits + string.punctuation if c != "q"),
    *("space", "backspace", "tab", "enter", "up", "down", "left", "right"),
]
KEYS_PER_SCREEN = 210  # 7 bursts a screen; the seed is fixed, so each run replays the same keys
BURST = 30  # keys queued at once, then the app settles and the screen is checked


@pytest.fixture(autouse=True)
def quiet_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """No CUDA probe (a Python with torch) and no editor: neither is what is tested here."""
    monkeypatch.setattr(availability, "cuda_status", lambda: "no GPU in the test machine")
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)


def burst(app: StudykitApp, keys: Iterable[str]) -> None:
    """Queue `keys` on the app at once, as a terminal delivers fast typing."""
    for key in keys:
        char = NAMED.get(key, key if len(key) == 1 else None)
        name = _character_to_key(key) if len(key) == 1 else key
        app.post_message(events.Key(name, char))


def assert_carried_on(app: StudykitApp, where: str) -> None:
    """The app runs, nothing failed unexpectedly, and the screen shows no raw control."""
    assert app.is_running, f"the app ended on {where}"
    assert app._exception is None, f"on {where}: {app._exception!r}"
    assert app.carried_on == 0
    assert not isinstance(app.screen, ErrorScreen), (where, app.screen.message)
    shown = screen_text(app)
    assert not CONTROL.search(shown), f"a raw control on {where}: {shown!r}"


async def idle(pilot: Pilot[None], app: StudykitApp) -> None:
    """Let the burst and what it started (workers, screens) run out."""
    for _ in range(3):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Settings, Library]:
    root = tmp_path / "root"
    shutil.copytree(ESCAPES, root)
    # Runs are refused by the budget (the form says so): random keys do start them.
    budget = Budget(bytes=1, seconds=0.001)
    settings = Settings(
        root=root, data_dir=tmp_path / "data", enable_fuzzing=False, experiment_budget=budget
    )
    return settings, load_library(root)


Opener = Callable[[StudykitApp, StudySession], Awaitable[None] | None]


def _post(message_for: Callable[[], object]) -> Opener:
    def open_(app: StudykitApp, session: StudySession) -> None:
        app.post_message(message_for())  # type: ignore[arg-type]

    return open_


def _push_finish(app: StudykitApp, session: StudySession) -> None:
    app.push_screen(FinishScreen(session, ReviewScope("All decks"), now=app.now, next_due=None))


SCREENS: dict[str, tuple[type[Screen[None]], Opener | None]] = {
    "home": (HomeScreen, None),
    "review": (ReviewScreen, _post(lambda: ReviewRequested(ReviewScope("All decks")))),
    "browse": (BrowserScreen, _post(BrowseRequested)),
    "notes": (NotesScreen, _post(lambda: NotesRequested("evil"))),
    "stats": (StatsScreen, _post(StatsRequested)),
    "experiments": (ExperimentsScreen, lambda app, session: app.action_experiments()),
    "quiz": (QuizScreen, _post(lambda: QuizRequested(ReviewScope("All decks")))),
    "finish": (FinishScreen, _push_finish),
}


async def _open(pilot: Pilot[None], app: StudykitApp, session: StudySession, name: str) -> None:
    """Bring screen `name` to the top: back to it where it is stacked, else open it again."""
    kind, opener = SCREENS[name]
    while not isinstance(app.screen, kind) and any(isinstance(s, kind) for s in app.screen_stack):
        await app.pop_screen()
    if isinstance(app.screen, kind):
        return
    while len(app.screen_stack) > 2:  # the default screen and home
        await app.pop_screen()
    if opener is not None:
        opened = opener(app, session)
        if opened is not None:
            await opened
    await settle(pilot, lambda: isinstance(app.screen, kind) and app.screen.is_mounted)


@pytest.mark.parametrize("name", list(SCREENS))
async def test_random_keys_never_end_the_app(
    name: str, hostile: tuple[Settings, Library], make_session: MakeSession
) -> None:
    settings, library = hostile
    session = make_session(library, settings=settings)
    app = make_app(settings, session=session)
    rng = random.Random(f"fuzz-{name}")
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(pilot, lambda: at_home(app))
        for sent in range(0, KEYS_PER_SCREEN, BURST):
            await _open(pilot, app, session, name)
            keys = rng.choices(KEYS, k=BURST)
            burst(app, keys)
            await idle(pilot, app)
            assert_carried_on(app, f"{name} after keys {sent}..{sent + BURST}: {keys}")


async def test_backspacing_and_retyping_gamma_fast_never_ends_the_app(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: at_home(app))
        app.push_screen(ExperimentsScreen(session, selected="effective-context"))
        await settle(pilot, lambda: bool(app.screen.query("#param-gamma")))
        gamma = app.screen.query_one("#param-gamma", Input)
        gamma.focus()
        await pilot.pause()  # focusing selects the text; type at its end instead
        gamma.cursor_position = len(gamma.value)
        for _ in range(2):  # it happened 2 times out of 2
            burst(app, ["backspace"] * 4 + ["0", ".", "9", "5"])
            await settle(pilot, lambda: gamma.value == "0.95")
            assert app.is_running and app._exception is None, app._exception
        line = plain(app.screen.query_one("#experiment-estimate", Static))
        assert line.startswith("estimate: ~"), line
        burst(app, ["backspace"] * 3)  # "0": out of range, said on its line
        error = app.screen.query_one("#error-gamma", Static)
        await settle(pilot, lambda: "gamma" in plain(error))
        assert app.is_running and app._exception is None


class Faulty(GuardedHandlers, Screen[None]):
    """A screen whose key, message handler and timer raise what nothing expects (a bug)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("k", "boom", "Boom")]

    class Boom(Message):
        """Handled by raising."""

    def compose(self) -> Iterable[Static]:
        yield Static("faulty", id="faulty")

    def action_boom(self) -> None:
        raise RuntimeError("a bug in a key handler")

    def on_faulty_boom(self, message: Boom) -> None:
        raise RuntimeError("a bug in a message handler")


async def test_an_error_in_a_handler_is_shown_and_the_app_and_the_screen_carry_on(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, lambda: at_home(app))
        screen = Faulty()
        app.push_screen(screen)
        await settle(pilot, lambda: app.screen is screen)
        await pilot.press("k")  # a key's action (run by the app)
        await settle(pilot, lambda: isinstance(app.screen, ErrorScreen))
        assert app.is_running and app.carried_on == 1
        message = plain(app.screen.query_one("#error-message", Static))
        assert "a bug in a key handler" in message and "The app carries on" in message
        assert "Traceback" not in screen_text(app)
        log = session.settings.data_dir / ERROR_LOG
        assert str(log) in message
        assert "Traceback" in log.read_text() and "action_boom" in log.read_text()
        # A timer's callback runs outside any handler; one dialog at a time all the same.
        screen.set_timer(0.01, screen.action_boom)
        await settle(pilot, lambda: app.carried_on == 2)
        assert sum(isinstance(s, ErrorScreen) for s in app.screen_stack) == 1
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is screen)
        # A message handler of the screen: its messages keep being handled afterwards.
        for count in (3, 4):
            screen.post_message(Faulty.Boom())

            def carried(c: int = count) -> bool:
                return app.carried_on == c

            await settle(pilot, carried)
            await pilot.press("escape")
            await settle(pilot, lambda: app.screen is screen)
        await pilot.press("e")  # and the app still answers keys: Experiments opens
        await settle(pilot, lambda: isinstance(app.screen, ExperimentsScreen))
        # Pilot raises the first error the app carried on from when the test ends: a test
        # fails on a bug the app survived. These were planted.
        assert isinstance(app._exception, RuntimeError)
        app._exception = None

"""What the app says about the database: another studykit on it, a replaced or emptied file."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing

from textual.widgets import Static

from studykit.content.loading import Library
from studykit.core.config import Settings
from studykit.srs.backups import list_backups
from studykit.srs.store import Store
from studykit.study.session import StudySession
from studykit.tui.app import make_app
from studykit.tui.screens.error import ErrorScreen
from studykit.tui.screens.home import HomeScreen
from studykit.tui.screens.loading import LoadingScreen
from studykit.tui.screens.review import ReviewScreen
from tests.robustness.conftest import child_env

from .helpers import at_home, plain, settle

SIZE = (120, 40)
MakeSession = Callable[..., StudySession]
_HOLDER = (
    "import sys\n"
    "from pathlib import Path\n"
    "from studykit.srs.store import Store\n"
    "store = Store.open(Path(sys.argv[1]))\n"
    "print('open', flush=True)\n"
    "sys.stdin.read()\n"  # until the test closes our stdin
    "store.close()\n"
)


async def test_home_says_when_another_studykit_has_the_data_folder_open(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        home = app.screen
        assert isinstance(home, HomeScreen)
        notice = home.query_one("#home-notice", Static)
        assert not notice.display  # this app's own session is no other studykit
        other = subprocess.Popen(
            [sys.executable, "-c", _HOLDER, str(session.settings.database_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=child_env(),
        )
        try:
            assert other.stdout is not None and other.stdout.readline() == "open\n"
            home.update_notice()  # what its timer does every few seconds
            await pilot.pause()
            assert notice.display
            text = plain(notice)
            assert f"also open in another studykit (pid {other.pid})" in text
            assert "the same card" in text
        finally:
            assert other.stdin is not None
            other.stdin.close()
            other.wait(timeout=60)
        home.update_notice()
        await pilot.pause()
        assert not notice.display


async def test_an_answer_into_a_replaced_database_is_an_error_on_screen(
    make_session: MakeSession, small_library: Library, tmp_settings: Settings
) -> None:
    session = make_session(small_library)
    database = tmp_settings.database_path
    app = make_app(session.settings, session=session, start="review", deck_id="alpha")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await settle(pilot, lambda: screen.card is not None)
        copy = database.with_name("copy.sqlite3")
        with closing(sqlite3.connect(database)) as live, closing(sqlite3.connect(copy)) as out:
            live.backup(out)
        os.replace(copy, database)  # another program put a file in its place
        await pilot.press("space")
        await settle(pilot, lambda: screen.revealed)
        await pilot.press("3")
        await settle(pilot, lambda: isinstance(app.screen, ErrorScreen))
        message = plain(app.screen.query_one("#error-message", Static))
        assert "was replaced or removed while this studykit had it open" in message
    with closing(sqlite3.connect(database)) as conn:
        assert conn.execute("SELECT count(*) FROM review_log").fetchone() == (0,)


async def test_an_emptied_database_is_refused_on_the_loading_screen(
    tmp_settings: Settings,
) -> None:
    database = tmp_settings.database_path
    Store.open(database).close()
    Store.open(database, backups_kept=3).close()  # the day's backup
    [backup] = list_backups(database)
    database.write_bytes(b"")
    app = make_app(tmp_settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, LoadingScreen) and app.screen.failed)
        message = plain(app.screen.query_one("#loading-error", Static))
        assert "is empty (0 bytes)" in message and str(backup.path) in message
        assert "studykit doctor --restore newest" in message
    assert database.read_bytes() == b""

"""Pilot: the browser sorted by a column either way, columns chosen, both remembered."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from textual.widgets import DataTable, OptionList, SelectionList

from studykit.core.preferences import PREFERENCES_FILENAME
from studykit.study.session import Rating, StudySession
from studykit.tui.app import StudykitApp, make_app
from studykit.tui.screens.browser import BrowserScreen
from studykit.tui.screens.browser_options import ColumnsScreen, SortScreen
from tests.conftest import FakeClock

from .helpers import settle
from .test_browser import MakeSession, deck_root, listed, notes, open_browser

SIZE = (120, 40)


def headers(screen: BrowserScreen) -> list[str]:
    table = screen.query_one("#browser-list", DataTable)
    return [str(column.label) for column in table.columns.values()]


async def pick_sort(app: StudykitApp, pilot: object, key: str) -> None:
    """`s`, the sort `key` highlighted, enter."""
    await pilot.press("s")  # type: ignore[attr-defined]
    await settle(pilot, lambda: isinstance(app.screen, SortScreen))  # type: ignore[arg-type]
    options = app.screen.query_one(OptionList)
    options.highlighted = options.get_option_index(key)
    await pilot.press("enter")  # type: ignore[attr-defined]


def answered(make_session: MakeSession, root: Path, clock: FakeClock) -> StudySession:
    """sequential due in minutes, decay in days (a lapse behind it), parallel new."""
    from studykit.content.loading import load_library

    session = make_session(load_library(root))
    session.answer(session.study_card("demo", "decay"), Rating.Easy, duration_ms=10)
    clock.advance(timedelta(days=30))
    session.answer(session.study_card("demo", "decay"), Rating.Again, duration_ms=10)
    session.answer(session.study_card("demo", "decay"), Rating.Easy, duration_ms=10)
    session.answer(session.study_card("demo", "sequential"), Rating.Good, duration_ms=10)
    return session


async def test_sort_either_way_and_choose_columns_then_both_come_back(
    tmp_path: Path, make_session: MakeSession, fixed_clock: FakeClock
) -> None:
    session = answered(make_session, deck_root(tmp_path), fixed_clock)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(app, pilot, 3)
        assert listed(screen) == ["demo/sequential", "demo/decay", "demo/parallel"]
        await pick_sort(app, pilot, "due")
        await settle(pilot, lambda: "Due ▲" in headers(screen))
        await settle(
            pilot, lambda: listed(screen) == ["demo/sequential", "demo/decay", "demo/parallel"]
        )
        await pick_sort(app, pilot, "due")  # the same again: the other way round, new last
        await settle(pilot, lambda: "Due ▼" in headers(screen))
        await settle(
            pilot, lambda: listed(screen) == ["demo/decay", "demo/sequential", "demo/parallel"]
        )
        await pick_sort(app, pilot, "lapses")
        await settle(pilot, lambda: listed(screen)[-1] == "demo/decay")
        await pick_sort(app, pilot, "lapses")
        await settle(pilot, lambda: listed(screen)[0] == "demo/decay")
        await pilot.press("c")
        await settle(pilot, lambda: isinstance(app.screen, ColumnsScreen))
        ticks = app.screen.query_one(SelectionList)
        ticks.select("deck")
        ticks.select("lapses")
        ticks.deselect("state")
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is screen and "Deck" in headers(screen))
        assert headers(screen) == ["Question", "#", "Due", "Ivl", "Deck", "Laps ▼"]
        table = screen.query_one("#browser-list", DataTable)
        assert [str(cell) for cell in table.get_row_at(0)][-2:] == ["Demo::Browse", "1"]
    path = session.settings.data_dir / PREFERENCES_FILENAME
    saved = json.loads(path.read_text())["browser"]
    assert saved == {
        "columns": ["ordinal", "due", "interval", "deck", "lapses"],
        "sort": "lapses",
        "descending": True,
    }
    again = make_app(session.settings, session=session)
    async with again.run_test(size=SIZE) as pilot:
        screen = await open_browser(again, pilot, 3)
        assert headers(screen) == ["Question", "#", "Due", "Ivl", "Deck", "Laps ▼"]
        assert listed(screen)[0] == "demo/decay"


async def test_unknown_columns_or_sort_in_the_file_are_left_out_and_said(
    tmp_path: Path, make_session: MakeSession
) -> None:
    from studykit.content.loading import load_library

    session = make_session(load_library(deck_root(tmp_path)))
    path = session.settings.data_dir / PREFERENCES_FILENAME
    path.write_text(json.dumps({"browser": {"columns": ["nope", "deck"], "sort": "zzz"}}))
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(app, pilot, 3)
        await settle(pilot, lambda: any("left out: nope" in note for note in notes(app)))
        assert any("Unknown browser sort 'zzz'" in note for note in notes(app))
        assert headers(screen) == ["Question", "Deck"]
        assert listed(screen) == ["demo/sequential", "demo/decay", "demo/parallel"]

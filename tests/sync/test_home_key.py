"""Home's `y` runs a sync in a worker with a progress line, and the counts follow."""

from __future__ import annotations

from textual.widgets import Static

from studykit.tui.app import make_app
from studykit.tui.screens.home import HomeScreen
from tests.sync.helpers import Phone, Student
from tests.tui.helpers import at_home, plain, settle


async def test_y_syncs_and_the_counts_update(student: Student, phone: Phone) -> None:
    student.sync()
    phone.sync()
    phone.answer("one", 3)
    phone.answer("two", 3)
    phone.sync()
    session = student.session()
    app = make_app(student.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: at_home(app))
        home = app.screen
        assert isinstance(home, HomeScreen)
        new_before = session.deck_counts()[0].new
        await pilot.press("y")
        line = home.query_one("#sync-line", Static)
        await settle(pilot, lambda: plain(line).startswith("Synced"), steps=2000)
        assert "2 answer(s) in" in plain(line)
        assert session.deck_counts()[0].new == new_before - 2
        assert home._counts["alpha"].new == new_before - 2  # what the tree shows
        assert [a.source for a in student.history("one")] == ["anki"]


async def test_y_without_a_login_says_so_on_the_line(student: Student) -> None:
    student.paths.key.unlink()
    app = make_app(student.settings, session=student.session())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, lambda: at_home(app))
        await pilot.press("y")
        line = app.screen.query_one("#sync-line", Static)
        await settle(pilot, lambda: plain(line).startswith("Sync failed"), steps=2000)
        assert "studykit sync login" in plain(line)


async def test_y_asks_before_uploading_to_an_empty_server(student: Student, phone: Phone) -> None:
    from studykit.tui.screens.confirm import ConfirmScreen

    student.answer("one", 3)
    app = make_app(student.settings, session=student.session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: at_home(app))
        home = app.screen
        await pilot.press("y")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), steps=2000)
        question = plain(app.screen.query_one("#confirm-question", Static))
        assert question.endswith("(a new Anki collection, with FSRS on as studykit schedules)?")
        assert phone.sync() == "normal"  # nothing uploaded while the question is open
        await pilot.press("y")
        line = home.query_one("#sync-line", Static)
        await settle(pilot, lambda: plain(line).startswith("Synced"), steps=2000)
        assert "full upload" in plain(line)
    assert phone.sync() == "download"
    assert [row[1] for row in phone.revlog("one")] == [3]
    assert phone.col.get_config("fsrs", False) is True

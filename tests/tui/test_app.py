"""Pilot tests: the app on a real session (SQLite in tmp_path) with a fake clock."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import closing
from datetime import timedelta
from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Markdown, OptionList, Static

from studykit.content.loading import Library, load_library
from studykit.core.config import Settings
from studykit.srs.store import StoreError
from studykit.study.formatting import format_local, format_until
from studykit.study.session import Rating, StudySession
from studykit.tui import app as app_module
from studykit.tui.app import LOADING_DELAY_S, StudykitApp, make_app
from studykit.tui.messages import ReloadRequested
from studykit.tui.palette import palette_commands
from studykit.tui.screens import SCREENS_CSS
from studykit.tui.screens.error import ErrorScreen
from studykit.tui.screens.finish import FinishScreen
from studykit.tui.screens.home import HomeScreen
from studykit.tui.screens.loading import LoadingScreen
from studykit.tui.screens.notes import NotesScreen, SectionView
from studykit.tui.screens.review import ReviewScreen
from studykit.tui.screens.stats import StatsScreen
from studykit.tui.widgets.deck_tree import DeckGroup, DeckTree
from tests.conftest import FakeClock
from tests.unit.test_loading_cache import rename_a_card_field
from tests.unit.test_loading_cache import settle as settle_files

from .helpers import at_home, plain, screen_text, settle, write

SIZE = (120, 40)
MakeSession = Callable[..., StudySession]


def tree_rows(app: StudykitApp) -> dict[str, DeckGroup]:
    tree = app.screen.query_one(DeckTree)
    rows: dict[str, DeckGroup] = {}
    stack = list(tree.root.children)
    while stack:
        node = stack.pop()
        assert node.data is not None
        rows[node.data.full_name] = node.data
        stack.extend(node.children)
    return rows


async def highlight(app: StudykitApp, pilot: object, full_name: str) -> None:
    tree = app.screen.query_one(DeckTree)
    for node in tree.root.children:
        for candidate in [node, *node.children]:
            if candidate.data is not None and candidate.data.full_name == full_name:
                tree.move_cursor(candidate)
                return
    raise AssertionError(f"no deck {full_name}")


def review(app: StudykitApp) -> ReviewScreen:
    assert isinstance(app.screen, ReviewScreen)
    return app.screen


async def test_home_lists_decks_as_a_tree_with_counts(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        rows = tree_rows(app)
        assert set(rows) == {"Demo", "Demo::Alpha", "Demo::Beta"}
        # beta allows one new card a day; the parent sums its children
        assert (rows["Demo::Alpha"].new, rows["Demo::Beta"].new, rows["Demo"].new) == (3, 1, 4)
        assert rows["Demo"].deck_ids == ("alpha", "beta")
        assert rows["Demo"].deck_id is None
        text = screen_text(app)
        assert "Alpha" in text and "Beta" in text and "Learn" in text
        alpha_line = next(line for line in text.splitlines() if "Alpha" in line)
        assert alpha_line.replace("│", " ").split()[-3:] == ["3", "0", "0"]
        assert not app.screen.query_one("#problems").display


async def test_review_a_deck_to_the_finish_screen(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        await highlight(app, pilot, "Demo::Alpha")
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = review(app)
        await settle(pilot, lambda: screen.card is not None)
        assert screen.card is not None and screen.card.card.id == "sequential"
        assert screen.query_one("#front", Markdown).source.strip() == "Why are RNNs slow?"
        assert not screen.query_one("#back", Markdown).display
        assert "3 new · 0 learning · 0 due" in plain(screen.query_one("#review-progress", Static))

        await pilot.press("3")  # not revealed yet: nothing happens
        await pilot.pause()
        assert screen.card.card.id == "sequential" and session.remaining("alpha") == (3, 0, 0)

        await pilot.press("space")
        await settle(pilot, lambda: screen.revealed)
        assert screen.query_one("#back", Markdown).display
        assert screen.query_one("#back", Markdown).source.strip() == "Sequential."
        labels = [str(screen.query_one(f"#{n}", Button).label) for n in ("again", "good", "easy")]
        assert labels[0].startswith("Again · ") and labels[1].startswith("Good · ")
        expected = session.intervals(screen.card)
        assert labels[2].endswith(f"{expected[Rating.Easy].days}d")

        await pilot.press("3")
        await settle(pilot, lambda: screen.card is not None and screen.card.card.id == "decay")
        # committed before the next card showed: a fresh session on the same file sees it
        store_view = make_session(small_library)
        assert store_view.remaining("alpha") == (2, 1, 0)
        store_view.close()

        for _ in range(3):  # decay, parallel, then sequential again (learning, shown early)
            await pilot.press("space")
            await settle(pilot, lambda: screen.revealed)
            await pilot.press("4")
            await pilot.pause()
        await settle(pilot, lambda: isinstance(app.screen, FinishScreen))
        due = session.next_due("alpha")
        assert due is not None
        text = plain(app.screen.query_one("#next-due", Static))
        assert format_local(due) in text
        assert format_until(due - session.now()) in text
        assert text.count("in ") >= 1

        await pilot.press("escape")
        await settle(pilot, lambda: at_home(app))
        assert tree_rows(app)["Demo::Alpha"].new == 0


async def test_undo_shows_the_previous_card_again(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session, start="review", deck_id="alpha")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = review(app)
        await settle(pilot, lambda: screen.card is not None)
        await pilot.press("space", "4")
        await settle(pilot, lambda: screen.card is not None and screen.card.card.id == "decay")
        assert session.remaining("alpha") == (2, 0, 0)

        await pilot.press("u")
        await settle(pilot, lambda: screen.card is not None and screen.card.card.id != "decay")
        assert screen.card is not None and screen.card.card.id == "sequential"
        assert not screen.revealed
        assert session.remaining("alpha") == (3, 0, 0)


async def test_bury_and_suspend_take_cards_out_of_today(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session, start="review", deck_id="alpha")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = review(app)
        await settle(pilot, lambda: screen.card is not None)
        await pilot.press("minus")
        await settle(pilot, lambda: screen.card is not None and screen.card.card.id == "decay")
        await pilot.press("exclamation_mark")
        await settle(pilot, lambda: screen.card is not None and screen.card.card.id == "parallel")
        counts = {c.deck_id: c for c in session.deck_counts()}
        assert counts["alpha"].new == 1
        assert counts["alpha"].suspended == 1
        await pilot.press("minus")
        await settle(pilot, lambda: isinstance(app.screen, FinishScreen))


async def test_n_opens_the_note_at_the_cards_source_section(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session, start="review", deck_id="alpha")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = review(app)
        await settle(pilot, lambda: screen.card is not None)
        await pilot.press("minus")  # bury `sequential`; `decay` cites section `decay`
        await settle(pilot, lambda: screen.card is not None and screen.card.card.id == "decay")
        await pilot.press("n")
        await settle(pilot, lambda: isinstance(app.screen, NotesScreen))
        notes = app.screen
        assert isinstance(notes, NotesScreen)
        assert notes.section_id == "decay"
        assert notes.query_one("#sections", OptionList).highlighted == 1
        body = notes.query_one("#section-decay", SectionView).markdown
        assert "²⁹⁵" in body and "$" not in body  # maths went through mathtext
        assert "2.7 × 10⁻⁷" in screen_text(app).replace("\\", "")

        await pilot.press("escape")
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        back = review(app).card
        assert back is not None and back.card.id == "decay"


def one_card_deck(deck_id: str, name: str) -> str:
    return f"id: {deck_id}\nname: {name}\ncards:\n  - id: a\n    front: Q?\n    back: A.\n"


def long_note_root(root: Path) -> Path:
    sections = "\n".join(
        f"  - id: part-{i}\n    title: Part {i}\n    body: |\n"
        + "".join(
            f"      Paragraph {j} of part {i}, long enough to take space.\n\n" for j in range(8)
        )
        for i in range(1, 7)
    )
    write(root, "content/long.yaml", f"id: long\ntitle: A long note\nsections:\n{sections}")
    write(
        root,
        "decks/long.yaml",
        "id: long\nname: Long\nnote: long\ncards:\n"
        "  - id: one\n    front: Which part?\n    back: Five.\n    source: part-5\n",
    )
    return root


async def test_notes_section_list_jumps_to_the_section(
    make_session: MakeSession, tmp_path: Path, tmp_settings: Settings
) -> None:
    library = load_library(long_note_root(tmp_path / "root"))
    assert not library.problems
    session = make_session(library)
    app = make_app(tmp_settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        await pilot.press("n")
        await settle(pilot, lambda: isinstance(app.screen, NotesScreen))
        notes = app.screen
        text = notes.query_one("#note-text", VerticalScroll)
        await settle(pilot, lambda: notes.query_one("#section-part-6").size.height > 3)
        assert text.scroll_y == 0

        sections = notes.query_one("#sections", OptionList)
        assert sections.option_count == 6
        await pilot.press("down", "down", "down")  # to part 4
        part4 = notes.query_one("#section-part-4", SectionView)
        await settle(pilot, lambda: text.scroll_y > 0 and part4.region.y == text.region.y)
        assert part4.section.title == "Part 4"
        assert "4. Part 4" in screen_text(app).splitlines()[1]


async def test_stats_screen_shows_reviews_forecast_and_heatmap(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    for _ in range(3):
        card = session.next_card("alpha")
        assert card is not None
        session.answer(card, Rating.Easy, duration_ms=1500)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        await pilot.press("s")
        await settle(pilot, lambda: isinstance(app.screen, StatsScreen))
        values = plain(app.screen.query_one("#summary-values", Static)).splitlines()
        labels = plain(app.screen.query_one("#summary-labels", Static)).splitlines()
        summary = dict(zip(labels, values, strict=True))
        assert summary["Reviews today"] == "3"
        assert summary["Cards"] == "5"
        assert summary["True retention (30 days)"] == "—"  # no review-state answers yet
        forecast = plain(app.screen.query_one("#forecast", Static))
        assert "█" in forecast and forecast.splitlines()[0].lstrip().startswith("3 ┤")
        heatmap = plain(app.screen.query_one("#heatmap", Static)).splitlines()
        monday_row = heatmap[1]  # the fake clock's today is a Monday
        assert monday_row.startswith("Mon") and monday_row.rstrip().endswith("█")
        await pilot.press("escape")
        await settle(pilot, lambda: at_home(app))


async def test_home_lists_files_that_failed_to_load(
    make_session: MakeSession, tmp_path: Path, tmp_settings: Settings
) -> None:
    root = tmp_path / "root"
    write(
        root,
        "decks/good.yaml",
        "id: good\nname: Good\ncards:\n  - id: a\n    front: Q?\n    back: A.\n",
    )
    write(
        root,
        "decks/bad.yaml",
        "id: bad\nname: Bad\ncards:\n  - id: a\n    front: Q?\n    bakc: A.\n",
    )
    library = load_library(root)
    assert library.bad_files == ("decks/bad.yaml",)
    app = make_app(tmp_settings, session=make_session(library))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        assert set(tree_rows(app)) == {"Good"}
        problems = app.screen.query_one("#problems")
        assert problems.display
        text = plain(app.screen.query_one("#problems-text", Static))
        assert "decks/bad.yaml:6:" in text and "bakc" in text and "back" in text


async def test_cloze_front_hides_and_back_fills(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session, start="review", deck_id="beta")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = review(app)
        await settle(pilot, lambda: screen.card is not None)
        assert screen.card is not None and screen.card.card.kind == "cloze"
        front = screen.query_one("#front", Markdown).source
        assert "[...]" in front and "vanish" not in front
        await pilot.press("space")
        await settle(pilot, lambda: screen.revealed)
        assert "**vanish**" in screen.query_one("#back", Markdown).source


async def test_a_leech_is_marked(
    make_session: MakeSession, small_library: Library, fixed_clock: FakeClock
) -> None:
    session = make_session(small_library)
    card = session.next_card("alpha")
    assert card is not None and card.card.id == "sequential"
    session.answer(card, Rating.Easy, duration_ms=1000)
    for _ in range(200):  # lapse it, relearn it, again, until it turns into a leech
        due = session.next_due("alpha")
        assert due is not None
        fixed_clock.set(due + timedelta(minutes=1))
        card = session.next_card("alpha")
        assert card is not None and card.card.id == "sequential"
        rating = Rating.Again if card.state == "review" else Rating.Easy
        session.answer(card, rating, duration_ms=1000)
        if session.stats().leeches:
            break
    assert session.stats().leeches == 1
    session.unsuspend(card)
    fixed_clock.advance(timedelta(days=1))  # a new day: it is due again

    app = make_app(session.settings, session=session, start="review", deck_id="alpha")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = review(app)
        await settle(pilot, lambda: screen.card is not None)
        assert screen.card is not None and screen.card.card.id == "sequential"
        assert screen.card.leech
        leech = screen.query_one("#leech", Static)
        assert leech.display and "Leech" in plain(leech)
        await pilot.press("minus")
        await settle(pilot, lambda: screen.card is not None and not screen.card.leech)
        assert not leech.display


async def test_a_slow_open_runs_in_a_worker_while_home_shows_it_loading(
    tmp_settings: Settings,
) -> None:
    opening = threading.Event()
    release = threading.Event()

    def slow_open(settings: Settings) -> StudySession:
        opening.set()
        release.wait(timeout=30)
        return StudySession.open(settings)

    app = StudykitApp(tmp_settings, opener=slow_open)
    async with app.run_test(size=SIZE) as pilot:
        decks = app.screen.query_one(DeckTree)
        await settle(pilot, lambda: decks.loading)
        assert opening.is_set() and app.session is None  # the UI runs while it opens
        assert "Deck" in screen_text(app) and "q Quit" in screen_text(app)
        # Nothing that would say something before there is something to say.
        assert not any(app.screen.query_one(box).display for box in ("#problems", "#no-decks"))
        release.set()
        await settle(pilot, lambda: at_home(app))
        assert app.session is not None and not decks.loading
        assert tmp_settings.database_path.exists()
        assert [type(s) for s in app.screen_stack] == [HomeScreen]
        assert tree_rows(app)  # the decks, in place of the indicator


async def test_a_quick_open_goes_straight_to_home(
    tmp_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    composed: list[Widget] = []
    indicator = DeckTree.get_loading_widget

    def spy(tree: DeckTree) -> Widget:
        composed.append(tree)
        return indicator(tree)

    monkeypatch.setattr(DeckTree, "get_loading_widget", spy)
    StudySession.open(tmp_settings).close()  # a warm start: database made, library cached
    real_open, took = StudySession.open, []

    def timed_open(settings: Settings) -> StudySession:
        started = time.perf_counter()
        try:
            return real_open(settings)
        finally:
            took.append(time.perf_counter() - started)

    monkeypatch.setattr(StudySession, "open", timed_open)
    app = make_app(tmp_settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        await pilot.pause(LOADING_DELAY_S + 0.1)  # past the moment the indicator was due
        assert [type(s) for s in app.screen_stack] == [HomeScreen]
    print(f"warm open took {took[0]:.3f} s")
    # A machine too busy to open within half the delay rightly shows the loading indicator
    # (test_a_slow_open_runs_in_a_worker_while_home_shows_it_loading); a quick one never does.
    if took[0] < LOADING_DELAY_S / 2:
        assert composed == []


async def test_the_app_closes_the_session_it_opened(tmp_settings: Settings) -> None:
    app = make_app(tmp_settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        session = app.session
        assert session is not None
        assert session.store.last_answer() is None  # open and usable
    with pytest.raises(StoreError):
        session.store.last_answer()


async def test_a_failed_open_is_shown_on_screen(tmp_path: Path, tmp_settings: Settings) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the data folder should be")
    settings = Settings(root=tmp_settings.root, data_dir=blocked)
    app = make_app(settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, LoadingScreen) and app.screen.failed)
        message = plain(app.screen.query_one("#loading-error", Static))
        assert "not-a-folder" in message
        assert "Traceback" not in screen_text(app)
        assert "studykit — Could not open" in screen_text(app)
        blocked.unlink()  # what the user fixes before pressing r
        blocked.mkdir()
        await pilot.press("r")
        await settle(pilot, lambda: at_home(app))
        assert tree_rows(app) and "studykit — Decks" in screen_text(app)
    assert app.return_code in (0, None)


async def test_command_palette_offers_home_notes_stats(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        commands = {c.title: c for c in palette_commands(app)}
        assert {"Home", "Notes", "Stats"} <= set(commands)
        commands["Stats"].callback()
        await settle(pilot, lambda: isinstance(app.screen, StatsScreen))
        commands["Notes"].callback()
        await settle(pilot, lambda: isinstance(app.screen, NotesScreen))
        commands["Home"].callback()
        await settle(pilot, lambda: at_home(app))


async def test_reload_picks_up_new_files(tmp_path: Path) -> None:
    root = tmp_path / "root"
    write(root, "decks/one.yaml", one_card_deck("one", "One"))
    settings = Settings(root=root, data_dir=tmp_path / "data")
    app = make_app(settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        assert set(tree_rows(app)) == {"One"}
        write(root, "decks/two.yaml", one_card_deck("two", "Two"))
        await pilot.press("r")
        await settle(pilot, lambda: set(tree_rows(app)) == {"One", "Two"})

        old = app.session
        await pilot.press("enter")  # a review is open when the next reload comes in
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        write(root, "decks/three.yaml", one_card_deck("three", "Three"))
        app.post_message(ReloadRequested())
        await settle(pilot, lambda: app.session is not old and isinstance(app.screen, HomeScreen))
        await settle(pilot, lambda: set(tree_rows(app)) == {"One", "Two", "Three"})
        assert old is not None
        with pytest.raises(StoreError):
            old.store.last_answer()  # the old session was closed, and no screen holds it


async def test_a_cached_library_whose_models_will_not_build_says_so_and_reloads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Home comes from the cache's outlines; the models, built after it, fail: a dialog, r."""
    root = tmp_path / "root"
    write(root, "decks/one.yaml", one_card_deck("one", "One"))
    settle_files(root)
    settings = Settings(root=root, data_dir=tmp_path / "data")
    load_library(root, cache_dir=settings.cache_dir)
    (cached,) = settings.cache_dir.iterdir()
    rename_a_card_field(cached)
    monkeypatch.setattr(app_module, "PRELOAD_DELAY_S", 0.01)
    app = make_app(settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ErrorScreen))
        assert "press r to reload" in plain(app.screen.query_one("#error-message", Static))
        await pilot.press("escape")
        await settle(pilot, lambda: at_home(app))
        assert set(tree_rows(app)) == {"One"}
        old = app.session
        await pilot.press("r")
        await settle(pilot, lambda: app.session is not old)
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        await settle(pilot, lambda: review(app).card is not None)


async def test_errors_from_the_session_become_a_dialog(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session, start="review", deck_id="alpha")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = review(app)
        await settle(pilot, lambda: screen.card is not None)
        await pilot.press("space")
        await settle(pilot, lambda: screen.revealed)
        session.store.close()  # the database goes away under the app
        await pilot.press("3")
        await settle(pilot, lambda: isinstance(app.screen, ErrorScreen))
        assert plain(app.screen.query_one("#error-title", Static)) == "Your answer was not saved"
        assert "closed" in plain(app.screen.query_one("#error-message", Static))
        await pilot.press("escape")
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        assert review(app).card is not None  # still there to retry


async def test_review_with_nothing_left_goes_straight_to_finish(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    card = session.next_card("beta")  # beta introduces one new card a day
    assert card is not None
    session.answer(card, Rating.Easy, duration_ms=800)
    assert session.next_card("beta") is None
    app = make_app(session.settings, session=session, start="review", deck_id="beta")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, FinishScreen))
        text = plain(app.screen.query_one("#next-due", Static))
        due = session.next_due("beta")
        assert due is not None and format_local(due) in text
        await pilot.press("escape")
        await settle(pilot, lambda: at_home(app))


def notifications(app: StudykitApp) -> list[str]:
    return [notification.message for notification in app._notifications]


async def test_export_says_what_it_wrote_and_what_a_damaged_ledger_lost(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    ledger = session.settings.data_dir / "anki-export.sqlite3"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        await highlight(app, pilot, "Demo::Alpha")
        await pilot.press("x")
        await settle(pilot, lambda: any("Exported Demo::Alpha" in n for n in notifications(app)))
        assert (session.settings.data_dir / "exports" / "alpha.apkg").stat().st_size > 0
        assert not any("ledger" in n for n in notifications(app))
        with closing(sqlite3.connect(ledger)) as db, db:  # the body changed, its checksum not
            db.execute(
                "UPDATE blobs SET body = CAST(upper(CAST(body AS TEXT)) AS BLOB) "
                "WHERE kind = 'stamps'"
            )
        await pilot.press("x")
        await settle(pilot, lambda: any("ledger damaged" in n for n in notifications(app)))
        (said,) = [n for n in notifications(app) if "ledger damaged" in n]
        assert "Export ledger damaged (alpha), now rebuilt: note times were lost" in said


async def test_home_is_up_at_once_and_its_keys_wait_for_the_session(
    tmp_settings: Settings,
) -> None:
    """Home is the first screen from the start; until the session opens, its keys do
    nothing (dimmed in the footer) and a quit then ends cleanly."""
    release = threading.Event()

    def slow_open(settings: Settings) -> StudySession:
        release.wait(timeout=30)
        return StudySession.open(settings)

    app = StudykitApp(tmp_settings, opener=slow_open)
    async with app.run_test(size=SIZE) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen) and not home.opened
        await pilot.press("s", "b", "z", "x", "n")  # nothing to show or export yet
        # Nothing opened over home (the loading screen may have, after LOADING_DELAY_S).
        assert {type(s) for s in app.screen_stack} <= {HomeScreen, LoadingScreen}
        assert app.check_action("quit", ()) is not False
        assert home.check_action("stats", ()) is None  # dimmed, not hidden
        assert app.check_action("experiments", ()) is None
        release.set()
        await settle(pilot, lambda: at_home(app))
        assert home.check_action("stats", ()) is True
        assert app.check_action("experiments", ()) is True
        assert [type(s) for s in app.screen_stack] == [HomeScreen]
        await pilot.press("q")
    assert app.carried_on == 0
    assert not (tmp_settings.data_dir / "errors.log").exists()


@pytest.mark.parametrize(("start", "first"), [("review", ReviewScreen), ("stats", StatsScreen)])
async def test_quitting_before_the_first_screen_is_built_ends_cleanly(
    tmp_settings: Settings, start: str, first: type[Screen[None]]
) -> None:
    """A quit the moment the first screen over home is pushed (a key pressed at start):
    Textual mounts it without its widgets; its mount must not fail on them."""
    app = make_app(tmp_settings, start=start)  # the session opens in a worker, then the screen
    async with app.run_test(size=SIZE):
        while not isinstance(app.screen, first):
            await asyncio.sleep(0)  # not pilot.pause(): that would let the screen compose
        assert not app.screen.children
        app.exit()
    assert app.carried_on == 0
    assert not (tmp_settings.data_dir / "errors.log").exists()


async def test_a_root_without_decks_says_where_to_add_one(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "decks").mkdir(parents=True)
    app = make_app(Settings(root=root, data_dir=tmp_path / "data"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        empty = app.screen.query_one("#no-decks", Static)
        assert empty.display and not app.screen.query_one("#problems").display
        assert f"No decks found under {root}/decks" in plain(empty)


async def test_a_started_app_reads_the_screens_stylesheet_once_home_has_settled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "root"
    write(root, "decks/one.yaml", one_card_deck("one", "One"))
    monkeypatch.setattr(app_module, "PRELOAD_DELAY_S", 0.01)
    app = make_app(Settings(root=root, data_dir=tmp_path / "data"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        # Home has settled: the later screens' CSS is read then, not when one first opens.
        await settle(pilot, lambda: app.stylesheet.has_source(str(SCREENS_CSS), ""))

"""Pilot: the card browser — open, search, act, undo, forget, history, $EDITOR."""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Static

from studykit.content.loading import load_library
from studykit.study.session import Rating, StudySession
from studykit.tui.app import StudykitApp, make_app
from studykit.tui.palette import palette_commands
from studykit.tui.screens.browser import BrowserScreen
from studykit.tui.screens.confirm import ConfirmScreen

from .helpers import at_home, plain, screen_text, settle, write

SIZE = (120, 40)
MakeSession = Callable[..., StudySession]

DECK = """\
id: demo
name: "Demo::Browse"
tags: [rnn]
cards:
  - id: sequential
    front: Why are RNNs slow?
    back: Sequential processing.
  - id: decay
    front: What is 0.95^295?
    back: About 2.7e-7.
    tags: [numbers]
  - id: parallel
    front: What do transformers parallelise?
    back: Tokens.
"""


def deck_root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    write(root, "decks/demo.yaml", DECK)
    return root


def line_of(text: str, needle: str) -> int:
    """The 1-based line holding `needle`."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def notes(app: StudykitApp) -> list[str]:
    """The notifications shown so far."""
    return [notification.message for notification in app._notifications]


def footer_actions(app: StudykitApp) -> set[str]:
    """The actions the footer lists now."""
    return {a.binding.action for a in app.screen.active_bindings.values() if a.binding.show}


def listed(screen: BrowserScreen) -> list[str]:
    return list(screen.cards)


async def open_browser(app: StudykitApp, pilot: object, count: int) -> BrowserScreen:
    """From home, `b`; wait until `count` cards are listed and one is selected."""
    await settle(pilot, lambda: at_home(app))  # type: ignore[arg-type]
    await pilot.press("b")  # type: ignore[attr-defined]
    await settle(pilot, lambda: isinstance(app.screen, BrowserScreen))  # type: ignore[arg-type]
    screen = app.screen
    assert isinstance(screen, BrowserScreen)
    await settle(
        pilot,  # type: ignore[arg-type]
        lambda: len(screen.cards) == count and screen.detail is not None,
    )
    return screen


async def search(pilot: object, screen: BrowserScreen, text: str) -> None:
    box = screen.query_one("#browser-search", Input)
    box.focus()
    box.value = text
    await pilot.press("enter")  # type: ignore[attr-defined]
    await settle(pilot, lambda: screen.browser.query == text and not screen.runner.busy)  # type: ignore[arg-type]


@pytest.fixture
def session(tmp_path: Path, make_session: MakeSession) -> StudySession:
    return make_session(load_library(deck_root(tmp_path)))


async def test_b_opens_the_browser_and_search_filters(session: StudySession) -> None:
    session.suspend(session.study_card("demo", "parallel"))
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(app, pilot, 3)
        assert "What is 0.95^295?" in screen_text(app) and "suspended" in screen_text(app)
        await search(pilot, screen, "is:suspended")
        assert listed(screen) == ["demo/parallel"]
        await search(pilot, screen, "tag:numbers")
        assert listed(screen) == ["demo/decay"]
        await search(pilot, screen, "rnns -is:new")
        assert listed(screen) == [] and "No card matches." in screen_text(app)
        box = screen.query_one("#browser-search", Input)
        box.focus()
        box.value = "is:overdue"
        await pilot.press("enter")  # cannot be read: said where the count goes, the list kept
        count = screen.query_one("#browser-count", Static)
        await settle(pilot, lambda: "unknown state `is:overdue`" in plain(count))
        assert count.has_class("-error") and listed(screen) == []


async def test_suspend_then_undo_from_the_browser(session: StudySession) -> None:
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(app, pilot, 3)
        await pilot.press("down")  # decay
        await settle(
            pilot, lambda: screen.detail is not None and screen.detail.row.name == "demo/decay"
        )
        assert {"suspend", "bury"} <= footer_actions(app)
        assert not {"unsuspend", "unbury"} & footer_actions(app)
        await pilot.press("exclamation_mark")
        await settle(pilot, lambda: session.study_card("demo", "decay").suspended)
        await settle(pilot, lambda: "unsuspend" in footer_actions(app))  # the key's other half
        assert "suspend" not in footer_actions(app) and "suspended" in screen_text(app)
        await pilot.press("u")
        await settle(pilot, lambda: not session.study_card("demo", "decay").suspended)
        assert any("Undone: the suspend of demo/decay" in note for note in notes(app))
        await pilot.press("minus")  # bury, then its undo
        await settle(pilot, lambda: session.is_buried(session.study_card("demo", "decay")))
        await pilot.press("u")
        await settle(pilot, lambda: not session.is_buried(session.study_card("demo", "decay")))


async def test_exclamation_mark_on_home_lists_the_suspended_and_enter_unsuspend_undoes(
    session: StudySession,
) -> None:
    for card_id in ("decay", "parallel"):
        session.suspend(session.study_card("demo", card_id))
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        await pilot.press("exclamation_mark")
        await settle(pilot, lambda: isinstance(app.screen, BrowserScreen))
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        assert screen.browser.query == 'deck:"Demo" is:suspended'  # the highlighted group
        await settle(pilot, lambda: listed(screen) == ["demo/decay", "demo/parallel"])
        await settle(pilot, lambda: screen.detail is not None)
        await pilot.press("exclamation_mark")  # unsuspend decay: it leaves the list
        await settle(pilot, lambda: listed(screen) == ["demo/parallel"])
        assert not session.study_card("demo", "decay").suspended
        await pilot.press("u")
        await settle(pilot, lambda: listed(screen) == ["demo/decay", "demo/parallel"])
        assert session.study_card("demo", "decay").suspended
        await pilot.press("escape")
        await settle(pilot, lambda: at_home(app))


async def test_forget_asks_keeps_history_and_u_restores(session: StudySession) -> None:
    card = session.study_card("demo", "decay")
    session.answer(card, Rating.Easy, duration_ms=1200)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(app, pilot, 3)
        await search(pilot, screen, "is:review")
        await settle(
            pilot, lambda: screen.detail is not None and screen.detail.row.name == "demo/decay"
        )
        history = screen.query_one("#browser-history", DataTable)
        assert history.row_count == 1
        assert "Easy" in screen_text(app) and "Stab." in screen_text(app)
        await pilot.press("f")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")  # no: nothing changes
        await settle(pilot, lambda: isinstance(app.screen, BrowserScreen))
        assert session.study_card("demo", "decay").state == "review"
        await pilot.press("f")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await settle(pilot, lambda: session.study_card("demo", "decay").state == "new")
        assert len(session.store.history(card.key)) == 1  # the review history is kept
        await settle(pilot, lambda: screen.detail is not None and len(screen.detail.history) == 2)
        assert "Forgot" in screen_text(app)
        await pilot.press("u")
        await settle(pilot, lambda: session.study_card("demo", "decay").state == "review")
        assert session.store.forgets(card.key) == []


async def test_e_opens_editor_at_the_cards_yaml_line(
    session: StudySession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "argv.txt"
    editor = tmp_path / "fake editor.sh"
    editor.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{record}"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"'{editor}' --wait")  # quoted path, and an option kept
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(app, pilot, 3)
        await pilot.press("down")
        await settle(
            pilot, lambda: screen.detail is not None and screen.detail.row.name == "demo/decay"
        )
        await pilot.press("e")
        await settle(pilot, lambda: record.exists())
    path = session.library.root / "decks" / "demo.yaml"
    expected = line_of(path.read_text(), "- id: decay")
    assert record.read_text().splitlines() == ["--wait", f"+{expected}", str(path)]


async def test_e_without_an_editor_or_with_a_failing_one_says_so(
    session: StudySession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(app, pilot, 3)
        await pilot.press("e")
        await settle(pilot, lambda: any("Set $EDITOR" in note for note in notes(app)))
        monkeypatch.setenv("EDITOR", str(tmp_path / "no-such-editor"))
        await pilot.press("e")
        await settle(pilot, lambda: any("Could not start the editor" in n for n in notes(app)))
        monkeypatch.setenv("EDITOR", "false")
        await pilot.press("e")
        await settle(pilot, lambda: any("exited with status 1" in n for n in notes(app)))
        assert isinstance(app.screen, BrowserScreen)


async def test_at_80x24_list_and_detail_both_show_and_d_hides_the_detail(
    session: StudySession,
) -> None:
    session.answer(session.study_card("demo", "sequential"), Rating.Good, duration_ms=10)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_browser(app, pilot, 3)
        await pilot.pause()
        assert not screen.has_class("-wide")
        table = screen.query_one("#browser-list", DataTable)
        detail = screen.query_one("#browser-detail")
        assert table.region.height >= 4 and detail.region.height >= 8
        assert table.region.y < detail.region.y  # list above the detail
        text = screen_text(app)
        assert "What do transformers parallelise?" in text and "Good" in text
        assert "demo/sequential" in text and "Sequential processing." in text  # the detail
        await pilot.press("d")
        await pilot.pause()
        assert detail.region.height == 0 and table.region.height > 10


async def test_u_in_the_browser_undoes_a_rating_made_in_review(session: StudySession) -> None:
    app = make_app(session.settings, session=session, start="review")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: session.remaining() == (3, 0, 0))
        await pilot.press("space")
        await pilot.pause(0.1)
        await pilot.press("3")
        await settle(pilot, lambda: session.store.last_answer() is not None)
        await pilot.press("escape")
        screen = await open_browser(app, pilot, 3)
        await pilot.press("u")  # one undo stack: the rating made in review goes
        await settle(pilot, lambda: session.store.last_answer() is None)
        await settle(pilot, lambda: any("Undone: the rating of demo/" in n for n in notes(app)))
        assert isinstance(app.screen, BrowserScreen) and screen.is_attached


async def test_letters_typed_into_the_search_are_text_not_actions(session: StudySession) -> None:
    session.answer(session.study_card("demo", "sequential"), Rating.Good, duration_ms=10)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(app, pilot, 3)
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        assert not {"forget", "undo", "edit", "suspend", "bury"} & footer_actions(app)
        await pilot.press("f", "u", "e", "exclamation_mark", "minus")
        await pilot.pause(0.5)
        assert screen.query_one("#browser-search", Input).value == "fue!-"
        assert isinstance(app.screen, BrowserScreen)  # no forget dialog
        assert session.store.last_answer() is not None  # no undo
        assert not session.study_card("demo", "sequential").suspended
        await pilot.press("escape")  # leaves the box, not the screen
        assert isinstance(app.screen, BrowserScreen) and not isinstance(app.focused, Input)


async def test_the_palette_offers_the_browser(session: StudySession) -> None:
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        commands = {c.title: c for c in palette_commands(app)}
        assert {"Browse cards", "Suspended cards"} <= set(commands)
        commands["Suspended cards"].callback()
        await settle(pilot, lambda: isinstance(app.screen, BrowserScreen))
        screen = app.screen
        assert isinstance(screen, BrowserScreen) and screen.browser.query == "is:suspended"


async def test_a_large_result_lists_500_and_says_how_many_more(make_session: MakeSession) -> None:
    from tests.conftest import make_deck, make_library

    session = make_session(make_library([make_deck("big", 520)]))
    app = make_app(session.settings, session=session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_browser(app, pilot, 500)
        count = plain(screen.query_one("#browser-count", Static))
        assert count == "500 of 520 shown, 20 more: narrow the search"
        await search(pilot, screen, '"question 51"')  # a phrase: 51, 510-519
        assert len(screen.cards) == 11
        assert plain(screen.query_one("#browser-count", Static)) == "11 cards"


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_a_long_card_id_still_leaves_the_cards_file_and_line_on_screen(
    tmp_path: Path, make_session: MakeSession, size: tuple[int, int]
) -> None:
    long_id = "effective-context-of-a-recurrent-network-with-a-long-descriptive-id"
    root = tmp_path / "root"
    write(
        root,
        "decks/a-deck-with-a-rather-long-id-as-well.yaml",
        f"id: a-deck-with-a-rather-long-id-as-well\nname: Demo\ncards:\n"
        f"  - id: {long_id}\n    front: Q?\n    back: A.\n",
    )
    session = make_session(load_library(root))
    session.answer(
        session.study_card("a-deck-with-a-rather-long-id-as-well", long_id),
        Rating.Good,
        duration_ms=10,
    )
    app = make_app(session.settings, session=session)
    async with app.run_test(size=size) as pilot:
        await open_browser(app, pilot, 1)
        await pilot.pause()
        text = screen_text(app)  # the path may wrap: its start and its end must both show
        assert "decks/a-deck-with" in text
        assert ".yaml:4" in text or "ml:4" in text

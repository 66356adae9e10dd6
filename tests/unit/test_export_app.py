"""The deck list's `x`: export the highlighted deck (or group) to Anki in a thread worker."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest
from textual.widgets import Tree

from studykit.content.loading import Library
from studykit.export import REUSED
from studykit.export.ledger import ExportLedger
from studykit.export.plan import ExportPlan, PlannedDeck, PlannedNote
from studykit.study.session import StudySession
from studykit.tui.app import make_app
from tests.tui.helpers import at_home, settle


async def test_x_exports_the_highlighted_group_and_shows_path_and_counts(
    make_session: Callable[..., StudySession], small_library: Library, tmp_path: Path
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: at_home(app))
        tree: Tree[object] = app.screen.query_one(Tree)
        demo = next(n for n in tree.root.children if str(n.label).startswith("Demo"))
        tree.move_cursor(demo)
        await pilot.press("x")
        expected = session.settings.data_dir / "exports" / "demo.apkg"
        await settle(pilot, lambda: _exported(app) is not None, steps=1000)
        message = _exported(app)
        assert message is not None
        assert "Exported Demo: 5 notes, 5 cards." in message
        assert str(expected) in message
    (tmp_path / "anki").mkdir()
    col = Collection(str(tmp_path / "anki" / "c.anki2"))
    try:
        request = ImportAnkiPackageRequest(
            package_path=str(expected), options=ImportAnkiPackageOptions()
        )
        log = col.import_anki_package(request).log
        assert (len(log.new), col.card_count()) == (5, 5)
    finally:
        col.close()


async def test_the_export_message_lists_notes_sent_again_as_removed(
    make_session: Callable[..., StudySession], small_library: Library
) -> None:
    session = make_session(small_library)
    demo = next(deck for deck in small_library.decks.values() if deck.name.startswith("Demo"))
    gone = PlannedNote(
        "basic",
        demo.id,
        "gone-card",
        ("studykit", demo.id, "gone-card"),
        ("Gone front", "Gone back", ""),
        (),
    )
    deck = PlannedDeck(demo.id, demo.name, "")
    ledger = ExportLedger.in_data_dir(session.settings.data_dir)
    plan = ExportPlan((deck,), (gone,), ())
    with ledger.notes().stamping(plan, ["gone-guid"], {"gone-guid": "x"}, 100):
        pass  # as if an earlier export had sent this card
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: at_home(app))
        tree: Tree[object] = app.screen.query_one(Tree)
        node = next(n for n in tree.root.children if str(n.label).startswith("Demo"))
        tree.move_cursor(node)
        await pilot.press("x")
        await settle(pilot, lambda: _exported(app) is not None, steps=1000)
        message = _exported(app)
        assert message is not None
        assert "1 removed card(s) or variant(s) sent once more" in message
        assert f"{demo.id}/gone-card" in message


async def test_a_second_export_with_nothing_changed_says_the_package_was_reused(
    make_session: Callable[..., StudySession], small_library: Library
) -> None:
    session = make_session(small_library)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: at_home(app))
        tree: Tree[object] = app.screen.query_one(Tree)
        node = next(n for n in tree.root.children if str(n.label).startswith("Demo"))
        tree.move_cursor(node)
        for count in (1, 2):
            await pilot.press("x")

            def shown(n: int = count) -> bool:
                return len(_messages(app)) == n

            await settle(pilot, shown, steps=1000)
        first, second = _messages(app)
        assert REUSED not in first
        assert REUSED in second and "Exported Demo: 5 notes, 5 cards." in second


def _messages(app: object) -> list[str]:
    notes = getattr(app, "_notifications", [])
    return [n.message for n in notes if n.title == "Anki export"]


def _exported(app: object) -> str | None:
    return next(iter(_messages(app)), None)

"""The app on a root holding a hostile file still shows the good deck and lists the bad one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import Static

from studykit.content.loading import load_library
from studykit.core.config import Settings
from studykit.study.session import StudySession
from studykit.tui.app import make_app
from studykit.tui.widgets.deck_tree import DeckTree
from tests.robustness.hostile import CASES, HOSTILE, Case, root_with
from tests.tui.helpers import at_home, plain, settle


def _deck_names(tree: DeckTree) -> set[str]:
    names: set[str] = set()
    stack = list(tree.root.children)
    while stack:
        node = stack.pop()
        assert node.data is not None
        names.add(node.data.full_name)
        stack.extend(node.children)
    return names


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.rel)
async def test_app_shows_good_decks_and_lists_the_bad_file(
    case: Case, tmp_path: Path, make_session: Callable[..., StudySession]
) -> None:
    root = root_with(tmp_path, HOSTILE / case.rel, case.rel)
    library = load_library(root)
    settings = Settings(root=root, data_dir=tmp_path / "data", enable_fuzzing=False)
    app = make_app(settings, session=make_session(library, settings=settings))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: at_home(app))
        names = _deck_names(app.screen.query_one(DeckTree))
        assert "Demo::Good" in names
        problems = plain(app.screen.query_one("#problems-text", Static))
        if case.status == "load":  # the file did not load: it is listed, with its line
            assert app.screen.query_one("#problems").display
            where = case.rel if case.line is None else f"{case.rel}:{case.line}:"
            assert where in problems, problems
        else:  # it loaded (check finds its content problems): nothing listed
            assert not app.screen.query_one("#problems").display
            if case.rel.startswith("decks/"):
                assert f"Hostile::{Path(case.rel).stem}" in names

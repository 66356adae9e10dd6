"""ui.json: the theme picked is the next start's; a broken file is set aside with a message."""

from __future__ import annotations

import json
from pathlib import Path

from studykit.core.config import Settings
from studykit.core.preferences import (
    PREFERENCES_FILENAME,
    BrowserLayout,
    Preferences,
    read_preferences,
    write_preferences,
)
from studykit.tui.app import make_app

from .helpers import at_home, settle, write
from .test_browser import notes

SIZE = (80, 24)


def settings_in(tmp_path: Path) -> Settings:
    root = tmp_path / "root"
    write(root, "decks/one.yaml", "id: one\nname: One\ncards:\n  - id: a\n    front: Q?\n")
    return Settings(root=root, data_dir=tmp_path / "data")


async def test_the_theme_picked_is_used_at_the_next_start(tmp_path: Path) -> None:
    settings = settings_in(tmp_path)
    path = settings.data_dir / PREFERENCES_FILENAME
    app = make_app(settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        assert app.theme != "nord"
        app.theme = "nord"  # what ctrl+p → theme does
        await settle(pilot, lambda: path.exists() and "nord" in path.read_text())
    again = make_app(settings)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(again))
        assert again.theme == "nord"
        assert again.has_class("-theme-nord")


async def test_a_broken_ui_file_is_said_and_the_defaults_used(tmp_path: Path) -> None:
    settings = settings_in(tmp_path)
    path = settings.data_dir / PREFERENCES_FILENAME
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    app = make_app(settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: at_home(app))
        await settle(pilot, lambda: any("was not read" in note for note in notes(app)))
        assert app.theme == "textual-dark"
    path.write_text(json.dumps({"theme": "no-such-theme"}))
    app = make_app(settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: any("'no-such-theme' is not known" in n for n in notes(app)))
        assert app.theme == "textual-dark"


def test_reading_is_tolerant_and_writing_keeps_unknown_keys(tmp_path: Path) -> None:
    path = tmp_path / PREFERENCES_FILENAME
    assert read_preferences(path) == (Preferences(), "")
    raw = {"theme": 3, "browser": {"columns": ["deck", 5], "sort": "due", "descending": "x"}}
    path.write_text(json.dumps({**raw, "later": {"kept": True}}))
    read, problem = read_preferences(path)
    assert read.theme is None and read.browser == BrowserLayout(None, "due", False)
    assert "`theme`" in problem and "`browser.columns`" in problem
    assert "`browser.descending`" in problem
    write_preferences(path, read)
    assert json.loads(path.read_text())["later"] == {"kept": True}
    path.write_text("[]")
    assert read_preferences(path)[0] == Preferences()
    assert "not a JSON object" in read_preferences(path)[1]

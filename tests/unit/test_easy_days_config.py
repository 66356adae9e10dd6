"""Easy Days and the load balancer as settings: config.toml, a deck's own, the cache."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from studykit.content.loading import load_library
from studykit.core.config import ConfigError, Settings, resolve_settings
from studykit.core.easydays import NORMAL_WEEK, describe, loads_of
from studykit.study.session import Rating, StudySession


def _root(tmp_path: Path, deck_options: str = "", *, cards: int = 3) -> Path:
    root = tmp_path / "root"
    (root / "decks").mkdir(parents=True)
    lines = ["id: d", "name: D", *deck_options.splitlines(), "cards:"]
    lines += [f"  - {{id: c{i}, front: F{i}, back: B{i}}}" for i in range(cards)]
    (root / "decks" / "d.yaml").write_text("\n".join(lines) + "\n")
    return root


def test_config_toml_takes_a_table_of_weekday_shares_and_a_switch(tmp_path: Path) -> None:
    root, data = _root(tmp_path), tmp_path / "data"
    data.mkdir()
    settings = resolve_settings(root=root, data_dir=data)
    assert settings.easy_days == NORMAL_WEEK and settings.load_balancer is True
    (data / "config.toml").write_text("load_balancer = false\neasy_days = {sat = 0.5, sun = 0}\n")
    settings = resolve_settings(root=root, data_dir=data)
    assert settings.easy_days == (1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.0)
    assert settings.load_balancer is False
    assert describe(settings.easy_days) == "sat 50 %, sun 0 %"


@pytest.mark.parametrize(
    ("toml", "phrase"),
    [
        ('easy_days = ["sat"]\n', "`easy_days` must be a table of weekdays (mon, tue"),
        ("easy_days = {saturday = 0.5}\n", "`easy_days`: unknown weekday `saturday`"),
        ("easy_days = {sun = 2}\n", "`easy_days`: `sun` must be a share from 0 to 1, got 2"),
        ("easy_days = {sun = true}\n", "`sun` must be a share from 0 to 1, got True"),
        ("load_balancer = 1\n", "`load_balancer` must be true or false"),
        ("load_balance = true\n", "did you mean `load_balancer`?"),
    ],
)
def test_a_bad_easy_days_value_names_the_file_the_key_and_the_fix(
    tmp_path: Path, toml: str, phrase: str
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(toml)
    with pytest.raises(ConfigError) as caught:
        resolve_settings(root=_root(tmp_path), data_dir=data)
    assert str(caught.value).startswith(f"{data / 'config.toml'}:1: ")
    assert phrase in str(caught.value)


def test_a_deck_has_its_own_easy_days_read_from_yaml_and_from_the_cache(tmp_path: Path) -> None:
    root = _root(tmp_path, "easy_days: {sun: 0, wed: 0.5}")
    an_hour_ago = time.time_ns() - 3600 * 10**9  # the cache skips files written just now
    for path in root.rglob("*"):
        os.utime(path, ns=(an_hour_ago, an_hour_ago))
    first = load_library(root, cache_dir=tmp_path / "cache")
    assert list((tmp_path / "cache").glob("library-*.json"))
    again = load_library(root, cache_dir=tmp_path / "cache")  # from the cache file
    assert again.outlines is not None  # the cache's outlines, not a fresh load
    for library in (first, again):
        assert library.deck_outlines()["d"].easy_days == (1.0, 1.0, 0.5, 1.0, 1.0, 1.0, 0.0)
    assert again.decks["d"].easy_days == {"sun": 0, "wed": 0.5}
    assert load_library(_root(tmp_path / "plain")).deck_outlines()["d"].easy_days is None
    assert loads_of(None) == NORMAL_WEEK


@pytest.mark.parametrize(
    ("option", "phrase"),
    [
        ("easy_days: {sunday: 0}", "`easy_days` names `sunday`, which is no weekday; use mon,"),
        ("easy_days: {sun: 1.5}", "`easy_days.sun` in deck `d` must be at most 1.0; got 1.5"),
        ("easy_days: [sun]", "easy_days"),
    ],
)
def test_a_bad_deck_easy_days_is_located(tmp_path: Path, option: str, phrase: str) -> None:
    library = load_library(_root(tmp_path, option))
    (problem,) = library.problems
    assert str(problem).startswith("decks/d.yaml:3:") and phrase in str(problem), str(problem)
    assert "d" not in library.decks


def test_a_decks_easy_days_move_its_reviews_off_those_days(tmp_path: Path) -> None:
    # Answered Easy on Monday 2026-03-02, a new card is due in 8 days (Tuesday); fsrs's fuzz
    # range for 8 is 6..10 days, Sunday to Thursday. The deck closes Tuesday to Thursday.
    root = _root(tmp_path, "easy_days: {tue: 0, wed: 0, thu: 0}", cards=12)
    settings = Settings(root=root, data_dir=tmp_path / "data", enable_fuzzing=True)
    now = datetime(2026, 3, 2, 9, tzinfo=UTC)
    with StudySession.open(settings, clock=lambda: now, tz=UTC) as session:
        due: list[datetime] = []
        for i in range(12):
            card = session.study_card("d", f"c{i}")
            session.answer(card, Rating.Easy, duration_ms=1000)  # straight to review
            state = session.store.get_state(card.key)
            assert state is not None and state.due is not None
            due.append(state.due)
    weekdays = [moment.weekday() for moment in due]
    assert set(weekdays) == {6, 0}  # Sunday and Monday only, and both: evened out
    assert abs(weekdays.count(6) - weekdays.count(0)) <= 1

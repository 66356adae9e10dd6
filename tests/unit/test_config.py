"""Settings: argument > environment > default, and config.toml overrides with clear errors."""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

import pytest

import studykit
from studykit.core.config import (
    ENV_DATA_DIR,
    ENV_ROOT,
    ConfigError,
    Settings,
    bundled_root,
    resolve_settings,
)
from studykit.core.errors import StudykitError


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_ROOT, raising=False)
    monkeypatch.delenv(ENV_DATA_DIR, raising=False)


def make_root(path: Path, folder: str = "decks") -> Path:
    (path / folder).mkdir(parents=True)
    return path


def test_explicit_arguments_and_defaults(tmp_path: Path) -> None:
    root = make_root(tmp_path / "root")
    settings = resolve_settings(root=root, data_dir=tmp_path / "data")

    assert settings == Settings(root=root, data_dir=tmp_path / "data")
    assert settings.database_path == tmp_path / "data" / "studykit.sqlite3"
    assert settings.desired_retention == 0.9
    assert (settings.new_per_day, settings.reviews_per_day) == (20, 200)
    assert settings.learning_steps == (timedelta(minutes=1), timedelta(minutes=10))
    assert settings.relearning_steps == (timedelta(minutes=10),)
    assert (settings.rollover_hour, settings.leech_lapses) == (4, 8)
    assert not (tmp_path / "data").exists()  # resolving creates nothing


def test_environment_is_used_when_no_argument(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_root(tmp_path / "env-root", "content")
    monkeypatch.setenv(ENV_ROOT, str(root))
    monkeypatch.setenv(ENV_DATA_DIR, str(tmp_path / "env-data"))

    settings = resolve_settings()

    assert (settings.root, settings.data_dir) == (root, tmp_path / "env-data")


def test_arguments_beat_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_ROOT, str(make_root(tmp_path / "env-root")))
    monkeypatch.setenv(ENV_DATA_DIR, str(tmp_path / "env-data"))
    root = make_root(tmp_path / "arg-root")

    settings = resolve_settings(root=root, data_dir=tmp_path / "arg-data")

    assert (settings.root, settings.data_dir) == (root, tmp_path / "arg-data")


def test_home_is_expanded_and_empty_env_is_unset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    make_root(tmp_path / "r")
    monkeypatch.setenv(ENV_ROOT, "")
    monkeypatch.setenv(ENV_DATA_DIR, "~/data")

    settings = resolve_settings(root=Path("~/r"))

    assert (settings.root, settings.data_dir) == (tmp_path / "r", tmp_path / "data")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG paths are Linux's")
def test_default_data_dir_follows_platformdirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    settings = resolve_settings(root=make_root(tmp_path / "root"))
    assert settings.data_dir == tmp_path / "xdg" / "studykit"


def test_default_root_is_the_bundled_content(tmp_path: Path) -> None:
    settings = resolve_settings(data_dir=tmp_path)
    assert settings.root == bundled_root()


def test_config_toml_overrides(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        "desired_retention = 0.85\nnew_per_day = 5\nreviews_per_day = 50\n"
        "rollover_hour = 0\nleech_lapses = 3\n",
        encoding="utf-8",
    )

    settings = resolve_settings(root=make_root(tmp_path / "root"), data_dir=tmp_path)

    assert settings.desired_retention == 0.85
    assert (settings.new_per_day, settings.reviews_per_day) == (5, 50)
    assert (settings.rollover_hour, settings.leech_lapses) == (0, 3)
    assert isinstance(settings.new_per_day, int)


@pytest.mark.parametrize(
    ("toml", "phrase"),
    [
        ("desired_retention = 1.5\n", "`desired_retention` must be a number from 0.7 to 0.99"),
        ("desired_retention = 'high'\n", "got 'high'"),
        ("new_per_day = 2.5\n", "`new_per_day` must be a whole number from 0 to 9999"),
        ("new_per_day = true\n", "got True"),
        ("reviews_per_day = -1\n", "`reviews_per_day` must be a whole number"),
        ("rollover_hour = 24\n", "`rollover_hour` must be a whole number from 0 to 23"),
        ("leech_lapses = 0\n", "`leech_lapses` must be a whole number from 1 to 999"),
        ("new_per_dya = 3\n", "unknown key `new_per_dya`; did you mean `new_per_day`?"),
        ("colour = 'red'\n", "unknown key `colour`; known keys: desired_retention"),
        ("new_per_day = \n", "not valid TOML"),
    ],
)
def test_bad_config_names_file_line_and_key(tmp_path: Path, toml: str, phrase: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text("# my settings\nbackups_kept = 3\n" + toml, encoding="utf-8")

    with pytest.raises(ConfigError) as caught:
        resolve_settings(root=make_root(tmp_path / "root"), data_dir=tmp_path)

    if phrase == "not valid TOML":  # TOML's own message gives the line
        assert str(caught.value).startswith(f"{config}: not valid TOML: "), caught.value
        assert "line 3" in str(caught.value)
    else:
        assert str(caught.value).startswith(f"{config}:3: "), caught.value
    assert phrase in str(caught.value)
    assert isinstance(caught.value, StudykitError)


@pytest.mark.parametrize(
    ("toml", "line"),
    [
        ("a = 1\n# rollover_hour = 2\nrollover_hour = 30\n", 3),
        ('a = 1\n"rollover_hour" = 30\n', 2),
        ("a = 1\n  rollover_hour=30\n", 2),
        ("a = 1\n[easy_days]\nsat = 2\n", 2),
        ("a = 1\neasy_days.sat = 2\n", 2),
        ("a = 1\nrollover_hours = 3\nrollover_hour = 30\n", 3),
    ],
)
def test_the_line_named_is_the_one_that_sets_the_key(toml: str, line: int) -> None:
    from studykit.core.configfile import key_line

    key = "easy_days" if "easy_days" in toml else "rollover_hour"
    assert key_line(toml, key) == line


def test_unreadable_config_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_bytes(b"new_per_day = 3 # caf\xe9\n")
    with pytest.raises(ConfigError, match="cannot read the settings file"):
        resolve_settings(root=make_root(tmp_path / "root"), data_dir=tmp_path)


@pytest.mark.parametrize(
    ("setup", "phrase"),
    [
        ("missing", "is not a folder"),
        ("empty", "has neither a content/ nor a decks/ folder"),
    ],
)
def test_bad_root_is_a_config_error(tmp_path: Path, setup: str, phrase: str) -> None:
    root = tmp_path / "root"
    if setup == "empty":
        root.mkdir()
    with pytest.raises(ConfigError, match=phrase):
        resolve_settings(root=root, data_dir=tmp_path)


def test_bad_env_root_names_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_ROOT, str(tmp_path / "nowhere"))
    with pytest.raises(ConfigError, match=f"from {ENV_ROOT}"):
        resolve_settings(data_dir=tmp_path)


def test_data_dir_that_is_a_file_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(ConfigError, match="is a file, not a folder"):
        resolve_settings(root=make_root(tmp_path / "root"), data_dir=tmp_path / "file")


def fake_package(monkeypatch: pytest.MonkeyPatch, base: Path) -> Path:
    package = base / "site" / "studykit"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.setattr(studykit, "__file__", str(package / "__init__.py"))
    return package


def test_bundled_root_prefers_the_wheel_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = fake_package(monkeypatch, tmp_path)
    (package.parent / "content").mkdir()
    (package / "_bundled" / "decks").mkdir(parents=True)
    assert bundled_root() == (package / "_bundled").resolve()


def test_bundled_root_falls_back_to_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = fake_package(monkeypatch, tmp_path)
    (package / "_bundled").mkdir()  # present but empty: not used
    (package.parent / "content").mkdir()
    assert bundled_root() == package.parent.resolve()


def test_no_bundled_content_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_package(monkeypatch, tmp_path)
    with pytest.raises(ConfigError, match="no bundled content found"):
        bundled_root()


def test_repo_checkout_is_the_bundled_root() -> None:
    repo = Path(studykit.__file__).resolve().parent.parent
    if not (repo / "content").is_dir() and not (repo / "decks").is_dir():
        pytest.skip("not running from a source checkout")
    if (repo / "studykit" / "_bundled").is_dir():
        pytest.skip("a _bundled folder sits in the checkout")
    assert bundled_root() == repo


def test_quiz_counts_is_a_switch(tmp_path: Path) -> None:
    from studykit.core.config import ConfigError, resolve_settings

    root = tmp_path / "root"
    (root / "decks").mkdir(parents=True)
    data = tmp_path / "data"
    data.mkdir()
    assert resolve_settings(root=root, data_dir=data).quiz_counts is False
    (data / "config.toml").write_text("quiz_counts = true\n")
    assert resolve_settings(root=root, data_dir=data).quiz_counts is True
    (data / "config.toml").write_text("quiz_counts = 1\n")
    with pytest.raises(ConfigError, match="`quiz_counts` must be true or false"):
        resolve_settings(root=root, data_dir=data)
    (data / "config.toml").write_text("quiz_count = true\n")
    with pytest.raises(ConfigError, match="did you mean `quiz_counts`"):
        resolve_settings(root=root, data_dir=data)

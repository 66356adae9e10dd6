"""describe_error: the one wording of an error for a user, in the app and on the command line."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from studykit.core.errors import ConfigError, describe_error


def test_a_database_error_says_the_study_database_failed(tmp_path: Path) -> None:
    path = tmp_path / "study.db"
    path.write_bytes(b"not a database, just bytes " * 100)
    with closing(sqlite3.connect(path)) as connection, pytest.raises(sqlite3.Error) as caught:
        connection.execute("SELECT * FROM sqlite_master")
    assert describe_error(caught.value) == "The study database failed: file is not a database"


def test_a_file_error_names_the_reason_and_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    with pytest.raises(OSError) as caught:
        missing.read_text()
    assert describe_error(caught.value) == f"No such file or directory: {missing}"
    assert describe_error(OSError("the disk went away")) == "the disk went away"


def test_our_errors_are_their_message_and_anything_else_is_unexpected() -> None:
    assert describe_error(ConfigError("no folder /x; make it")) == "no folder /x; make it"
    assert describe_error(ConfigError()) == "ConfigError"  # never an empty line
    assert describe_error(KeyError("k")) == "Unexpected error (KeyError): 'k'"

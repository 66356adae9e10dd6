"""Fixtures for the sync tests: a real sync server, a phone, a student (all in tmp_path)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from studykit.core.config import Settings
from tests.sync.helpers import Phone, Student, SyncServer, running_server, write_root


@pytest.fixture
def server(tmp_path: Path) -> Iterator[SyncServer]:
    """Anki's sync server on a free port of 127.0.0.1, stopped at the end."""
    with running_server(tmp_path / "server") as started:
        yield started


@pytest.fixture
def student(tmp_path: Path, server: SyncServer) -> Iterator[Student]:
    """A studykit data dir logged in to the server, with the test deck on disk."""
    root = tmp_path / "root"
    write_root(root)
    settings = Settings(root=root, data_dir=tmp_path / "data", enable_fuzzing=False)
    found = Student(settings, server)
    found.login()
    yield found
    found.close()


@pytest.fixture
def phone(tmp_path: Path, server: SyncServer) -> Iterator[Phone]:
    """A second Anki collection on the same account (not synced yet)."""
    found = Phone(tmp_path / "phone", server)
    yield found
    found.close()

"""The one reader of user files: regular files only, size-capped, never blocking."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from studykit.core.files import FileRefused, FileTooLarge, read_regular


def _pretend_stat(monkeypatch: pytest.MonkeyPatch, target: Path, size: int) -> None:
    """Make os.stat report `target` as a regular file of `size` bytes (others unchanged)."""
    real = os.stat
    seen = os.stat_result((0o100644, 0, 0, 1, 0, 0, size, 0, 0, 0))

    def fake(path: object, *args: object, **kwargs: object) -> os.stat_result:
        return seen if Path(str(path)) == target else real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", fake)  # the module studykit.core.files calls


def test_reads_a_regular_file(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_bytes(b"id: a\n")
    assert read_regular(path) == b"id: a\n"


def test_refuses_a_folder_and_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileRefused, match="this is a folder, not a regular file"):
        read_regular(tmp_path)
    with pytest.raises(FileRefused, match="cannot read the file: No such file"):
        read_regular(tmp_path / "nope.yaml")


def test_refuses_a_device() -> None:
    with pytest.raises(FileRefused, match="this is a device"):
        read_regular(Path("/dev/zero"))


def test_over_the_limit_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"x" * 2048)
    with pytest.raises(FileTooLarge, match="over the"):
        read_regular(path, limit=1024)
    assert read_regular(path, limit=2048) == b"x" * 2048


def test_a_file_that_grew_after_the_stat_is_still_capped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "growing.yaml"
    path.write_bytes(b"x" * 4096)
    _pretend_stat(monkeypatch, path, 10)  # the stat saw 10 bytes
    with pytest.raises(FileTooLarge):
        read_regular(path, limit=1024)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_fifo_swapped_in_after_the_stat_does_not_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fifo = tmp_path / "x.yaml"
    os.mkfifo(fifo)
    _pretend_stat(monkeypatch, fifo, 10)  # it looked like a regular file
    outcome: list[BaseException | bytes] = []

    def attempt() -> None:
        try:
            outcome.append(read_regular(fifo))
        except BaseException as error:
            outcome.append(error)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=5)
    if worker.is_alive():  # blocked in open(): release it, then fail
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(timeout=5)
        pytest.fail("reading a FIFO blocked")
    [error] = outcome
    assert isinstance(error, FileRefused)
    assert "named pipe" in str(error)

"""The stored login: the key only, readable by its owner, and a new endpoint kept."""

from __future__ import annotations

import stat
from pathlib import Path

from studykit.sync.account import SyncKey, SyncPaths, keep_new_endpoint, read_key, write_key


def test_a_new_endpoint_the_server_names_is_stored(tmp_path: Path) -> None:
    paths = SyncPaths.in_data_dir(tmp_path)
    key = SyncKey(username="me@example.org", endpoint=None, hkey="abc")
    write_key(paths, key)
    assert keep_new_endpoint(paths, key, "") is key  # nothing named: nothing written
    moved = keep_new_endpoint(paths, key, "https://sync3.ankiweb.net/")
    assert moved.endpoint == "https://sync3.ankiweb.net/" and moved.hkey == "abc"
    assert read_key(paths) == moved
    assert stat.S_IMODE(paths.key.stat().st_mode) == 0o600
    assert keep_new_endpoint(paths, moved, "https://sync3.ankiweb.net/") is moved

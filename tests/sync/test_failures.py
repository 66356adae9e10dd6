"""A server that is down, a wrong password, and the command line's one-line errors."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from studykit.sync.errors import SyncFailed
from tests.sync.helpers import PASSWORD, USER, Phone, Student, SyncServer


def studykit(
    student: Student, *args: str, password: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "STUDYKIT_SYNC_PASSWORD"}
    if password is not None:
        env["STUDYKIT_SYNC_PASSWORD"] = password
    settings = student.settings
    command = [sys.executable, "-m", "studykit", "--data-dir", str(settings.data_dir)]
    command += ["--root", str(settings.root), *args]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )


def test_a_server_that_is_down_loses_nothing_and_a_retry_works(
    student: Student, phone: Phone, server: SyncServer
) -> None:
    student.sync()
    student.answer("one", 3)
    server.stop()
    with pytest.raises(SyncFailed, match=r"cannot reach the sync server .*nothing was lost"):
        student.sync()
    assert [a.rating for a in student.history("one")] == [3]
    failed = studykit(student, "sync")
    assert failed.returncode == 1
    (line,) = failed.stderr.strip().splitlines()
    assert line.startswith("studykit: error: cannot reach the sync server")
    # Anki wraps values in invisible bidi isolates; escaped, they showed as \u2068…\u2069.
    assert "\\u20" not in line and not any("\u2066" <= c <= "\u2069" for c in line), line
    server.start()  # the same port and base dir: the server is back
    report = student.sync()
    assert report.answers_out == 1
    phone.sync()
    assert [row[1] for row in phone.revlog("one")] == [3]
    assert student.sync().answers_out == 0


def test_a_wrong_password_is_refused_and_nothing_is_kept(
    student: Student, server: SyncServer
) -> None:
    student.paths.key.unlink()
    wrong = studykit(
        student, "sync", "login", "--endpoint", server.url, "--username", USER, password="nope"
    )
    assert wrong.returncode == 2
    (line,) = wrong.stderr.strip().splitlines()
    assert line.startswith("studykit: error: ") and "refused the login" in line
    assert "\\u20" not in line, line  # no escaped bidi isolates from Anki's message
    assert not student.paths.key.exists()
    right = studykit(
        student, "sync", "login", "--endpoint", server.url, "--username", USER, password=PASSWORD
    )
    assert right.returncode == 0, right.stderr
    key = student.paths.key
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    stored = json.loads(key.read_text())
    assert stored["endpoint"] == server.url and stored["username"] == USER and stored["hkey"]
    assert PASSWORD not in key.read_text()
    status = studykit(student, "sync", "status", "--json")
    assert json.loads(status.stdout)["account"] == f"{USER}@{server.url}"
    out = studykit(student, "sync", "logout")
    assert out.returncode == 0 and not key.exists()
    refused = studykit(student, "sync")
    assert refused.returncode == 2 and "not logged in" in refused.stderr


def test_sync_json_is_one_document(student: Student) -> None:
    student.answer("one", 3)
    done = studykit(student, "sync", "--json", "--yes")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["answers_out"] == 1 and report["full"] == "upload"


def test_a_bad_endpoint_is_bad_input(student: Student, tmp_path: Path) -> None:
    done = studykit(
        student, "sync", "login", "--endpoint", "ftp://x", "--username", USER, password="x"
    )
    assert done.returncode == 2 and "not an http" in done.stderr


def test_one_sync_at_a_time(student: Student) -> None:
    from studykit.srs.lock import holding

    student.paths.folder.mkdir(parents=True, exist_ok=True)
    with holding(student.paths.lock) as held:
        assert held
        with pytest.raises(SyncFailed, match="another sync of this data dir is running"):
            student.sync()
    assert student.sync().full == "upload"  # once the other one is done

"""A sync killed (SIGKILL) in the middle, then a new sync: nothing lost, nothing doubled."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from tests.sync.helpers import Phone, Student

# The child is a real `run_sync` in its own process; its progress callback stops it at one
# step (printing where), and the test kills it there with SIGKILL.
CHILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from datetime import UTC
    from studykit.content.loading import load_library
    from studykit.core.config import Settings
    from studykit.srs.store import Store
    from studykit.study.session import StudySession
    from studykit.sync.account import SyncPaths
    from studykit.sync.run import SyncOptions, run_sync

    root, data, stop_at = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    settings = Settings(root=root, data_dir=data, enable_fuzzing=False)
    session = StudySession(
        load_library(root), Store.open(settings.database_path), settings, tz=UTC,
        enable_fuzzing=False,
    )

    def progress(text):
        if text.startswith(stop_at):
            print("STOPPED", text, flush=True)
            time.sleep(600)

    run_sync(session, SyncPaths.in_data_dir(data), SyncOptions(yes=True, progress=progress))
    print("FINISHED", flush=True)
    """
)


@pytest.mark.parametrize("stop_at", ["Taking in", "Bringing content", "Writing", "Recording"])
def test_a_sync_killed_midway_loses_and_doubles_nothing(
    student: Student, phone: Phone, stop_at: str
) -> None:
    student.sync()
    phone.sync()
    phone.answer("one", 2)
    phone.sync()
    student.answer("two", 3)
    settings = student.settings
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(settings.root), str(settings.data_dir), stop_at],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.startswith("STOPPED"), (line, child.stderr.read() if child.stderr else "")
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    student.sync()
    student.sync()
    assert [(a.rating, a.source) for a in student.history("one")] == [(2, "anki")]
    assert [(a.rating, a.source) for a in student.history("two")] == [(3, None)]
    phone.sync()
    assert [row[1] for row in phone.revlog("two")] == [3]
    assert [row[1] for row in phone.revlog("one")] == [2]

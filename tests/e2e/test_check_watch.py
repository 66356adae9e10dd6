"""`studykit check --watch` as an author runs it: save a mistake, see it; fix it, see it pass."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest
from click.testing import CliRunner

from studykit.checking.findings import Problem, Report
from studykit.checking.watch import MAX_SHOWN, STEP_MS, is_watched, watch_check
from studykit.cli import cli
from tests.unit.test_check_definitions import write_root

REPO = Path(__file__).resolve().parents[2]
DECK = Path("decks") / "ai-ml" / "rnn-limitations.yaml"
SMALL_DECK = Path("decks") / "demo.yaml"
STARTUP_S = 30.0
REACT_S = 10.0

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX")


class Child:
    """A `studykit check --watch` child whose stdout lines are read as they come."""

    def __init__(self, root: Path, tmp_path: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYKIT_")}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
        env["PYTHONUNBUFFERED"] = "1"
        env["STUDYKIT_DATA_DIR"] = str(tmp_path / "data")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "studykit", "check", "--watch", "."],
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.errors: list[str] = []
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._pump(self.proc.stdout, self.lines.put)
        self._pump(self.proc.stderr, self.errors.append)

    @staticmethod
    def _pump(stream: IO[str], put: Callable[[str], None]) -> None:
        def run() -> None:
            for line in stream:
                put(line.rstrip("\n"))

        threading.Thread(target=run, daemon=True).start()

    def until(self, wanted: Callable[[str], bool], timeout: float) -> list[str]:
        """The lines read up to and including the first one `wanted` accepts."""
        deadline = time.monotonic() + timeout
        taken: list[str] = []
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(
                    f"no such line within {timeout}s; got {self.seen + taken!r}, "
                    f"stderr {self.errors!r}"
                ) from None
            taken.append(line)
            if wanted(line):
                self.seen += taken
                return taken

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout=REACT_S)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def is_summary(line: str) -> bool:
    return " claims, " in line and " cards checked, " in line


def test_watch_reports_a_saved_mistake_then_its_fix_then_stops_on_ctrl_c(tmp_path: Path) -> None:
    # A small clean root: each report is a whole check, and the bundled content's costs
    # 4 s of CPU a time (the watching is what is tested here, not the content).
    root = write_root(tmp_path / "root")
    deck = root / SMALL_DECK
    original = deck.read_text(encoding="utf-8")
    lines = original.splitlines(keepends=True)
    where = next(i for i, line in enumerate(lines) if line.startswith("    back:"))
    planted = "".join(
        [*lines[:where], lines[where].replace("back:", "bakc:", 1), *lines[where + 1 :]]
    )

    extra_reports = 0
    child = Child(root, tmp_path)
    try:
        first = child.until(lambda line: line.startswith("watching "), STARTUP_S)
        assert any(is_summary(line) and line.endswith(" 0 problems") for line in first), first

        # Files that are not content do not trigger a check: a note to self, an editor swap file.
        (root / "decks" / "notes.txt").write_text("todo\n", encoding="utf-8")
        (root / "decks" / ".demo.yaml.swp").write_text("x", encoding="utf-8")
        time.sleep(0.5)
        # A burst of saves (a half-written file, then the whole one) gives one report.
        began = time.monotonic()
        deck.write_text(planted[: len(planted) // 2], encoding="utf-8")
        time.sleep(STEP_MS / 4000)  # an editor's two writes, well within the quiet window
        deck.write_text(planted, encoding="utf-8")
        burst_s = time.monotonic() - began
        wanted = f"{SMALL_DECK.as_posix()}:{where + 1}:5: unknown field `bakc`"
        broken = child.until(is_summary, REACT_S)
        assert broken[0].endswith(f"changed: {SMALL_DECK.as_posix()} ---"), broken
        if burst_s >= STEP_MS / 1000:
            # This process stalled inside its own burst for longer than the watcher's quiet
            # window (a starved CI machine), so the watcher rightly saw two saves: a report of
            # the half-way file may come first, and the whole file's must follow it.
            while wanted not in "\n".join(broken):
                extra_reports += 1
                broken = child.until(is_summary, REACT_S)
        assert wanted in "\n".join(broken), (burst_s, broken)
        assert broken[-1].endswith(" 1 problem")

        deck.write_text(original, encoding="utf-8")
        fixed = child.until(is_summary, REACT_S)
        assert fixed[0].endswith(f"changed: {SMALL_DECK.as_posix()} ---")
        assert fixed[-1].endswith(" 0 problems"), fixed
    finally:
        code = child.stop()
    child.until(lambda line: line == "stopped watching", REACT_S)
    assert code == 0
    assert child.errors == []
    assert "Traceback" not in "\n".join(child.seen)
    assert sum(line.startswith("--- ") for line in child.seen) == 3 + extra_reports, child.seen


def test_watch_refuses_json_and_bad_paths(tmp_path: Path) -> None:
    runner = CliRunner()
    with_json = runner.invoke(cli, ["check", "--watch", "--json"])
    assert with_json.exit_code == 2
    assert with_json.output.startswith("studykit: error: --watch")
    missing = runner.invoke(cli, ["check", "--watch", str(tmp_path / "nowhere")])
    assert missing.exit_code == 2
    assert "no such file or folder" in missing.output


@pytest.mark.parametrize(
    ("path", "watched"),
    [
        ("decks/a.yaml", True),
        ("content/x/b.yml", True),
        ("decks/notes.txt", False),
        ("decks/.a.yaml.swp", False),
        ("decks/.#a.yaml", False),
        ("decks/a.yaml~", False),
        ("decks/#a.yaml#", False),
    ],
)
def test_only_visible_yaml_files_are_watched(path: str, watched: bool) -> None:
    assert is_watched(path) is watched


def test_a_long_report_is_cut_to_a_bounded_number_of_lines() -> None:
    problem = Problem("decks/x.yaml", 3, 5, "load", None, "bad")
    report = Report(problems=[problem] * (MAX_SHOWN + 7))
    lines = report.text_lines(limit=MAX_SHOWN)
    assert len(lines) == MAX_SHOWN + 3
    assert lines[MAX_SHOWN].startswith("… and 7 more")
    assert lines[-2:] == [report.numbers_line(), report.summary()]


GOOD = "id: solo\nname: Solo\ncards:\n  - id: a\n    front: Q?\n    back: A.\n"


def test_a_folder_removed_and_made_again_is_watched_again(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "content").mkdir(parents=True)
    (root / "decks").mkdir()
    (root / "decks" / "solo.yaml").write_text(GOOD, encoding="utf-8")
    lines: queue.Queue[str] = queue.Queue()
    seen: list[str] = []
    stop = threading.Event()

    def until(wanted: Callable[[str], bool]) -> list[str]:
        taken: list[str] = []
        deadline = time.monotonic() + REACT_S
        while not taken or not wanted(taken[-1]):
            try:
                taken.append(lines.get(timeout=max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                raise AssertionError(f"no such line; got {seen + taken!r}") from None
        seen.extend(taken)
        return taken

    worker = threading.Thread(
        target=watch_check,
        args=([root], root),
        daemon=True,
        kwargs={"run_experiments": False, "echo": lines.put, "stop": stop},
    )
    worker.start()
    try:
        until(lambda line: line.startswith("watching "))
        shutil.rmtree(root / "decks")
        (root / "decks").mkdir()
        (root / "decks" / "solo.yaml").write_text(GOOD.replace("back:", "bakc:"), encoding="utf-8")
        until(lambda line: "folders changed" in line)
        report = until(is_summary)
        assert "solo.yaml:6:5: unknown field `bakc`" in "\n".join(report), report
        # The new folder is watched: a save in it is seen.
        (root / "decks" / "solo.yaml").write_text(GOOD, encoding="utf-8")
        fixed = until(is_summary)
        assert "changed: " in fixed[0] and fixed[-1].endswith(" 0 problems"), fixed
    finally:
        stop.set()
        worker.join(timeout=REACT_S)
    assert not worker.is_alive()
    assert until(lambda line: line == "stopped watching")

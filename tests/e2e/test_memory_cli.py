"""`optimize`, `simulate` and `workload` on histories a synthetic learner made."""

from __future__ import annotations

import importlib.util
import json
import os
import pty
import re
import shutil
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from studykit.core.config import Settings
from studykit.memory.simulate import simulate

START = datetime(2026, 1, 5, 9, tzinfo=UTC)
needs_optimizer = pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("torch", "numpy")),
    reason="the torch extra (torch, numpy) is not installed",
)


def write_root(root: Path, cards: int) -> Path:
    """A content root with one deck of `cards` basic cards."""
    (root / "decks").mkdir(parents=True)
    (root / "content").mkdir()
    lines = ["id: sim", 'name: "Sim::Deck"', "cards:"]
    for i in range(cards):
        lines += [f"  - id: c{i}", f"    front: Question {i}?", f"    back: Answer {i}."]
    (root / "decks" / "sim.yaml").write_text("\n".join(lines) + "\n")
    return root


def run(*args: str, root: Path, data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYKIT_")}
    return subprocess.run(
        [sys.executable, "-m", "studykit", "--root", str(root), "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


def review_log(data_dir: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(data_dir / "studykit.sqlite3") as conn:
        return conn.execute(
            "SELECT card_id, rating, reviewed_at_us, duration_ms FROM review_log ORDER BY id"
        ).fetchall()


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(root, data dir): 12 cards studied for 20 days, far too few reviews to fit."""
    base = tmp_path_factory.mktemp("small")
    root = write_root(base / "root", 12)
    simulate(Settings(root=root, data_dir=base / "data"), days=20, seed=1, start=START)
    return root, base / "data"


@pytest.fixture(scope="module")
def studied(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(root, data dir): 120 cards studied for 70 days by the default (fast-forgetting) learner."""
    base = tmp_path_factory.mktemp("studied")
    root = write_root(base / "root", 120)
    simulate(Settings(root=root, data_dir=base / "data"), days=70, seed=7, start=START)
    return root, base / "data"


def test_simulate_is_deterministic_per_seed(small: tuple[Path, Path], tmp_path: Path) -> None:
    root, first = small
    again, other = tmp_path / "again", tmp_path / "other"
    simulate(Settings(root=root, data_dir=again), days=20, seed=1, start=START)
    simulate(Settings(root=root, data_dir=other), days=20, seed=2, start=START)
    assert len(review_log(first)) > 12
    assert review_log(again) == review_log(first)
    assert review_log(other) != review_log(first)


def test_simulate_refuses_a_data_dir_that_holds_reviews(small: tuple[Path, Path]) -> None:
    root, data = small
    before = review_log(data)
    result = run("simulate", "--days", "3", root=root, data_dir=data)
    assert result.returncode == 2
    assert "already holds reviews" in result.stderr and "Traceback" not in result.stderr
    assert review_log(data) == before


def test_simulate_cli_writes_a_history_and_checks_the_learner_file(tmp_path: Path) -> None:
    root = write_root(tmp_path / "root", 5)
    bad = tmp_path / "learner.yaml"
    bad.write_text("easy: 3\n")
    refused = run("simulate", "--learner", str(bad), root=root, data_dir=tmp_path / "d")
    assert refused.returncode == 2 and "`easy`" in refused.stderr
    result = run("simulate", "--days", "5", "--json", root=root, data_dir=tmp_path / "d")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no progress bar when piped
    document = json.loads(result.stdout)
    assert document["cards"] == 5 and document["answers"] == len(review_log(tmp_path / "d"))
    end = datetime.fromisoformat(document["end"])
    assert timedelta(0) <= datetime.now(UTC) - end < timedelta(days=1)  # ends by now


@needs_optimizer
def test_optimize_with_too_few_reviews_says_how_many(small: tuple[Path, Path]) -> None:
    root, data = small
    result = run("optimize", root=root, data_dir=data)
    assert result.returncode == 1
    line = result.stderr.strip().splitlines()[-1]
    assert "needs 640" in line and line.startswith("studykit: error: ")
    have = int(line.removeprefix("studykit: error: ").split()[0])
    assert 0 < have < 640


def test_reschedule_needs_apply(small: tuple[Path, Path]) -> None:
    root, data = small
    result = run("optimize", "--reschedule", root=root, data_dir=data)
    assert result.returncode == 2 and "--apply" in result.stderr


@needs_optimizer
def test_optimize_apply_reschedule(studied: tuple[Path, Path], tmp_path: Path) -> None:
    from studykit.study.session import StudySession

    root, source = studied
    data = tmp_path / "data"
    shutil.copytree(source, data)
    settings = Settings(root=root, data_dir=data, enable_fuzzing=False)
    clock_at = START + timedelta(days=70)

    def snapshot() -> tuple[dict[str, object], dict[str, object]]:
        with StudySession.open(settings, clock=lambda: clock_at, tz=UTC) as session:
            cards = [session.study_card("sim", f"c{i}") for i in range(120)]
            reviewed = [c for c in cards if c.state == "review"]
            intervals = {c.card.id: session.intervals(c) for c in reviewed}
        with sqlite3.connect(data / "studykit.sqlite3") as conn:
            states = dict(conn.execute("SELECT card_id, due_us FROM card_state").fetchall())
        return intervals, states

    intervals_before, due_before = snapshot()
    history_before = review_log(data)
    result = run("optimize", "--json", "--apply", "--reschedule", root=root, data_dir=data)
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    for key in ("parameters", "log_loss_before", "log_loss_after", "rmse_before", "rmse_after"):
        assert key in doc
    assert len(doc["parameters"]) == 21
    assert doc["reviews"] == len(history_before) and doc["cards"] == 120
    # Held-out reviews: the fitted parameters predict the fast-forgetting learner better.
    assert doc["log_loss_after"] < doc["log_loss_before"]
    assert doc["applied"] is True and doc["rescheduled"] > 0
    intervals_after, due_after = snapshot()
    assert intervals_after != intervals_before  # the next answer uses the new parameters
    moved = [k for k in due_before if due_after[k] != due_before[k]]
    assert len(moved) > len(due_before) // 2
    assert review_log(data) == history_before  # history kept


@needs_optimizer
def test_optimize_progress_moves_on_a_terminal_and_is_silent_when_piped(
    studied: tuple[Path, Path],
) -> None:
    root, data = studied
    for flags in ((), ("--json",)):
        piped = run("optimize", *flags, root=root, data_dir=data)
        assert piped.returncode == 0 and piped.stderr == "", piped.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYKIT_")}
    leader, follower = pty.openpty()
    command = [sys.executable, "-m", "studykit", "--root", str(root), "--data-dir", str(data)]
    with subprocess.Popen(
        [*command, "optimize"], stdout=subprocess.PIPE, stderr=follower, env=env
    ) as child:
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closes with the child
                break
            if not chunk:
                break
            shown += chunk
        assert child.wait(timeout=300) == 0
    os.close(leader)
    steps = {int(p) for p in re.findall(rb"(\d+)%", shown)}
    assert b"Fitting" in shown and len(steps - {0, 100}) >= 4, shown[-400:]


@needs_optimizer
def test_workload_rows_and_recommendation(studied: tuple[Path, Path]) -> None:
    root, data = studied
    result = run("workload", "--json", "--days", "90", root=root, data_dir=data)
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    rows = doc["rows"]
    assert len(rows) == 28 and rows[0]["retention"] == 0.7 and rows[-1]["retention"] == 0.97
    assert rows[-1]["reviews_per_day"] > rows[0]["reviews_per_day"]
    assert 0.7 <= doc["recommended"] <= 0.97
    assert all(0 < r["remembered"] <= 120 for r in rows)
    text = run("workload", "--days", "30", root=root, data_dir=data)
    assert "Recommended desired retention" in text.stdout and "█" in text.stdout
    assert doc["current"] == 0.9
    (mine,) = [line for line in text.stdout.splitlines() if line.startswith("0.90 █")]
    assert mine.endswith("yours")


def test_without_torch_the_commands_name_the_extra(small: tuple[Path, Path]) -> None:
    root, data = small
    code = (
        "import sys; sys.modules['torch'] = None; sys.modules['numpy'] = None\n"
        "from studykit.cli import main\n"
        f"main(['--root', {str(root)!r}, '--data-dir', {str(data)!r}, sys.argv[1]])"
    )
    for command in ("optimize", "workload"):
        result = subprocess.run(
            [sys.executable, "-c", code, command], capture_output=True, text=True, check=False
        )
        assert result.returncode == 2, result.stderr
        assert "studykit[torch]" in result.stderr and "Traceback" not in result.stderr

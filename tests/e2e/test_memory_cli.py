"""`optimize`, `simulate` and `workload` on histories a synthetic learner made."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from studykit.core.config import Settings
from studykit.memory.simulate import simulate

START = datetime(2026, 1, 5, 9, tzinfo=UTC)
needs_optimizer = pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("fsrs_rs_python", "numpy")),
    reason="fsrs-rs-python (the memory extra) or numpy (the torch extra) is not installed",
)
# Runs studykit's CLI as if some modules were not installed (argv: modules, then arguments).
WITHOUT = (
    "import sys\n"
    "for name in sys.argv[1].split(','): sys.modules[name] = None\n"
    "from studykit.cli import main\n"
    "main(sys.argv[2:])"
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

    def snapshot() -> tuple[dict[str, Any], dict[str, Any]]:
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
def test_optimize_prints_nothing_on_stderr(studied: tuple[Path, Path]) -> None:
    root, data = studied
    for flags in ((), ("--json",)):
        piped = run("optimize", *flags, root=root, data_dir=data)
        assert piped.returncode == 0 and piped.stderr == "", piped.stderr


def _fitted_copy(studied: tuple[Path, Path], tmp_path: Path) -> Path:
    """A copy of the studied data dir with its own model applied."""
    root, source = studied
    data = tmp_path / "data"
    shutil.copytree(source, data)
    assert run("optimize", "--apply", root=root, data_dir=data).returncode == 0
    return data


@needs_optimizer
def test_workload_recommends_only_with_the_students_own_model(
    studied: tuple[Path, Path], small: tuple[Path, Path], tmp_path: Path
) -> None:
    from studykit.study.session import StudySession

    root, plain = studied
    # A stored model from too few reviews of one's own gives no advice either.
    few = tmp_path / "few"
    shutil.copytree(small[1], few)
    with StudySession.open(Settings(root=small[0], data_dir=few)) as session:
        session.set_memory_model(None, list(session.fsrs_parameters("sim")), reviews=700, cards=12)
    # A week's simulation is enough to show the advice (the table is not what is asserted).
    cases = ((small[1], "more to go"), (few, "more to go"), (plain, "studykit optimize --apply"))
    for data, advice in cases:
        result = run("workload", "--json", "--days", "7", root=small[0], data_dir=data)
        doc = json.loads(result.stdout)
        assert doc["recommended"] is None and advice in doc["advice"]
        text = run("workload", "--days", "7", root=small[0], data_dir=data).stdout
        assert "◀ recommended" not in text and "Recommended desired" not in text
        assert advice in text
    data = _fitted_copy(studied, tmp_path)
    result = run("workload", "--json", "--days", "45", root=root, data_dir=data)
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    rows = doc["rows"]
    assert rows[0]["retention"] == 0.7 and rows[-1]["retention"] == 0.97
    assert rows[-1]["reviews_per_day"] > rows[0]["reviews_per_day"]
    assert 0.7 <= doc["recommended"] <= 0.95 and doc["advice"] is None
    assert doc["parameters"].startswith("fitted on")
    assert all(0 < r["remembered"] <= 120 for r in rows)
    shown = run("workload", "--days", "30", root=root, data_dir=data)
    assert f"Recommended desired retention: {doc['recommended']:.2f}" in shown.stdout
    assert doc["current"] == 0.9
    (mine,) = [line for line in shown.stdout.splitlines() if line.startswith("0.90 █")]
    assert mine.endswith("yours")
    (best,) = [line for line in shown.stdout.splitlines() if "◀ recommended" in line]
    assert best.startswith(f"{doc['recommended']:.2f} █")


def test_without_numpy_workload_names_the_extra(small: tuple[Path, Path]) -> None:
    root, data = small
    args = ["--root", str(root), "--data-dir", str(data), "workload"]
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT, "numpy", *args], capture_output=True, text=True
    )
    assert result.returncode == 2, result.stderr
    assert "studykit[torch]" in result.stderr and "Traceback" not in result.stderr


@needs_optimizer
def test_without_fsrs_rs_optimize_says_how_to_install_it_and_the_rest_runs(
    studied: tuple[Path, Path], tmp_path: Path
) -> None:
    root, _ = studied
    data = _fitted_copy(studied, tmp_path)

    def without_engine(*args: str) -> subprocess.CompletedProcess[str]:
        where = ["--root", str(root), "--data-dir", str(data)]
        return subprocess.run(
            [sys.executable, "-c", WITHOUT, "fsrs_rs_python", *where, *args],
            capture_output=True,
            text=True,
        )

    refused = without_engine("optimize")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "pip install 'studykit[memory]'" in refused.stderr.splitlines()[-1]
    workload = without_engine("workload", "--days", "30")
    assert workload.returncode == 0, workload.stderr
    assert "fsrs-rs-python" in workload.stdout and "studykit[memory]" in workload.stdout
    assert "◀ recommended" not in workload.stdout
    assert without_engine("decks").returncode == 0
    panel = (
        "import sys\n"
        "sys.modules['fsrs_rs_python'] = None\n"
        "from studykit.core.config import Settings\n"
        "from studykit.memory.panel import memory_panel_lines\n"
        "from studykit.study.session import StudySession\n"
        "from pathlib import Path\n"
        "settings = Settings(root=Path(sys.argv[1]), data_dir=Path(sys.argv[2]))\n"
        "with StudySession.open(settings) as session:\n"
        "    print('\\n'.join(memory_panel_lines(session)))\n"
    )
    stats = subprocess.run(
        [sys.executable, "-c", panel, str(root), str(data)], capture_output=True, text=True
    )
    assert stats.returncode == 0, stats.stderr
    assert "fitted on" in stats.stdout and "pip install 'studykit[memory]'" in stats.stdout
    assert "◀ recommended" not in stats.stdout and "◀ yours" in stats.stdout

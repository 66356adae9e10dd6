"""The pytest plugin: the bundled content as pytest items, and planted mistakes failing there.

Each test runs a real pytest in a child process (pytester), as an author's repository does.
Nothing is imported for the first time inside a pytester test: its fixture puts sys.modules
back afterwards, and the tests after it would get a second yaml or sympy beside the first.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections import Counter
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from studykit.checking import run_check
from studykit.checking.findings import Report
from studykit.experiments.installed import torch_installed
from tests.conftest import seed_records

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
NOTE = "content/ai-ml/rnn-limitations.yaml"
DECK = "decks/ai-ml/rnn-limitations.yaml"
COMPUTED = "decks/ai-ml/rnn-limitations-computed.yaml"
# The entry point pytest loads once studykit is installed (`-p no:studykit` turns it off).
ENTRY_POINTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
    "entry-points"
]
MODULE = ENTRY_POINTS["pytest11"]["studykit"]
# Installed, the entry point loads the plugin; from a checkout, `-p` does.
INSTALLED = any(ep.value == MODULE for ep in entry_points(group="pytest11"))
# The suite's other plugins only slow an inner run's start (content needs none of them).
OTHERS = ("cacheprovider", "hypothesispytest", "textual-snapshot", "syrupy", "anyio", "asyncio")
ARGS = [
    *([] if INSTALLED else ["-p", MODULE]),
    *(arg for name in OTHERS for arg in ("-p", f"no:{name}")),
    "-v",
]
VERDICT = re.compile(r"^(\S+::\S+) (PASSED|FAILED|SKIPPED|ERROR)\b")


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, str]]:
    """An inner pytest's result and each item's verdict by node id."""
    result = pytester.runpytest_subprocess(*ARGS, *args, timeout=300)
    verdicts = {m[1]: m[2] for line in result.outlines if (m := VERDICT.match(line))}
    # pytest -v names an item relative to the working folder: from content/ or decks/ on.
    return result, {
        re.sub(r"^(\.\./)+.*?/(?=(content|decks)/)", "", k): v for k, v in verdicts.items()
    }


def plant(root: Path, rel: str, written: str, planted: str) -> int:
    """Replace the one `written` in `rel` with `planted`; the 1-based line it is on."""
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert text.count(written) == 1, written
    path.write_text(text.replace(written, planted), encoding="utf-8")
    return text[: text.index(written)].count("\n") + 1


@pytest.fixture
def recorded(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, bundled_records: Path | None
) -> None:
    """The inner runs' data dir holds the suite's recorded runs of the bundled content (pytest
    gives them a HOME of their own, so they would otherwise make every run again)."""
    monkeypatch.setenv(
        "STUDYKIT_DATA_DIR", str(seed_records(bundled_records, pytester.path / "data"))
    )


@pytest.mark.usefixtures("recorded")
def test_the_bundled_content_passes_as_pytest_items(pytester: pytest.Pytester) -> None:
    """The project's own check of its bundled content runs through the plugin."""
    # An empty ini of its own: the project's (asyncio settings, `-ra`) is not this run's.
    ini = pytester.makefile(".ini", pytest="[pytest]\n")
    folders = (str(ROOT / "content"), str(ROOT / "decks"))
    result, verdicts = run(pytester, "-c", str(ini), "--rootdir", str(ROOT), *folders)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
    assert "FAILED" not in verdicts.values()
    assert verdicts[f"{NOTE}::claim:parallel-positions"] == "PASSED"
    assert verdicts[f"{COMPUTED}::card:effective-context-k-star"] == "PASSED"
    kinds = Counter(nodeid.split("::")[1].split(":")[0] for nodeid in verdicts)
    assert kinds["claim"] >= 20 and kinds["card"] >= 10 and kinds["measured"] >= 8
    assert kinds["equation"] >= 100 and kinds["load"] == 0


def author_repository(pytester: pytest.Pytester, source: Path = ROOT) -> Path:
    """A copy of `source`'s content with tests of its own, and a broken fixture deep in them."""
    for folder in ("content", "decks"):
        shutil.copytree(source / folder, pytester.path / folder)
    fixture = pytester.path / "tests" / "data" / "broken" / "content"
    fixture.mkdir(parents=True)
    (fixture / "bad.yaml").write_text("id: [\n", encoding="utf-8")
    (pytester.path / "tests" / "test_plain.py").write_text("def test_plain():\n    pass\n")
    return pytester.path


@pytest.mark.usefixtures("recorded")
def test_planted_mistakes_fail_their_items_with_what_check_prints(
    bundled_report: Report, pytester: pytest.Pytester
) -> None:
    """`bundled_report`, a session fixture, imports what a check imports before pytester takes
    its snapshot of sys.modules, so the check in this test imports nothing for the first time."""
    root = author_repository(pytester)
    claim = 'expr: "32*512"\n        equals: "16384"'
    plant(root, NOTE, claim, claim.replace("16384", "16385"))
    example = plant(root, COMPUTED, "{gamma: 0.9}, value: 44}", "{gamma: 0.9}, value: 45}")
    equation = plant(root, NOTE, r"$\cos 0 = 1$", r"$\cos 0 = 2$")
    entry = "id: rnn-forward-ms\n        experiment: parallelism"
    plant(root, NOTE, entry, entry + "s")
    broken = plant(root, DECK, "\ncards:\n", "\ncards: [\n")

    result, verdicts = run(pytester)  # plain `pytest`: no configuration, the root's content

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    failed = sorted(nodeid for nodeid, verdict in verdicts.items() if verdict == "FAILED")
    [load] = [nodeid for nodeid in failed if nodeid.startswith(f"{DECK}::")]
    assert failed == sorted(
        [
            f"{NOTE}::claim:parallel-positions",
            f"{NOTE}::equation:{equation}#2",  # `$\sin 0 = 0$` is the first on its line
            f"{NOTE}::measured:rnn-forward-ms",
            f"{COMPUTED}::card:effective-context-k-star",
            load,
        ]
    )
    assert load.startswith(f"{DECK}::load:") and int(load.rsplit(":", 1)[1]) >= broken - 1
    assert verdicts["tests/test_plain.py::test_plain"] == "PASSED"
    assert verdicts[f"{NOTE}::claim:idle-cores"] == "PASSED"
    assert not any("broken" in nodeid for nodeid in verdicts)  # a fixture, not content
    # Each failure reads as `studykit check` prints it, at file:line (the same recorded runs).
    before = set(sys.modules)
    check = run_check([], root, recorded=root / "data" / "cache")
    assert set(sys.modules) <= before, sorted(set(sys.modules) - before)
    assert check.exit_code == 1
    printed = [line for line in check.text_lines() if line.startswith(("content", "decks"))]
    assert len(printed) == 5
    assert [line for line in result.outlines if line in printed] == printed
    assert any(
        line.startswith(f"{COMPUTED}:{example}: card effective-context-k-star: example at")
        for line in printed
    )
    assert any(line.startswith(f"{NOTE}:{equation}: equation `\\cos 0 = 2`") for line in printed)


def test_content_is_collected_only_from_the_root_or_when_named(pytester: pytest.Pytester) -> None:
    """With testpaths, `--studykit` adds the root's content; a fixture's is named or left."""
    author_repository(pytester, ROOT / "tests" / "data" / "check" / "planted")
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')

    _, plain = run(pytester)
    assert plain == {"tests/test_plain.py::test_plain": "PASSED"}
    _, named = run(pytester, "tests/test_plain.py", "tests/data/broken")
    assert named == {
        "tests/test_plain.py::test_plain": "PASSED",
        "tests/data/broken/content/bad.yaml::load:2": "FAILED",  # where YAML finds it
    }
    _, everything = run(pytester, "--studykit")
    assert everything["tests/test_plain.py::test_plain"] == "PASSED"
    assert everything["content/planted.yaml::claim:wrong-equals"] == "FAILED"
    assert everything["decks/planted.yaml::card:divides-by-zero"] == "FAILED"
    assert not any("broken" in nodeid for nodeid in everything)


MEASURED = """id: demo-note
title: Demo
sections:
  - id: decay
    title: Decay
    body: Gradient {measured:k-095} steps mein girta hai.
    measured:
      - id: k-095
        experiment: effective-context
        params: {gamma: 0.95}
        answer: k
        value: 91
        tolerance: {abs: 0}
        machine: test machine
        torch: 2.13.0
"""


def test_measured_entries_meet_recorded_runs_and_run_again_when_asked(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A measured entry that drifted (the run gives k = 90) fails in a plain run, compared
    with the run recorded in studykit's cache (pytest's own is off here), and when every
    experiment runs again."""
    if not torch_installed():
        pytest.skip("the experiments need the torch extra")
    monkeypatch.setenv("STUDYKIT_DATA_DIR", str(pytester.path / "data"))
    pytester.makefile(".yaml", **{"content/note": MEASURED})
    item = "content/note.yaml::measured:k-095"
    section = "content/note.yaml::section:decay"  # its numbers: one, cited

    plain, verdicts = run(pytester)
    assert verdicts == {item: "FAILED", section: "PASSED"}
    assert "1 measured entries compared (0 runs recorded, 1 run now)" in plain.stdout.str()
    recorded = pytester.path / "data" / "cache" / "measured-runs.json"
    assert recorded.is_file()
    again, verdicts = run(pytester)
    assert verdicts == {item: "FAILED", section: "PASSED"}
    assert "(1 runs recorded, 0 run now)" in again.stdout.str()
    result, ran = run(pytester, "--studykit-run-experiments")
    assert ran == {item: "FAILED", section: "PASSED"}
    assert any(
        line.startswith("content/note.yaml:8: experiment measured k-095: ")  # its `- id:`
        and "now measures k = 90, but the entry says 91" in line
        for line in result.outlines
    )
    assert any(
        line.startswith("studykit experiments: content/note.yaml: ") for line in result.outlines
    )


@pytest.mark.parametrize("name", ["check/planted", "check/equations", "check/evidence", "broken"])
def test_every_problem_check_finds_belongs_to_one_item(name: str) -> None:
    """The plugin fails exactly what `check` fails: no problem outside an item, none twice."""
    root = ROOT / "tests" / "data" / name
    report = run_check([root], root)
    placed = [problem for item in report.items for problem in item.problems]
    assert report.problems
    assert sorted(map(str, placed)) == sorted(map(str, report.problems))
    names = [(item.rel, item.name) for item in report.items]
    assert len(names) == len(set(names))


def test_importing_the_plugin_loads_no_check_code() -> None:
    """pytest loads the entry point in every project where studykit is installed."""
    code = (
        "import sys, studykit.pytest_plugin\n"
        "print(sorted(m for m in sys.modules if m.startswith('studykit.') or m == 'sympy'))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert found.stdout.strip() == "['studykit.pytest_plugin']"

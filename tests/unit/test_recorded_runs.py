"""Plain `check` compares measured entries with recorded runs, made again when anything the
result depends on changes; non-deterministic entries declare a band."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from studykit.checking import run_check
from studykit.checking.recorded import FILE
from studykit.content.loading import load_library
from studykit.experiments.fingerprint import module_digest
from studykit.experiments.installed import torch_installed
from tests.unit.test_citations import NOTE, write_root

needs_torch = pytest.mark.skipif(not torch_installed(), reason="runs need the torch extra")


def check(root: Path, data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYKIT_")}
    return subprocess.run(
        [sys.executable, "-m", "studykit", "--data-dir", str(data), "check", *args, str(root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def experiments_line(result: subprocess.CompletedProcess[str]) -> str:
    [line] = [line for line in result.stdout.splitlines() if line.startswith("experiments: ")]
    return line


@needs_torch
def test_a_record_is_reused_until_its_key_changes(tmp_path: Path) -> None:
    root, data = write_root(tmp_path / "root"), tmp_path / "data"
    first = check(root, data)
    assert first.returncode == 0, first.stdout
    assert "1 measured entries compared (0 runs recorded, 1 run now)" in experiments_line(first)
    assert "1 banded ones compared only with --run-experiments" in experiments_line(first)
    recorded = data / "cache" / FILE
    document = json.loads(recorded.read_text(encoding="utf-8"))
    [(key, answers)] = document["runs"].items()
    assert answers["k"] == 90

    # A wrong record is believed (nothing ran): proof that plain check reads it.
    document["runs"][key]["k"] = 91
    recorded.write_text(json.dumps(document), encoding="utf-8")
    believed = check(root, data)
    assert believed.returncode == 1
    assert "now measures k = 91, but the entry says 90" in believed.stdout
    assert "(1 runs recorded, 0 run now)" in experiments_line(believed)

    # The same record under another key (other code, parameters or torch): made again.
    document["runs"] = {key[::-1]: document["runs"][key]}
    recorded.write_text(json.dumps(document), encoding="utf-8")
    again = check(root, data)
    assert again.returncode == 0, again.stdout
    assert "(0 runs recorded, 1 run now)" in experiments_line(again)


@needs_torch
def test_a_damaged_record_file_is_said_and_rebuilt(tmp_path: Path) -> None:
    root, data = write_root(tmp_path / "root"), tmp_path / "data"
    (data / "cache").mkdir(parents=True)
    (data / "cache" / FILE).write_text("{not json", encoding="utf-8")
    result = check(root, data)
    assert result.returncode == 0, result.stdout
    [warning] = [line for line in result.stdout.splitlines() if line.startswith("warning: ")]
    assert "measured-runs.json could not be read" in warning
    assert "the runs are made again next time" in warning
    assert json.loads((data / "cache" / FILE).read_text(encoding="utf-8"))["format"] == 1


@needs_torch
@pytest.mark.parametrize("attempt", range(3))
def test_two_checks_at_once_make_each_run_once(tmp_path: Path, attempt: int) -> None:
    """The second check waits for the first one's runs and reads them from the record."""
    root, data = write_root(tmp_path / "root"), tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYKIT_")}
    command = [sys.executable, "-m", "studykit", "--data-dir", str(data), "check", str(root)]
    started = [
        subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env) for _ in range(2)
    ]
    lines = []
    for process in started:
        out, _ = process.communicate(timeout=120)
        assert process.returncode == 0, out
        lines += [line for line in out.splitlines() if line.startswith("experiments: ")]
    assert sorted("1 run now" in line for line in lines) == [False, True], lines


def test_a_non_deterministic_entry_declares_a_band_that_holds_its_value(tmp_path: Path) -> None:
    cases = {  # what is planted, what it says, and the line it names
        "missing": ("        band: [1, 100]\n", "", "needs `band: [low, high]`", "- id: run-ms"),
        "outside": (
            "band: [1, 100]",
            "band: [20, 100]",
            "does not hold the entry's value 12.5",
            "band: [20",
        ),
        "reversed": ("band: [1, 100]", "band: [100, 1]", "low end is above", "band: [100, 1]"),
    }
    for name, (written, planted, said, at) in cases.items():
        note = NOTE.replace(written, planted)
        assert note != NOTE
        library = load_library(write_root(tmp_path / name, note))
        [problem] = [p for p in library.problems if p.path == "content/note.yaml"]
        line = next(i for i, text in enumerate(note.splitlines(), 1) if at in text)
        assert str(problem).startswith(f"content/note.yaml:{line}:"), problem
        assert said in str(problem)


def test_plain_check_in_process_without_a_cache_folder_runs_nothing(tmp_path: Path) -> None:
    """The library API's default: measured entries are checked statically, nothing runs."""
    report = run_check([write_root(tmp_path / "root")], tmp_path)
    assert report.problems == [] and report.experiments is None


def test_the_code_digest_follows_imports_and_only_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "pkgx"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "exp.py").write_text(
        "def run():\n    from pkgx.helper import step\n    return step\n"
    )
    (package / "helper.py").write_text("from . import deep\nstep = 1\n")
    (package / "deep.py").write_text("X = 1\n")
    (package / "other.py").write_text("Y = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    def digest() -> str:
        module_digest.cache_clear()
        return module_digest("pkgx.exp", "pkgx")

    before = digest()
    (package / "other.py").write_text("Y = 2\n")  # imported by nothing the experiment uses
    assert digest() == before
    (package / "deep.py").write_text("X = 2\n")  # imported by an import, relatively
    changed = digest()
    assert changed != before
    (package / "exp.py").write_text("def run():\n    from pkgx.helper import step\n    return 2\n")
    assert digest() != changed


def test_without_torch_plain_check_says_the_entries_were_not_compared(tmp_path: Path) -> None:
    root, data = write_root(tmp_path / "root"), tmp_path / "data"
    without_torch = (
        "import sys\n"
        "sys.modules['torch'] = None\n"  # find_spec then fails: as if the extra were missing
        "from studykit.cli import main\n"
        "main(sys.argv[1:])"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYKIT_")}
    result = subprocess.run(
        [sys.executable, "-c", without_torch, "--data-dir", str(data), "check", str(root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 measured entries not compared (PyTorch is not installed)" in experiments_line(result)
    assert not (data / "cache" / FILE).exists()

"""`studykit check` on each hostile file: the right exit, file:line, bounded, nothing run."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.robustness.conftest import child_env
from tests.robustness.hostile import CASES, HOSTILE, Case, listing, root_with

MEMORY_LIMIT = 1536 * 1024 * 1024
HANG_GUARD_S = 60  # a hang guard only; the 2 s is measured and printed, not asserted
PWNED = Path("/tmp/pwned")


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def check(root: Path, *paths: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run `studykit --root ROOT check [PATH...]` under the memory limit, from `root`."""
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "studykit", "--root", str(root), "check", *paths],
        capture_output=True,
        text=True,
        cwd=root,
        env=child_env(),
        timeout=HANG_GUARD_S,
        preexec_fn=_limit_memory,
        check=False,
    )
    return result, time.perf_counter() - start


def test_corpus_is_all_covered() -> None:
    on_disk = {p.relative_to(HOSTILE).as_posix() for p in HOSTILE.rglob("*.yaml")}
    assert on_disk == {case.rel for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.rel)
def test_check_reports_hostile_file(case: Case, tmp_path: Path) -> None:
    if PWNED.exists():
        pytest.skip(f"{PWNED} exists already; cannot tell whether we made it")
    root = root_with(tmp_path, HOSTILE / case.rel, case.rel)
    before = listing(root)
    result, seconds = check(root)
    print(f"{case.rel}: exit {result.returncode} in {seconds:.2f} s")
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    assert result.returncode == case.exit_code, output
    lines = result.stdout.splitlines()
    if case.status == "clean":
        assert lines[-1].endswith(" 0 problems"), output
    else:
        assert lines[-1].endswith(" 1 problem"), output  # only the hostile file is reported
        where = case.rel if case.line is None else f"{case.rel}:{case.line}:"
        assert lines[0].startswith(where), output
        assert case.words in lines[0], output
    assert not PWNED.exists()
    assert listing(root) == before


def test_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with big.open("w", encoding="utf-8") as stream:
        stream.write('id: big\nname: "Hostile::big"\ncards:\n')
        card = "  - id: c{0}\n    front: Question {0}?\n    back: " + "x" * 200 + "\n"
        written = 0
        while written < 20 * 1024 * 1024:
            written += stream.write(card.format(written))
    root = root_with(tmp_path, big, "decks/big.yaml")
    big.unlink()
    result, seconds = check(root)
    print(f"20 MB file: exit {result.returncode} in {seconds:.2f} s")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.splitlines()[0].startswith("decks/big.yaml:1:1: the file is 20.0 MB")


def test_check_path_argument_reports_the_file(tmp_path: Path) -> None:
    case = next(c for c in CASES if c.rel == "decks/duplicate-key.yaml")
    root = root_with(tmp_path, HOSTILE / case.rel, case.rel)
    result, _ = check(root, case.rel)
    assert result.returncode == 1
    assert result.stdout.startswith(f"{case.rel}:{case.line}:")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
@pytest.mark.parametrize("kind", ["file", "folder"])
def test_links_out_of_the_root_are_refused(tmp_path: Path, kind: str) -> None:
    """Decided: a link under content/ or decks/ that leads outside the root is not read."""
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.yaml"
    secret.write_text('id: secret\nname: "Secret::Deck"\ncards: []\n', encoding="utf-8")
    root = root_with(tmp_path, HOSTILE / "decks" / "bom.yaml", "decks/bom.yaml")
    link = root / "decks" / ("secret.yaml" if kind == "file" else "secrets")
    link.symlink_to(secret if kind == "file" else outside)
    result, _ = check(root)
    rel = link.relative_to(root).as_posix()
    assert result.returncode == 1, result.stdout
    assert result.stdout.startswith(f"{rel}:1:1: this link leads outside the content root")
    assert "Secret" not in result.stdout


def test_link_inside_the_root_is_followed(tmp_path: Path) -> None:
    root = root_with(tmp_path, HOSTILE / "decks" / "bom.yaml", "decks/bom.yaml")
    (root / "decks" / "alias.yaml").symlink_to(root / "decks" / "bom.yaml")
    result, _ = check(root)
    # Same file twice: the second copy is refused as a duplicate deck id, which shows it was read.
    assert result.returncode == 1
    assert "deck id `bom` is already used" in result.stdout

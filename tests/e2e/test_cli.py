"""The command line as a user runs it: subprocesses, exit codes, stdout/stderr, no tracebacks."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import studykit

GOOD_DECK = """\
id: good
name: "Demo::Good"
cards:
  - id: a
    front: Question?
    back: Answer.
  - id: b
    front: Another?
    back: Yes.
"""
BAD_DECK = """\
id: bad
name: Bad
cards:
  - id: a
    front: Q?
    bakc: A.
"""


def run(
    *args: str, data_dir: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("STUDYKIT_")}
    environment["STUDYKIT_DATA_DIR"] = str(data_dir)
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "studykit", *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "decks").mkdir(parents=True)
    (root / "content").mkdir()
    (root / "decks" / "good.yaml").write_text(GOOD_DECK)
    return root


def assert_clean(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout


def test_help_lists_the_commands(tmp_path: Path) -> None:
    result = run("--help", data_dir=tmp_path)
    assert result.returncode == 0
    for word in ("review", "decks", "--data-dir", "--root", "--version"):
        assert word in result.stdout


def test_version(tmp_path: Path) -> None:
    result = run("--version", data_dir=tmp_path)
    assert result.returncode == 0
    assert result.stdout.strip() == f"studykit {studykit.__version__}"


def test_decks_json_is_one_document_with_counts(root: Path, tmp_path: Path) -> None:
    result = run("--root", str(root), "decks", "--json", data_dir=tmp_path / "data")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["problems"] == []
    [deck] = document["decks"]
    assert deck["id"] == "good" and deck["name"] == "Demo::Good"
    assert (deck["new"], deck["learning"], deck["due"], deck["total"]) == (2, 0, 0, 2)
    assert (tmp_path / "data" / "studykit.sqlite3").exists()


def test_decks_table(root: Path, tmp_path: Path) -> None:
    result = run("--root", str(root), "decks", data_dir=tmp_path / "data")
    assert result.returncode == 0
    header, row = result.stdout.splitlines()
    assert header.split() == ["ID", "NAME", "NEW", "LEARN", "DUE", "TOTAL"]
    assert row.split() == ["good", "Demo::Good", "2", "0", "0", "2"]


def test_decks_with_a_broken_file_prints_the_good_ones_and_exits_1(
    root: Path, tmp_path: Path
) -> None:
    (root / "decks" / "bad.yaml").write_text(BAD_DECK)
    result = run("--root", str(root), "decks", "--json", data_dir=tmp_path / "data")
    assert result.returncode == 1
    document = json.loads(result.stdout)
    assert [d["id"] for d in document["decks"]] == ["good"]
    assert document["problems"][0]["path"] == "decks/bad.yaml"
    assert "decks/bad.yaml:6:" in result.stderr and "bakc" in result.stderr
    assert_clean(result)


def test_review_of_an_unknown_deck_exits_2_listing_known_ids(root: Path, tmp_path: Path) -> None:
    result = run("--root", str(root), "review", "--deck", "nope", data_dir=tmp_path / "data")
    assert result.returncode == 2
    assert result.stderr.startswith("studykit: error:")
    assert "nope" in result.stderr and "good" in result.stderr
    assert_clean(result)


def test_a_bad_root_is_a_clear_usage_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run("--root", str(empty), "decks", data_dir=tmp_path / "data")
    assert result.returncode == 2
    assert result.stderr.startswith("studykit: error:")
    assert str(empty) in result.stderr and "content/" in result.stderr
    assert result.stdout == ""
    assert_clean(result)


def test_a_missing_root_is_a_clear_usage_error(tmp_path: Path) -> None:
    result = run("--root", str(tmp_path / "nowhere"), "decks", data_dir=tmp_path / "data")
    assert result.returncode == 2
    assert "nowhere" in result.stderr
    assert_clean(result)


def test_a_data_dir_that_is_a_file_is_reported(root: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    result = run("--root", str(root), "decks", data_dir=blocked)
    assert result.returncode == 2
    assert result.stderr.startswith("studykit: error:") and str(blocked) in result.stderr
    assert_clean(result)


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["frobnicate"], "no such command 'frobnicate' (see 'studykit --help')"),
        (["--bogus"], "no such option '--bogus' (see 'studykit --help')"),
        (
            ["export", "anki", "--variants", "0"],
            "invalid value for '--variants': 0 is not in the range 1<=x<=100 "
            "(see 'studykit export anki --help')",
        ),
        (["export"], "'studykit export' needs a command: anki (see 'studykit export --help')"),
        (
            ["decks", "--root", "x"],
            "no such option '--root'; it goes before the command: studykit --root DIR decks ... "
            "(see 'studykit decks --help')",
        ),
    ],
    ids=["command", "option", "value", "no-subcommand", "global-after"],
)
def test_a_usage_error_is_one_line_in_our_format(
    tmp_path: Path, args: list[str], line: str
) -> None:
    result = run(*args, data_dir=tmp_path)
    assert result.returncode == 2
    assert result.stderr == f"studykit: error: {line}\n"  # not Click's usage block
    assert result.stdout == ""


def python(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("STUDYKIT_")}
    environment["STUDYKIT_DATA_DIR"] = str(tmp_path / "data")
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )


def test_importing_the_cli_stays_light(tmp_path: Path) -> None:
    result = python(
        """
        import sys
        import studykit.cli
        names = ("torch", "sympy", "genanki", "anki", "matplotlib", "textual", "fsrs_rs_python")
        heavy = [m for m in names if m in sys.modules]
        print(",".join(heavy))
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_help_does_not_import_the_app(tmp_path: Path) -> None:
    result = python(
        """
        import sys
        from studykit.cli import main
        try:
            main(["--help"])
        except SystemExit:
            pass
        names = ("torch", "sympy", "genanki", "anki", "matplotlib", "textual", "fsrs_rs_python")
        heavy = [m for m in names if m in sys.modules]
        print("HEAVY:" + ",".join(heavy))
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "HEAVY:"


def test_the_first_screen_imports_no_heavy_modules_and_the_warm_up_comes_after(
    tmp_path: Path,
) -> None:
    result = python(
        """
        import asyncio, sys, time
        from studykit.content.citations import CLAIM_VALUES, cited_claims
        from studykit.core.config import resolve_settings
        from studykit.tui.app import PRELOAD_DELAY_S, WARM_UP_WORKER, make_app
        from studykit.tui.screens.home import HomeScreen
        from studykit.tui.warmup import SCREEN_MODULES

        HEAVY = ("torch", "sympy", "genanki", "anki", "matplotlib", "fsrs_rs_python")
        seen = {}

        async def main() -> None:
            app = make_app(resolve_settings())
            async with app.run_test(size=(120, 40)) as pilot:
                # A wall-clock deadline, not a count of pauses: a loaded machine is slow, not wrong.
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    await pilot.pause(0.01)
                    if isinstance(app.screen, HomeScreen) and app.screen.opened:
                        break  # home shows the decks
                assert isinstance(app.screen, HomeScreen) and app.screen.opened, app.screen
                seen["HOME"] = [m for m in HEAVY if m in sys.modules]
                home = time.monotonic()
                while time.monotonic() < deadline:  # the warm-up, once home has settled
                    await pilot.pause(0.01)
                    workers = [w for w in app.workers if w.name == WARM_UP_WORKER]
                    if workers:  # it runs for far longer than a pause
                        seen["AFTER"] = [str(time.monotonic() - home >= PRELOAD_DELAY_S / 2)]
                        await workers[0].wait()
                        break
                seen["LATER"] = [m for m in HEAVY if m in sys.modules]
                notes = app.session.library.notes.values()
                claims = [c for n in notes for c in cited_claims([s.body for s in n.sections], n)]
                known = all(CLAIM_VALUES.known(c.expr) for c in claims)
                seen["CLAIMS"] = [str(len(claims)), str(known)]
                seen["SCREENS"] = [str(all(m in sys.modules for m in SCREEN_MODULES))]

        asyncio.run(main())
        for name in ("HOME", "AFTER", "LATER", "CLAIMS", "SCREENS"):
            print(name + ":" + ",".join(seen.get(name, ["not seen"])))
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    home, after, later, claims, screens = result.stdout.strip().splitlines()[-5:]
    assert home == "HOME:"  # the first screen imports none of them
    assert after == "AFTER:True"  # the warm-up starts once home has settled, not with it
    # Then the warm-up: sympy (through our parser), every claim the notes cite, the screens.
    assert later == "LATER:sympy"
    count, known = claims.removeprefix("CLAIMS:").split(",")
    assert int(count) > 0 and known == "True"
    assert screens == "SCREENS:True"


def test_the_first_screen_from_the_library_cache_imports_no_pydantic(tmp_path: Path) -> None:
    """Home is built from the cache's outlines; the models come after it, in a worker."""
    code = """
        import asyncio, sys, time
        import studykit.tui.app
        from studykit.core.config import resolve_settings
        from studykit.tui.app import make_app
        from studykit.tui.screens.home import HomeScreen

        MODELS = ("pydantic", "studykit.content.model")
        studykit.tui.app.PRELOAD_DELAY_S = 3600  # the check below builds them itself
        seen = {}

        async def main() -> None:
            app = make_app(resolve_settings())
            async with app.run_test(size=(120, 40)) as pilot:
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    await pilot.pause(0.01)
                    screen = app.screen
                    # Home is the screen from the start, before it has composed or has decks.
                    info = screen.query("#deck-info") if isinstance(screen, HomeScreen) else []
                    if info and str(info.first().content):
                        break  # home is up, a deck highlighted and its line drawn
                for _ in range(3):  # decks with a description: home shows it
                    await pilot.press("down")
                    await pilot.pause(0.1)
                    seen.setdefault("INFO", []).append(str(screen.query_one("#deck-info").content))
                seen["HOME"] = [m for m in MODELS if m in sys.modules]
                await app.build_models(app.session).wait()
                seen["LATER"] = [m for m in MODELS if m in sys.modules]

        asyncio.run(main())
        for name in ("HOME", "LATER"):
            print(name + ":" + ",".join(seen.get(name, ["not shown"])))
        print(*seen["INFO"], sep="\\n")
        """
    cold = python(code, tmp_path)  # builds the library from YAML and writes the cache
    assert cold.returncode == 0, cold.stderr
    home, later, *_ = cold.stdout.splitlines()
    assert (home, later) == (
        "HOME:pydantic,studykit.content.model",
        "LATER:pydantic,studykit.content.model",
    )
    warm = python(code, tmp_path)
    assert warm.returncode == 0, warm.stderr
    home, later, *info = warm.stdout.splitlines()
    assert (home, later) == ("HOME:", "LATER:pydantic,studykit.content.model")
    counts_only = re.compile(r"(\d+ decks? · )?\d+ cards?")
    assert any(not counts_only.fullmatch(line) for line in info), info  # a description shown

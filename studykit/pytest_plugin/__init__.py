"""The pytest plugin: each claim, card, equation and measured entry a test item at file:line.

Registered as the `studykit` entry point in `pytest11`. It collects the YAML files under the
`content/` and `decks/` folders of the rootdir (or of a path named on the command line), and
with `--studykit` adds those folders to what pytest collects. Importing it loads only
pytest: the check code (and sympy) is imported when a content file is collected.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import pytest

FOLDERS: Final = ("content", "decks")
SUFFIXES: Final = (".yaml", ".yml")
ROOTS = pytest.StashKey[frozenset[Path]]()
# What each file's experiment runs did, or why none ran (`check`'s `experiments:` line).
EXPERIMENT_NOTES = pytest.StashKey[dict[str, str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("studykit", "studykit content checks")
    group.addoption(
        "--studykit",
        action="store_true",
        help="Also collect the rootdir's content/ and decks/ (each claim, card, equation and "
        "measured entry an item), whatever testpaths says.",
    )
    group.addoption(
        "--studykit-run-experiments",
        action="store_true",
        help="Also run the linked experiments and re-run measured entries, as "
        "`studykit check --run-experiments` does (slow; off by default).",
    )


def root_of(path: Path) -> Path | None:
    """The folder whose content/ or decks/ holds `path` (a root itself: that folder)."""
    if path.is_dir() and any((path / folder).is_dir() for folder in FOLDERS):
        return path
    for parent in path.parents:
        if any(path.is_relative_to(parent / folder) for folder in FOLDERS):
            return parent
    return None


def _named(config: pytest.Config) -> list[Path]:
    """The paths on the command line (or from testpaths), resolved."""
    base = config.invocation_params.dir
    return [(base / arg.split("::")[0]).resolve() for arg in config.args]


def pytest_configure(config: pytest.Config) -> None:
    rootdir = config.rootpath.resolve()
    roots = {rootdir}
    for path in _named(config):
        root = root_of(path)
        if root is not None:
            roots.add(root)
    config.stash[ROOTS] = frozenset(roots)
    if config.getoption("studykit"):
        named = _named(config)
        for folder in FOLDERS:
            wanted = rootdir / folder
            if wanted.is_dir() and not any(wanted.is_relative_to(path) for path in named):
                config.args.append(str(wanted))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A YAML file under content/ or decks/ of a root this run covers (not a test fixture's
    content folder deep in tests/, unless named)."""
    if file_path.suffix not in SUFFIXES:
        return None
    try:
        path = file_path.resolve()
    except (OSError, RuntimeError):  # a link loop: not content pytest could check
        return None
    root = root_of(path)
    if root is None or root not in parent.config.stash.get(ROOTS, frozenset()):
        return None
    from studykit.pytest_plugin.items import ContentFile

    return ContentFile.from_parent(parent, path=file_path, root=root)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    notes = terminalreporter.config.stash.get(EXPERIMENT_NOTES, {})
    for where, note in notes.items():
        terminalreporter.write_line(f"studykit experiments: {where}: {note}")

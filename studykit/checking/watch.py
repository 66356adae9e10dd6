"""`studykit check --watch`: check once, then again after each save of a YAML file, until Ctrl-C.

The watcher (watchfiles) starts before the first check, so a save during that check is not
lost. A burst of saves (an editor writing a temp file and renaming it, a `git checkout`) is
coalesced into one re-check: changes are gathered until none has come for `STEP_MS`, at most
`DEBOUNCE_MS`, and saves during a check trigger one more check after it. Only `.yaml`/`.yml`
files under each root's `content/` and `decks/` count; hidden files (editor swap and lock
files) do not. Each report is compact: at most `MAX_SHOWN` problem lines, then a count.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from studykit.checking.findings import Report
from studykit.checking.runner import FOLDERS, run_check, scopes
from studykit.errors import StudykitError

if TYPE_CHECKING:
    import threading

    from watchfiles import Change

YAML_SUFFIXES = (".yaml", ".yml")
MAX_SHOWN = 40
MAX_NAMED = 3
STEP_MS = 100
DEBOUNCE_MS = 1_600
TICK_MS = 250

Echo = Callable[[str], None]


def is_watched(path: str) -> bool:
    """Whether a change to `path` calls for a re-check: a visible YAML file."""
    name = os.path.basename(path)
    return name.endswith(YAML_SUFFIXES) and not name.startswith((".", "#"))


def _yaml_only(_change: Change, path: str) -> bool:
    return is_watched(path)


def watched_folders(paths: Sequence[Path], default_root: Path) -> list[Path]:
    """The content/ and decks/ folders of every root the paths belong to."""
    folders: list[Path] = []
    for scope in scopes(paths, default_root):
        for name in FOLDERS:
            folder = scope.root / name
            if folder.is_dir() and folder not in folders:
                folders.append(folder)
    return folders


def _shown(path: str) -> str:
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path


def report_lines(report: Report, *, limit: int = MAX_SHOWN) -> list[str]:
    """The problems (at most `limit` lines, then how many more) and the summary line."""
    lines = [str(problem) for problem in report.problems[:limit]]
    hidden = len(report.problems) - limit
    if hidden > 0:
        lines.append(f"… and {hidden} more (run `studykit check` for all of them)")
    if report.experiments is not None and report.experiments.note:
        lines.append(f"experiments: {report.experiments.note}")
    lines.append(report.summary())
    return lines


def _changed_line(changed: Sequence[str]) -> str:
    names = sorted({_shown(path) for path in changed})
    shown = ", ".join(names[:MAX_NAMED])
    more = f" and {len(names) - MAX_NAMED} more" if len(names) > MAX_NAMED else ""
    return f"changed: {shown}{more}"


def _check_and_print(
    paths: Sequence[Path], default_root: Path, run_experiments: bool, echo: Echo, why: str
) -> None:
    echo(f"--- {time.strftime('%H:%M:%S')} {why} ---")
    try:
        report = run_check(paths, default_root, run_experiments=run_experiments)
    except (StudykitError, OSError) as error:
        echo(f"studykit: error: {error}")
        return
    for line in report_lines(report):
        echo(line)


def watch_check(
    paths: Sequence[Path],
    default_root: Path,
    *,
    run_experiments: bool,
    echo: Echo,
    stop: threading.Event | None = None,
) -> None:
    """Check, then re-check after each save, until Ctrl-C or `stop` is set; returns normally."""
    try:
        from watchfiles import watch
    except ImportError:
        raise StudykitError(
            "--watch needs the watchfiles package: pip install watchfiles"
        ) from None

    folders = watched_folders(paths, default_root)
    changes = watch(
        *folders,
        watch_filter=_yaml_only,
        debounce=DEBOUNCE_MS,
        step=STEP_MS,
        rust_timeout=TICK_MS,
        yield_on_timeout=True,
        stop_event=stop,
    )
    first = True
    try:
        for batch in changes:
            if first:
                # The first (empty) batch comes once the watcher runs: nothing saved is missed.
                first = False
                _check_and_print(paths, default_root, run_experiments, echo, "check")
                where = ", ".join(_shown(os.fspath(folder)) + "/" for folder in folders)
                echo(f"watching {where} for saved .yaml files (Ctrl-C stops)")
            elif batch:
                why = _changed_line([path for _change, path in batch])
                _check_and_print(paths, default_root, run_experiments, echo, why)
    except KeyboardInterrupt:
        pass
    finally:
        changes.close()
    echo("stopped watching")

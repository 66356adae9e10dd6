"""`studykit check --watch`: check once, then again after each save of a YAML file, until Ctrl-C.

The watcher (watchfiles) starts before the first check, so a save during that check is not
lost. A burst of saves (an editor writing a temp file and renaming it, a `git checkout`) is
coalesced into one re-check: changes are gathered until none has come for `STEP_MS`, at most
`DEBOUNCE_MS`, and saves during a check trigger one more check after it. Only `.yaml`/`.yml`
files under each root's `content/` and `decks/` count; hidden files (editor swap and lock
files) do not. A folder removed and made again is watched again. Each report is compact: at
most `MAX_SHOWN` problem lines, then a count.
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from studykit.checking.runner import FOLDERS, run_check, scopes
from studykit.core.errors import StudykitError

if TYPE_CHECKING:
    import threading

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


def watch_roots(paths: Sequence[Path], default_root: Path) -> list[Path]:
    """The roots the paths belong to (raises `CheckInputError` for a bad path)."""
    return [scope.root for scope in scopes(paths, default_root)]


def _keep(names: frozenset[str]) -> Callable[[object, str], bool]:
    """The watch filter: visible YAML files, and the watched folders themselves."""
    return lambda _change, path: is_watched(path) or path in names


def watched_folders(roots: Sequence[Path]) -> tuple[Path, ...]:
    """The content/ and decks/ folders of the roots that exist now."""
    return tuple(root / name for root in roots for name in FOLDERS if (root / name).is_dir())


def _changes(
    roots: Sequence[Path], stop: threading.Event | None
) -> Generator[list[str] | None, None, None]:
    """Changed YAML paths per burst, `[]` on a quiet tick, `None` when folders came or went.

    The first item comes once the watcher runs. A watcher goes deaf when its folder is
    removed, even if the folder is made again at once (a branch switch, a restore), so when
    a watched folder itself changes, or one appears or goes, the watcher starts afresh on
    the folders that exist now, and `None` asks for a full re-check.
    """
    from watchfiles import watch

    folders = watched_folders(roots)
    while stop is None or not stop.is_set():
        if folders:
            names = frozenset(os.path.normpath(folder) for folder in folders)
            batches = watch(
                *folders,
                watch_filter=_keep(names),
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                rust_timeout=TICK_MS,
                yield_on_timeout=True,
                stop_event=stop,
            )
            try:
                for batch in batches:
                    paths = [path for _change, path in batch]
                    if names.intersection(paths) or watched_folders(roots) != folders:
                        break
                    yield [path for path in paths if is_watched(path)]
            except FileNotFoundError:
                pass  # removed between looking and watching: look again
            finally:
                batches.close()
        else:
            time.sleep(TICK_MS / 1000)
            if watched_folders(roots) == folders:
                yield []
                continue
        if stop is not None and stop.is_set():
            return
        folders = watched_folders(roots)
        yield None


def _shown(path: str) -> str:
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path


def _changed_line(changed: Sequence[str]) -> str:
    names = sorted({_shown(path) for path in changed})
    shown = ", ".join(names[:MAX_NAMED])
    more = f" and {len(names) - MAX_NAMED} more" if len(names) > MAX_NAMED else ""
    return f"changed: {shown}{more}"


def _where(roots: Sequence[Path]) -> str:
    folders = watched_folders(roots)
    return ", ".join(_shown(os.fspath(folder)) + "/" for folder in folders) or "nothing yet"


def _check_and_print(paths: Sequence[Path], default_root: Path, how: _How, why: str) -> None:
    how.echo(f"--- {time.strftime('%H:%M:%S')} {why} ---")
    try:
        report = run_check(
            paths, default_root, run_experiments=how.run_experiments, recorded=how.recorded
        )
    except (StudykitError, OSError) as error:
        how.echo(f"studykit: error: {error}")
        return
    for line in report.text_lines(ran_experiments=how.run_experiments, limit=MAX_SHOWN):
        how.echo(line)


@dataclass(frozen=True)
class _How:
    """How each re-check runs, and where it prints."""

    run_experiments: bool
    recorded: Path | None
    echo: Echo


def watch_check(
    paths: Sequence[Path],
    default_root: Path,
    *,
    run_experiments: bool,
    echo: Echo,
    stop: threading.Event | None = None,
    recorded: Path | None = None,
) -> None:
    """Check, then re-check after each save, until Ctrl-C or `stop` is set; returns normally.

    `recorded`: the cache folder of recorded runs (see `check_scope`).
    """
    if importlib.util.find_spec("watchfiles") is None:
        raise StudykitError("--watch needs the watchfiles package: pip install watchfiles")
    roots = watch_roots(paths, default_root)
    how = _How(run_experiments, recorded, echo)
    changes = _changes(roots, stop)
    first = True
    try:
        for changed in changes:
            if first:
                # The first item comes once the watcher runs: nothing saved is missed.
                first = False
                _check_and_print(paths, default_root, how, "check")
                echo(f"watching {_where(roots)} for saved .yaml files (Ctrl-C stops)")
            elif changed is None:
                why = f"folders changed; watching {_where(roots)}"
                _check_and_print(paths, default_root, how, why)
            elif changed:
                _check_and_print(paths, default_root, how, _changed_line(changed))
    except KeyboardInterrupt:
        pass
    finally:
        changes.close()
    echo("stopped watching")

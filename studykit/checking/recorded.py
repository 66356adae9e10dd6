"""Recorded runs: what deterministic experiment runs answered, so plain `check` need not re-run.

A record is reused only while everything its result depends on is unchanged: the
experiment's code (`fingerprint.code_digest`), its parameters, seed and device, and the
torch version. Anything else is a miss, and the run is made again. The file lives in
studykit's cache folder, where anything can be deleted and rebuilt.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from studykit.checking.runs import Run
from studykit.core.files import FileRefused, read_regular, replace_atomically

FILE: Final = "measured-runs.json"
FORMAT: Final = 1
MAX_BYTES: Final = 4 * 1024 * 1024  # a file larger than this is not read (and rebuilt)
MAX_RECORDS: Final = 5000  # the oldest are dropped beyond this

Answers = dict[str, float]


def record_key(run: Run) -> str:
    """The digest of everything the run's result depends on."""
    from studykit.experiments import registry
    from studykit.experiments.device import torch_version
    from studykit.experiments.fingerprint import code_digest

    code = code_digest(registry.get(run.experiment))
    text = json.dumps([run.key, torch_version(), code])
    return hashlib.sha256(text.encode()).hexdigest()


class RecordedRuns:
    """The records in one cache folder: read, looked up, added to and written back."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / FILE
        self.records: dict[str, Answers] = {}
        self.damaged: str | None = None  # why the file could not be read, if it could not
        self.added = 0

    def read(self) -> None:
        """Load the file (a missing one is empty; an unreadable one is noted in `damaged`)."""
        self.records, self.damaged = {}, None
        if not self.path.exists():
            return
        try:
            document = json.loads(read_regular(self.path, MAX_BYTES))
        except FileRefused as error:
            self.damaged = f"{self.path}: {error}"
            return
        except ValueError as error:
            self.damaged = f"{self.path} could not be read ({error})"
            return
        fits = isinstance(document, dict) and document.get("format") == FORMAT
        records = document.get("runs") if fits else None
        if not isinstance(records, dict):
            self.damaged = f"{self.path} is not a format {FORMAT} record of runs"
            return
        for key, answers in records.items():
            if isinstance(answers, dict) and all(
                isinstance(value, int | float) for value in answers.values()
            ):
                self.records[key] = {name: float(value) for name, value in answers.items()}

    def get(self, run: Run) -> Answers | None:
        """The recorded answers of `run`, if this code, torch and these inputs made them."""
        return self.records.get(record_key(run))

    def put(self, run: Run, answers: Answers) -> None:
        finite = {name: value for name, value in answers.items() if math.isfinite(value)}
        key = record_key(run)
        self.records.pop(key, None)  # re-added last: the newest survive trimming
        self.records[key] = finite
        self.added += 1

    def write(self) -> str | None:
        """Write the records back (atomically); why it failed, or None."""
        kept = dict(list(self.records.items())[-MAX_RECORDS:])
        try:
            replace_atomically(self.path, json.dumps({"format": FORMAT, "runs": kept}, indent=0))
        except OSError as error:
            return f"the runs could not be recorded in {self.path}: {error}"
        return None

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the folder's lock (another check waits here, then reads what this one wrote)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle = (self.path.parent / f"{FILE}.lock").open("a")
        except OSError:
            self.read()
            yield  # a read-only cache folder: no lock, and `write` will say why
            return
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                self.read()
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

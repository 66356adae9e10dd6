"""The loaded library, kept as JSON in the data dir so that an unchanged root loads fast.

The key is the root, every content file's path, size, mtime and ctime (in ns), the links
refused on the way, studykit's version, this file's format and the size and mtime of
studykit's own source files (so a changed loader never reuses what an older one built).
The header also keeps the stat of every image the decks and notes show (found or not), and
a hit needs each to be unchanged, so adding, changing or removing an image is seen.
Anything wrong with the cache file (missing, unreadable, truncated, another version, a bad
checksum, a shape that does not decode) is a miss: the root is loaded from YAML and the
file rewritten. Writing is best effort (a read-only data dir just means no cache) and
atomic (a temporary file renamed over the old one). JSON, never pickle: a data dir can
hold files from any version, and reading one must never run code.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
import time
import types
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import studykit
from studykit.files import FileRefused, read_regular
from studykit.loading.library import Library, yaml_files
from studykit.loading.problems import LoadProblem
from studykit.model import (
    Agreement,
    Card,
    Claim,
    Deck,
    Example,
    ExperimentRef,
    Measurement,
    Note,
    Origin,
    ParamSpec,
    Section,
    Strict,
    TextOrigin,
    Tolerance,
)

FORMAT = 2
"""Bump when the layout below changes."""
MAX_CACHE_BYTES = 128 * 1024 * 1024
"""A larger library is not cached (and a larger file is not read): it loads from YAML."""
SETTLE_NS = 2_000_000_000
"""A file modified this recently may change again within its mtime's tick: no cache then."""

_MODELS: dict[str, type[Strict]] = {
    cls.__name__: cls
    for cls in (
        Note,
        Section,
        Claim,
        Measurement,
        ExperimentRef,
        Tolerance,
        Deck,
        Card,
        ParamSpec,
        Example,
        Agreement,
    )
}
_FIELDS = {name: frozenset(cls.__pydantic_fields__) for name, cls in _MODELS.items()}
_PACKAGE = Path(studykit.__file__).resolve().parent


class _Miss(Exception):
    """The cache file cannot be used."""


def cache_path(cache_dir: Path, root: Path) -> Path:
    """The cache file of one content root (several roots share a data dir)."""
    digest = hashlib.sha256(str(root.resolve()).encode("utf-8", "surrogateescape")).hexdigest()
    return cache_dir / f"library-{digest[:24]}.json"


def load_cached(root: Path, cache_dir: Path, load: Callable[[Path], Library]) -> Library:
    """`load(root)`, or the library the cache holds for exactly these files."""
    path = cache_path(cache_dir, root)
    key, newest = _key(root)
    try:
        return _read(path, key, root)
    except _Miss:
        pass
    library = load(root)
    watched = _watched_stats(library.watched)
    newest = max([newest, *(stat[1] for _, stat in watched if stat is not None)])
    # Not when a file changed while it loaded, or so recently that it may change again
    # without its mtime moving (the clock's tick): the key would then match stale content.
    if _key(root)[0] == key and newest < time.time_ns() - SETTLE_NS:
        _write(path, key, library, watched)
    return library


def _watched_stats(paths: Iterable[Path]) -> list[list[Any]]:
    """Each watched file's path and stat (None when missing), as the cache header keeps them."""
    return [[str(path), _stat(path)] for path in paths]


def _stat(path: Path) -> list[int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return [status.st_size, status.st_mtime_ns, status.st_ctime_ns]


def _source_files(folder: str = str(_PACKAGE), prefix: str = "") -> list[object]:
    """Name, size and mtime of each of studykit's .py files: a changed loader is a new key."""
    found: list[object] = []
    with os.scandir(folder) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                found.extend(_source_files(entry.path, f"{prefix}{entry.name}/"))
            elif entry.name.endswith(".py"):
                status = entry.stat()
                found.append((prefix + entry.name, status.st_size, status.st_mtime_ns))
    return found


def _key(root: Path) -> tuple[str, int]:
    """A digest of everything the loaded library depends on, and the newest file's mtime."""
    refused: list[LoadProblem] = []
    files: list[tuple[str, list[int] | None]] = [
        (rel, _stat(path))
        for folder in ("content", "decks")
        for path, rel in yaml_files(root, folder, refused)
    ]
    newest = max((stat[1] for _, stat in files if stat is not None), default=0)
    material = {
        "format": FORMAT,
        "root": str(root.resolve()),
        "version": studykit.__version__,
        "code": _source_files(),
        "files": files,
        "refused": [str(problem) for problem in refused],
    }
    digest = hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()
    return digest, newest


def _read(path: Path, key: str, root: Path) -> Library:
    try:
        data = read_regular(path, limit=MAX_CACHE_BYTES)
    except FileRefused as refused:
        raise _Miss from refused
    header, _, payload = data.partition(b"\n")
    try:
        head = json.loads(header)
        watched = head.pop("watched")
        if head != {"format": FORMAT, "key": key, "sha256": hashlib.sha256(payload).hexdigest()}:
            raise _Miss
        if watched != _watched_stats(Path(p) for p, _ in watched):
            raise _Miss  # an image the decks show was added, changed or removed
        library = _decode_library(json.loads(payload), root)
        return dataclasses.replace(library, watched=tuple(Path(p) for p, _ in watched))
    except _Miss:
        raise
    except Exception as error:  # any shape a damaged file can take is a miss
        raise _Miss from error


def _write(path: Path, key: str, library: Library, watched: list[list[Any]]) -> None:
    try:
        payload = json.dumps(_encode_library(library), separators=(",", ":")).encode()
    except (TypeError, ValueError):  # a value JSON cannot hold: this library is not cached
        return
    if len(payload) > MAX_CACHE_BYTES:
        return
    head = {
        "format": FORMAT,
        "key": key,
        "sha256": hashlib.sha256(payload).hexdigest(),
        "watched": watched,
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".library-", suffix=".tmp")
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(json.dumps(head).encode() + b"\n" + payload)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass  # no cache this time; the library loaded all the same


# -- encoding ---------------------------------------------------------------------------------


def _encode(value: object) -> Any:
    if isinstance(value, Strict):
        private = value.__pydantic_private__ or {}
        origin = private.get("_origin")
        texts: dict[str, TextOrigin] = private.get("_texts") or {}
        return {
            "m": type(value).__name__,
            "f": {name: _encode(field) for name, field in value.__dict__.items()},
            "s": sorted(value.model_fields_set),
            "o": None if origin is None else [origin.path, origin.line, origin.column],
            "t": {name: [t.line, t.column, t.exact] for name, t in texts.items()},
        }
    if isinstance(value, tuple):
        return [_encode(item) for item in value]
    if isinstance(value, dict):
        return {"d": {key: _encode(item) for key, item in value.items()}}
    if value is None or isinstance(value, str | int | float):
        return value
    raise TypeError(f"cannot cache a {type(value).__name__}")


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_decode(item) for item in value)
    if isinstance(value, dict):
        if "d" in value:
            return {key: _decode(item) for key, item in value["d"].items()}
        return _decode_model(value)
    if value is None or isinstance(value, str | int | float):
        return value
    raise _Miss


def _decode_model(value: dict[str, Any]) -> Strict:
    cls = _MODELS[value["m"]]
    fields = {name: _decode(field) for name, field in value["f"].items()}
    if fields.keys() != _FIELDS[value["m"]]:
        raise _Miss
    model = cls.__new__(cls)
    origin = value["o"]
    texts = {
        name: TextOrigin(int(line), int(column), bool(exact))
        for name, (line, column, exact) in value["t"].items()
    }
    # What pydantic's model_construct sets, without its per-field work: the values were
    # validated when the cache was written, and the checksum shows they are unchanged.
    object.__setattr__(model, "__dict__", fields)
    object.__setattr__(model, "__pydantic_fields_set__", set(value["s"]))
    object.__setattr__(model, "__pydantic_extra__", None)
    object.__setattr__(
        model,
        "__pydantic_private__",
        {"_origin": None if origin is None else Origin(*origin), "_texts": texts},
    )
    return model


def _encode_library(library: Library) -> dict[str, Any]:
    return {
        "notes": [_encode(note) for note in library.notes.values()],
        "decks": [_encode(deck) for deck in library.decks.values()],
        "problems": [[p.path, p.line, p.column, p.message, p.hint] for p in library.problems],
    }


def _decode_library(data: dict[str, Any], root: Path) -> Library:
    notes = [_decode_model(item) for item in data["notes"]]
    decks = [_decode_model(item) for item in data["decks"]]
    if not all(isinstance(n, Note) for n in notes) or not all(isinstance(d, Deck) for d in decks):
        raise _Miss
    return Library(
        root=root,
        notes=types.MappingProxyType({note.id: note for note in notes if isinstance(note, Note)}),
        decks=types.MappingProxyType({deck.id: deck for deck in decks if isinstance(deck, Deck)}),
        problems=tuple(LoadProblem(*problem) for problem in data["problems"]),
    )

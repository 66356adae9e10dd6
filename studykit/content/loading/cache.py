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

A hit checks the whole JSON's shape but gives the decks' outlines at once and builds the
pydantic models (importing pydantic) on the first read of a note or deck: the first screen
needs none. Models that still will not build (a forged file with a good checksum) raise
`CacheDamaged`, which removes the file so that a reload reads the YAML.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import tempfile
import threading
import time
import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import studykit
from studykit.content.loading.gcpause import gc_paused
from studykit.content.loading.library import Library, yaml_files
from studykit.content.loading.outline import CardOutline, DeckOutline
from studykit.content.loading.problems import LoadProblem
from studykit.content.ordinals import card_ordinals
from studykit.core.easydays import loads_of
from studykit.core.errors import StudykitError
from studykit.core.files import FileRefused, read_regular
from studykit.core.jsontypes import JsonObject

if TYPE_CHECKING:
    from studykit.content.model import Deck, Note, Strict

FORMAT = 5
"""Bump when the layout below changes (5: notes have `facts` and `labels`, decks `labels`)."""
MAX_CACHE_BYTES = 128 * 1024 * 1024
"""A larger library is not cached (and a larger file is not read): it loads from YAML."""
SETTLE_NS = 2_000_000_000
"""A file modified this recently may change again within its mtime's tick: no cache then."""

_MODEL_NAMES = frozenset(
    {
        "Note",
        "Section",
        "Claim",
        "Measurement",
        "ExperimentRef",
        "Tolerance",
        "Deck",
        "Card",
        "ParamSpec",
        "Example",
        "Agreement",
        "Definition",
        "Fact",
        "Growth",
    }
)
"""The classes of studykit.content.model the cache holds (a name outside these is a miss)."""
_PACKAGE = Path(studykit.__file__).resolve().parent


class _Miss(Exception):
    """The cache file cannot be used."""


class CacheDamaged(StudykitError):
    """The cache passed its checks but its models would not build (it has been removed)."""


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
        library = _decode_library(json.loads(payload), root, path)
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


def _encode_library(library: Library) -> JsonObject:
    from studykit.content.model import Strict

    def encode(value: object) -> Any:
        if isinstance(value, Strict):
            origin = value.origin
            texts = value.text_origins
            return {
                "m": type(value).__name__,
                "f": {name: encode(getattr(value, name)) for name in type(value).model_fields},
                "s": sorted(value.model_fields_set),
                "o": None if origin is None else [origin.path, origin.line, origin.column],
                "t": {name: [t.line, t.column, t.exact] for name, t in texts.items()},
            }
        if isinstance(value, tuple):
            return [encode(item) for item in value]
        if isinstance(value, dict):
            return {"d": {key: encode(item) for key, item in value.items()}}
        if value is None or isinstance(value, str | int | float):
            return value
        raise TypeError(f"cannot cache a {type(value).__name__}")

    return {
        "notes": [encode(note) for note in library.notes.values()],
        "decks": [encode(deck) for deck in library.decks.values()],
        "problems": [[p.path, p.line, p.column, p.message, p.hint] for p in library.problems],
    }


# -- decoding ---------------------------------------------------------------------------------

# A hit reads the JSON and checks its whole shape at once, but builds the pydantic models
# (importing pydantic and studykit.content.model) only when something first needs a note or a deck:
# the deck list is built from the outlines alone. One decode serves both mappings.

M = TypeVar("M")
ModelBuilder = Callable[[str, JsonObject, list[Any], Any, JsonObject], Any]


def _walk(value: Any, build: ModelBuilder) -> Any:
    """Decode one JSON value; each model's parts go to `build` (a miss for any bad shape)."""
    if isinstance(value, list):
        return tuple(_walk(item, build) for item in value)
    if isinstance(value, dict):
        if "d" in value:
            return {key: _walk(item, build) for key, item in value["d"].items()}
        name, origin, texts = value["m"], value["o"], value["t"]
        if name not in _MODEL_NAMES or not isinstance(texts, dict):
            raise _Miss
        if origin is not None and len(origin) != 3:
            raise _Miss
        fields = {field: _walk(item, build) for field, item in value["f"].items()}
        return build(name, fields, list(value["s"]), origin, texts)
    if value is None or isinstance(value, str | int | float):
        return value
    raise _Miss


def _shape_only(name: str, fields: JsonObject, set_: list[Any], origin: Any, texts: Any) -> None:
    """The check of a hit: `_walk` with no model built."""


@functools.cache
def _models() -> tuple[dict[str, type[Strict]], dict[str, frozenset[str]]]:
    """The model classes by name, and each one's field names (imports pydantic)."""
    from studykit.content import model

    classes: dict[str, type[Strict]] = {name: getattr(model, name) for name in _MODEL_NAMES}
    return classes, {name: frozenset(cls.model_fields) for name, cls in classes.items()}


def _build_model(
    name: str, fields: JsonObject, set_: list[Any], origin: Any, texts: JsonObject
) -> Strict:
    from studykit.content.model import Origin, TextOrigin

    classes, field_names = _models()
    if fields.keys() != field_names[name]:
        raise _Miss
    text_origins = {
        field: TextOrigin(int(line), int(column), bool(exact))
        for field, (line, column, exact) in texts.items()
    }
    # The values were validated when the cache was written, and the checksum shows they are
    # unchanged: pydantic's model_construct takes them as they are.
    model = classes[name].model_construct(set(set_), **fields)
    model.locate(None if origin is None else Origin(*origin))
    model.locate_texts(text_origins)
    return model


def _typed(value: Any, *kinds: type) -> Any:
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise _Miss
    return value


def _card_outline(card: JsonObject) -> CardOutline:
    """A card's id and ordinals straight from its JSON."""
    fields = card["f"]
    kind, front = _typed(fields["kind"], str), _typed(fields["front"], str)
    return CardOutline(_typed(fields["id"], str), card_ordinals(kind, front))


def _outline(deck: JsonObject) -> DeckOutline:
    """A deck's outline straight from its JSON (checked by `_walk` before)."""
    fields = deck["f"]
    cards = _typed(fields["cards"], list)
    return DeckOutline(
        id=_typed(fields["id"], str),
        name=_typed(fields["name"], str),
        description=_typed(fields["description"], str),
        note=_typed(fields["note"], str, type(None)),
        desired_retention=_typed(fields["desired_retention"], float, int, type(None)),
        new_per_day=_typed(fields["new_per_day"], int, type(None)),
        reviews_per_day=_typed(fields["reviews_per_day"], int, type(None)),
        cards=tuple(map(_card_outline, cards)),
        easy_days=_easy_days(fields["easy_days"]),
        bury_new_siblings=_typed(fields["bury_new_siblings"], bool, type(None)),
        bury_review_siblings=_typed(fields["bury_review_siblings"], bool, type(None)),
    )


def _easy_days(value: Any) -> tuple[float, ...] | None:
    """A deck's Easy Days from the cache's JSON (`{"d": {"sat": 0.5}}`), or None."""
    if value is None:
        return None
    try:
        return loads_of(_typed(value["d"], dict))
    except (TypeError, KeyError, ValueError) as error:
        raise _Miss from error


class _Deferred:
    """The notes and decks of a hit as JSON, built into models once, on first need."""

    def __init__(self, path: Path, notes: list[Any], decks: list[Any]) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._raw: tuple[list[Any], list[Any]] | None = (notes, decks)
        self._built: tuple[dict[str, Note], dict[str, Deck]] | None = None

    def notes(self) -> dict[str, Note]:
        return self._models()[0]

    def decks(self) -> dict[str, Deck]:
        return self._models()[1]

    def _models(self) -> tuple[dict[str, Note], dict[str, Deck]]:
        with self._lock:
            if self._built is None:
                assert self._raw is not None
                try:
                    with gc_paused():
                        notes = [_walk(item, _build_model) for item in self._raw[0]]
                        decks = [_walk(item, _build_model) for item in self._raw[1]]
                except Exception as error:
                    self._path.unlink(missing_ok=True)
                    raise CacheDamaged(
                        f"The library cache {self._path} did not match studykit's models "
                        "(it has been removed): press r to reload the decks."
                    ) from error
                self._built = ({n.id: n for n in notes}, {d.id: d for d in decks})
                self._raw = None
            return self._built


class _Lazy(Mapping[str, M]):
    """Models by id; the ids are known at once, the models built on first access to one."""

    def __init__(self, ids: Iterable[str], models: Callable[[], Mapping[str, M]]) -> None:
        self._ids = dict.fromkeys(ids)
        self._models = models

    def __getitem__(self, key: str) -> M:
        if key not in self._ids:
            raise KeyError(key)
        return self._models()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, key: object) -> bool:
        return key in self._ids

    def __repr__(self) -> str:
        return f"<{len(self._ids)} cached models: {', '.join(self._ids)}>"


def _decode_library(data: JsonObject, root: Path, path: Path) -> Library:
    notes, decks = data["notes"], data["decks"]
    for item in (*notes, *decks):
        _walk(item, _shape_only)
    if any(item["m"] != "Note" for item in notes) or any(item["m"] != "Deck" for item in decks):
        raise _Miss
    outlines = {outline.id: outline for outline in map(_outline, decks)}
    note_ids = [_typed(item["f"]["id"], str) for item in notes]
    if len(set(note_ids)) != len(note_ids) or len(outlines) != len(decks):
        raise _Miss  # the loader never keeps two of one id
    deferred = _Deferred(path, notes, decks)
    return Library(
        root=root,
        notes=_Lazy(note_ids, deferred.notes),
        decks=_Lazy(outlines, deferred.decks),
        problems=tuple(LoadProblem(*problem) for problem in data["problems"]),
        outlines=types.MappingProxyType(outlines),
    )

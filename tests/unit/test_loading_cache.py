"""The library cache: an unchanged root reads back exactly what the YAML gave; any change,
or any damage to the cache file, means the YAML is loaded again, with no error shown."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import studykit
from studykit.content.loading import Library, building, cache, load_library
from studykit.content.model import Strict
from studykit.core.config import bundled_root
from studykit.study.session import StudySession
from tests.robustness.test_read_only import read_only

BROKEN = Path(__file__).resolve().parent.parent / "data" / "broken"
GOOD_DECK = "decks/demo/good-deck.yaml"
AN_HOUR_AGO = time.time_ns() - 3600 * 10**9


def settle(root: Path, mtime_ns: int = AN_HOUR_AGO) -> None:
    """Give every file an mtime well in the past (the cache skips files written just now)."""
    for path in root.rglob("*"):
        os.utime(path, ns=(mtime_ns, mtime_ns))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The good note and deck, a deck with a problem, and a deck of computed cards."""
    root = tmp_path / "root"
    shutil.copytree(BROKEN / "good", root)
    shutil.copy(BROKEN / "decks" / "duplicate-key.yaml", root / "decks")
    settle(root)
    return root


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The roots built from YAML (not read from the cache) while the test runs."""
    built: list[Path] = []
    real = building.build_library

    def counting(root: Path) -> Library:
        built.append(root)
        return real(root)

    monkeypatch.setattr(building, "build_library", counting)
    return built


def walk(model: Strict) -> list[tuple[str, object, object, frozenset[str]]]:
    """Each model in the tree: its class, origin, text origins and set fields."""
    found = []
    for value in [model, *model.__dict__.values()]:
        items = value if isinstance(value, tuple) else (value,)
        if isinstance(value, dict):
            items = tuple(value.values())
        for item in items:
            if item is model:
                private = model.__pydantic_private__ or {}
                found.append(
                    (
                        type(model).__name__,
                        private.get("_origin"),
                        private.get("_texts"),
                        frozenset(model.model_fields_set),
                    )
                )
            elif isinstance(item, Strict):
                found.extend(walk(item))
    return found


def assert_same(cached: Library, fresh: Library) -> None:
    assert cached.root == fresh.root
    assert list(cached.notes) == list(fresh.notes)
    assert list(cached.decks) == list(fresh.decks)
    assert cached.problems == fresh.problems
    for name in ("notes", "decks"):
        for key, model in getattr(fresh, name).items():
            again = getattr(cached, name)[key]
            assert again == model
            assert type(again) is type(model)
            assert walk(again) == walk(model)


def test_a_hit_gives_exactly_what_the_yaml_gave(
    root: Path, tmp_path: Path, builds: list[Path]
) -> None:
    fresh = load_library(root)
    assert fresh.problems and fresh.decks  # both kinds of result are kept
    first = load_library(root, cache_dir=tmp_path / "cache")
    second = load_library(root, cache_dir=tmp_path / "cache")
    assert builds == [root, root]  # the plain load and the miss; the hit built nothing
    assert_same(first, fresh)
    assert_same(second, fresh)
    card = second.decks["good-deck"].cards[0]
    assert card.origin is not None and card.origin.line > 1
    assert card.text_origin("front") is not None


def bundled_copy(tmp_path: Path) -> tuple[Path, Library]:
    """A settled copy of the bundled content, loaded afresh, and its cache written."""
    root = tmp_path / "bundled"
    for folder in ("content", "decks"):
        shutil.copytree(bundled_root() / folder, root / folder)
    settle(root)
    fresh = load_library(root)
    load_library(root, cache_dir=tmp_path / "cache")
    return root, fresh


def test_bundled_content_reads_back_the_same(tmp_path: Path, builds: list[Path]) -> None:
    """Every kind of field the real notes and decks use (claims, measurements, computed cards)."""
    root, fresh = bundled_copy(tmp_path)
    assert_same(load_library(root, cache_dir=tmp_path / "cache"), fresh)
    assert len(builds) == 2


@pytest.mark.parametrize(
    "change",
    ["same size, new mtime", "new file", "removed file", "renamed file"],
)
def test_a_changed_root_is_loaded_again(
    root: Path, tmp_path: Path, builds: list[Path], change: str
) -> None:
    load_library(root, cache_dir=tmp_path / "cache")
    deck = root / GOOD_DECK
    if change == "same size, new mtime":
        text = deck.read_text(encoding="utf-8")
        assert "Demo::Good" in text
        deck.write_text(text.replace("Demo::Good", "Demo::Fine"), encoding="utf-8")
        settle(root, AN_HOUR_AGO + 10**9)  # another past second, as an edit would give
    elif change == "new file":
        shutil.copy(deck, root / "decks" / "copy.yaml")
        settle(root)
    elif change == "removed file":
        (root / "decks" / "duplicate-key.yaml").unlink()
    else:
        (root / "decks" / "duplicate-key.yaml").rename(root / "decks" / "renamed.yaml")
    library = load_library(root, cache_dir=tmp_path / "cache")
    assert builds == [root, root]
    assert_same(library, load_library(root))
    if change == "same size, new mtime":
        assert library.decks["good-deck"].name == "Demo::Fine"
    elif change == "removed file":
        assert not library.problems
    elif change == "renamed file":
        assert library.bad_files == ("decks/renamed.yaml",)


def _flip_a_payload_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-10] ^= 0x01
    path.write_bytes(bytes(data))


def _reshape_with_a_good_checksum(path: Path) -> None:
    head, _, payload = path.read_bytes().partition(b"\n")
    body = json.loads(payload)
    body["decks"][0]["m"] = "Os"  # a class the cache does not know
    payload = json.dumps(body).encode()
    header = json.loads(head)
    header["sha256"] = hashlib.sha256(payload).hexdigest()
    path.write_bytes(json.dumps(header).encode() + b"\n" + payload)


def _replace_with_a_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


DAMAGE: dict[str, Callable[[Path], object]] = {
    "empty": lambda path: path.write_bytes(b""),
    "truncated": lambda path: path.write_bytes(path.read_bytes()[:-100]),
    "garbage": lambda path: path.write_bytes(os.urandom(4000)),
    "flipped byte": _flip_a_payload_byte,
    "other format": lambda path: path.write_bytes(
        path.read_bytes().replace(f'"format": {cache.FORMAT}'.encode(), b'"format": 0', 1)
    ),
    "unknown model, good checksum": _reshape_with_a_good_checksum,
    "a folder": _replace_with_a_folder,
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_cache_is_rebuilt_without_a_word(
    root: Path, tmp_path: Path, builds: list[Path], damage: str
) -> None:
    cache_dir = tmp_path / "cache"
    fresh = load_library(root, cache_dir=cache_dir)
    (path,) = cache_dir.iterdir()
    DAMAGE[damage](path)
    again = load_library(root, cache_dir=cache_dir)
    assert_same(again, fresh)
    assert len(builds) == 2  # the damaged file was not used
    if damage != "a folder":
        load_library(root, cache_dir=cache_dir)
        assert len(builds) == 2  # it was rewritten, and the rewrite is a hit


def test_a_read_only_data_dir_still_loads(root: Path, tmp_path: Path, builds: list[Path]) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    with read_only(data_dir):
        library = load_library(root, cache_dir=data_dir / "cache")
        again = load_library(root, cache_dir=data_dir / "cache")
    assert_same(library, load_library(root))
    assert_same(again, library)
    assert not (data_dir / "cache").exists()
    assert len(builds) == 3


def test_a_read_only_cache_with_a_stale_file_still_loads_the_change(
    root: Path, tmp_path: Path, builds: list[Path]
) -> None:
    cache_dir = tmp_path / "cache"
    load_library(root, cache_dir=cache_dir)
    (root / "decks" / "duplicate-key.yaml").unlink()
    with read_only(cache_dir):
        library = load_library(root, cache_dir=cache_dir)
    assert not library.problems
    assert len(builds) == 2


def test_files_written_just_now_are_not_cached(root: Path, tmp_path: Path) -> None:
    """An edit within the mtime's tick could leave the key unchanged: wait until it settles."""
    cache_dir = tmp_path / "cache"
    (root / GOOD_DECK).touch()
    load_library(root, cache_dir=cache_dir)
    assert not cache_dir.exists()
    settle(root)
    load_library(root, cache_dir=cache_dir)
    assert len(list(cache_dir.iterdir())) == 1


def test_another_version_or_other_code_is_a_miss(
    root: Path, tmp_path: Path, builds: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_dir = tmp_path / "cache"
    version = studykit.__version__
    load_library(root, cache_dir=cache_dir)
    monkeypatch.setattr(studykit, "__version__", "0.0.0-other")
    load_library(root, cache_dir=cache_dir)
    assert len(builds) == 2
    monkeypatch.setattr(studykit, "__version__", version)
    load_library(root, cache_dir=cache_dir)
    load_library(root, cache_dir=cache_dir)
    assert len(builds) == 3  # the other version's file was replaced, then read
    monkeypatch.setattr(cache, "_source_files", lambda: [("loading/file.py", 1, 2)])
    load_library(root, cache_dir=cache_dir)
    assert len(builds) == 4  # a changed loader does not trust what the old one built


def test_two_roots_keep_two_caches(root: Path, tmp_path: Path, builds: list[Path]) -> None:
    other = tmp_path / "other"
    shutil.copytree(root, other)
    (other / "decks" / "duplicate-key.yaml").unlink()
    settle(other)
    cache_dir = tmp_path / "cache"
    for _ in range(2):
        assert load_library(root, cache_dir=cache_dir).problems
        assert not load_library(other, cache_dir=cache_dir).problems
    assert builds == [root, other]


def test_an_image_removed_or_added_after_caching_is_seen(
    root: Path, tmp_path: Path, builds: list[Path]
) -> None:
    deck = root / GOOD_DECK
    text = deck.read_text(encoding="utf-8")
    deck.write_text(text.replace("back: The decay.", "back: The decay. ![curve](curve.svg)"))
    image = deck.parent / "curve.svg"
    image.write_text('<svg xmlns="http://www.w3.org/2000/svg"/>', encoding="utf-8")
    settle(root)
    cache_dir = tmp_path / "cache"

    assert load_library(root, cache_dir=cache_dir).problems == load_library(root).problems
    assert not [p for p in load_library(root, cache_dir=cache_dir).problems if "curve" in p.message]
    built = len(builds)

    image.unlink()  # the YAML is untouched: only the watched image tells
    missing = [p for p in load_library(root, cache_dir=cache_dir).problems if "curve" in p.message]
    assert [(p.path, p.line) for p in missing] == [(GOOD_DECK, 8)]
    assert len(builds) == built + 1

    image.write_text('<svg xmlns="http://www.w3.org/2000/svg"/>', encoding="utf-8")
    settle(root)
    load_library(root, cache_dir=cache_dir)  # rebuilt and cached again
    again = load_library(root, cache_dir=cache_dir)
    assert not [p for p in again.problems if "curve" in p.message]
    assert image.resolve() in again.watched


def test_a_hit_builds_its_models_once_on_first_use(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ids, counts and outlines come from the JSON; the first deck or note read builds all."""
    fresh = load_library(root, cache_dir=tmp_path / "cache")
    built: list[str] = []
    real = cache._build_model

    def counting(name: str, *parts: Any) -> Strict:
        built.append(name)
        return real(name, *parts)

    monkeypatch.setattr(cache, "_build_model", counting)
    hit = load_library(root, cache_dir=tmp_path / "cache")
    assert list(hit.decks) == list(fresh.decks) and list(hit.notes) == list(fresh.notes)
    assert "good-deck" in hit.decks and "nothing" not in hit.decks
    assert hit.decks.get("nothing") is None
    assert hit.deck_outlines() == fresh.deck_outlines()  # from the JSON; from the models
    assert hit.problems == fresh.problems
    assert built == []
    hit.decks["good-deck"]
    assert "Deck" in built and "Note" in built and "Card" in built
    count = len(built)
    assert_same(hit, fresh)
    hit.ready()
    assert len(built) == count  # built once, for both mappings


def test_a_session_over_a_hit_serves_what_it_counts(
    tmp_path: Path, make_session: Callable[..., StudySession]
) -> None:
    root, fresh = bundled_copy(tmp_path)
    hit = load_library(root, cache_dir=tmp_path / "cache")
    served = make_session(fresh), make_session(hit)
    assert served[0].deck_counts() == served[1].deck_counts()
    for deck_id in fresh.decks:
        cards = [session.next_card(deck_id) for session in served]
        assert cards[0] is not None and cards[1] is not None
        assert cards[1] == cards[0]  # the same card, key and state: the model at its outline


def rename_a_card_field(path: Path) -> None:
    """A shape the JSON check passes (every class known) whose models cannot be built."""
    head, _, payload = path.read_bytes().partition(b"\n")
    body = json.loads(payload)
    card = body["decks"][0]["f"]["cards"][0]["f"]
    card["bakc"] = card.pop("back")  # not `front`: the outline reads that from the JSON
    payload = json.dumps(body).encode()
    header = json.loads(head)
    header["sha256"] = hashlib.sha256(payload).hexdigest()
    path.write_bytes(json.dumps(header).encode() + b"\n" + payload)


def test_models_that_will_not_build_say_so_and_the_cache_is_rebuilt(
    root: Path, tmp_path: Path, builds: list[Path]
) -> None:
    cache_dir = tmp_path / "cache"
    fresh = load_library(root, cache_dir=cache_dir)
    (path,) = cache_dir.iterdir()
    rename_a_card_field(path)
    hit = load_library(root, cache_dir=cache_dir)
    assert len(builds) == 1 and list(hit.decks) == list(fresh.decks)
    with pytest.raises(cache.CacheDamaged, match="press r to reload"):
        hit.ready()
    assert not path.exists()
    assert_same(load_library(root, cache_dir=cache_dir), fresh)  # r: loaded from the YAML
    assert len(builds) == 2

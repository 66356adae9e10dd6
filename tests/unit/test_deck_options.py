"""Deck options written back to the deck's YAML: only the changed values differ, byte for byte.

Real files in tmp_path, loaded by the project's loader; real SQLite sessions on them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from studykit.content.deckfile import DeckOptions, EditRefused, read_deck_file, write_options
from studykit.content.loading import load_library
from studykit.core.config import Settings
from studykit.core.errors import StudykitError
from studykit.study.deck_options import OptionsError, parse_options
from studykit.study.session import NotLoadedError, StudySession
from tests.conftest import make_deck, make_library

Factory = Callable[..., StudySession]
REL = "decks/demo/limits.yaml"

# Comments everywhere, odd spacing, a trailing comment on each option, CRLF-free.
DECK = """\
# yaml-language-server: $schema=../../schema/deck.schema.json
# A deck whose options a student edits from the app.
id: limits   # stable forever
name: "Demo::Limits"

description: >-
  Folded text that
  spans two lines.
tags: [demo]    # every card gets these
new_per_day:   7    # a few at a time
reviews_per_day: 120 # keep it small
desired_retention: 0.85    # a bit lower
cards:
  # --- the cards ---
  - id: one
    front: One?   # first
    back: "1"
  - id: two
    front: Two?
    back: '2'
  - {id: three, front: "Three?", back: "3"}
"""

BARE = """\
# No options at all.
id: bare
name: Demo::Bare
tags: [demo]  # a comment after the last one-line key
cards:
  - id: one
    front: One?
    back: "1"
"""


def deck_root(tmp_path: Path, text: str = DECK, rel: str = REL) -> Path:
    root = tmp_path / "root"
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    (root / "content").mkdir(exist_ok=True)
    return root


def open_session(make_session: Factory, tmp_path: Path, root: Path) -> StudySession:
    library = load_library(root)
    assert not library.problems, library.problems
    settings = Settings(root=root, data_dir=tmp_path / "data", enable_fuzzing=False)
    return make_session(library, settings=settings)


def test_changed_values_are_the_only_bytes_that_change(
    make_session: Factory, tmp_path: Path
) -> None:
    root = deck_root(tmp_path)
    session = open_session(make_session, tmp_path, root)
    form = session.deck_options.read("limits")
    assert (form.new_per_day, form.reviews_per_day, form.desired_retention) == (7, 120, 0.85)

    assert session.deck_options.write(form, (12, 120, 0.9))

    expected = DECK.replace("new_per_day:   7    #", "new_per_day:   12    #").replace(
        "desired_retention: 0.85    #", "desired_retention: 0.9    #"
    )
    assert (root / REL).read_bytes() == expected.encode("utf-8")
    assert not [p for p in (root / REL).parent.iterdir() if p.name != "limits.yaml"]
    # The reloaded session runs on the new limits: 3 cards, but a new limit of 12 and 2 now.
    reloaded = open_session(make_session, tmp_path, root)
    assert reloaded.outlines["limits"].new_per_day == 12
    assert reloaded.outlines["limits"].desired_retention == 0.9
    form = reloaded.deck_options.read("limits")
    assert reloaded.deck_options.write(form, (2, 120, 0.9))
    assert open_session(make_session, tmp_path, root).remaining("limits") == (2, 0, 0)


def test_a_missing_option_gets_its_own_line_after_the_keys_before_it(
    make_session: Factory, tmp_path: Path
) -> None:
    root = deck_root(tmp_path, BARE, "decks/bare.yaml")
    session = open_session(make_session, tmp_path, root)
    form = session.deck_options.read("bare")
    defaults = session.settings
    assert (form.new_per_day, form.desired_retention) == (
        defaults.new_per_day,
        defaults.desired_retention,
    )
    # Unchanged values (config.toml's) are not written; changed ones are added in key order.
    assert session.deck_options.write(form, (5, defaults.reviews_per_day, 0.8))
    expected = BARE.replace(
        "last one-line key\n", "last one-line key\ndesired_retention: 0.8\nnew_per_day: 5\n"
    )
    assert (root / "decks/bare.yaml").read_text(encoding="utf-8") == expected


def test_crlf_files_keep_their_line_breaks(tmp_path: Path) -> None:
    text = BARE.replace("\n", "\r\n")
    root = deck_root(tmp_path, text, "decks/bare.yaml")
    file = read_deck_file(root, "bare", "decks/bare.yaml")
    write_options(file, DeckOptions(reviews_per_day=50))
    data = (root / "decks/bare.yaml").read_bytes()
    assert data == text.replace("key\r\n", "key\r\nreviews_per_day: 50\r\n").encode()


def test_nothing_changed_writes_nothing(make_session: Factory, tmp_path: Path) -> None:
    root = deck_root(tmp_path)
    path = root / REL
    before = path.stat().st_mtime_ns
    session = open_session(make_session, tmp_path, root)
    assert not session.deck_options.write(session.deck_options.read("limits"), (7, 120, 0.85))
    assert path.stat().st_mtime_ns == before


@pytest.mark.parametrize(
    ("new", "reviews", "retention", "says"),
    [
        ("abc", "100", "0.9", "New cards per day: type a whole number from 0 to 9999"),
        ("-1", "100", "0.9", "New cards per day: type a whole number from 0 to 9999"),
        ("10000", "100", "0.9", "New cards per day: type a whole number from 0 to 9999"),
        ("", "100", "0.9", "New cards per day"),
        ("٣", "100", "0.9", "New cards per day"),  # an Arabic-Indic three: isdigit, not ASCII
        ("5", "100000", "0.9", "Reviews per day: type a whole number from 0 to 99999"),
        ("5", "1e3", "0.9", "Reviews per day"),
        ("5", "100", "0.7", "Desired retention: type a number above 0.7 and below 0.995"),
        ("5", "100", "0.995", "Desired retention"),
        ("5", "100", "1", "Desired retention"),
        ("5", "100", "90%", "Desired retention"),
        ("5", "100", "0.9125", "at most 3 decimals"),
        ("5", "100", "nan", "Desired retention"),
    ],
)
def test_bad_values_are_refused_with_what_to_type(
    new: str, reviews: str, retention: str, says: str
) -> None:
    with pytest.raises(OptionsError, match=says):
        parse_options(new, reviews, retention)


def test_good_values_parse() -> None:
    assert parse_options(" 0 ", "99999", ".95") == (0, 99999, 0.95)
    assert parse_options("20", "200", "0.925") == (20, 200, 0.925)


def test_a_file_changed_after_it_was_read_is_not_overwritten(
    make_session: Factory, tmp_path: Path
) -> None:
    root = deck_root(tmp_path)
    session = open_session(make_session, tmp_path, root)
    form = session.deck_options.read("limits")
    edited = DECK.replace("# --- the cards ---", "# --- the cards (edited in an editor) ---")
    (root / REL).write_text(edited, encoding="utf-8")

    with pytest.raises(EditRefused, match="changed since it was read; nothing was written"):
        session.deck_options.write(form, (12, 120, 0.85))

    assert (root / REL).read_text(encoding="utf-8") == edited
    assert [p.name for p in (root / REL).parent.iterdir()] == ["limits.yaml"]


def test_a_file_changed_since_the_session_loaded_it_is_not_read(
    make_session: Factory, tmp_path: Path
) -> None:
    root = deck_root(tmp_path)
    session = open_session(make_session, tmp_path, root)
    (root / REL).write_text(DECK.replace("new_per_day:   7", "new_per_day: 9"), encoding="utf-8")
    with pytest.raises(StudykitError, match=r"changed since it was loaded\. Press r to reload"):
        session.deck_options.read("limits")


def test_a_result_that_would_not_load_is_refused(tmp_path: Path) -> None:
    root = deck_root(tmp_path)
    file = read_deck_file(root, "limits", REL)
    with pytest.raises(EditRefused, match=r"would not load .*desired_retention"):
        write_options(file, DeckOptions(desired_retention=0.5))  # the model wants above 0.7
    assert (root / REL).read_bytes() == DECK.encode("utf-8")
    assert [p.name for p in (root / REL).parent.iterdir()] == ["limits.yaml"]


@pytest.mark.parametrize(
    "line",
    [
        "new_per_day: '7'",  # quoted
        "new_per_day: &seven 7",  # an anchor another key might use
        "new_per_day: !!int 7",  # a tag
    ],
)
def test_values_it_cannot_rewrite_in_place_are_refused(tmp_path: Path, line: str) -> None:
    text = DECK.replace("new_per_day:   7    # a few at a time", line)
    root = deck_root(tmp_path, text)
    with pytest.raises(EditRefused, match="`new_per_day` is not a plain number"):
        write_options(read_deck_file(root, "limits", REL), DeckOptions(new_per_day=3))
    assert (root / REL).read_bytes() == text.encode("utf-8")


def test_only_a_deck_the_loader_loaded_from_a_file_is_edited(make_session: Factory) -> None:
    session = make_session(make_library([make_deck("built")]))
    with pytest.raises(NotLoadedError):
        session.deck_options.read("nowhere")
    with pytest.raises(StudykitError, match="was not loaded from a file"):
        session.deck_options.read("built")


def test_a_link_is_not_written_through(tmp_path: Path) -> None:
    root = deck_root(tmp_path)
    outside = tmp_path / "outside.yaml"
    outside.write_text(DECK, encoding="utf-8")
    link = root / "decks/link.yaml"
    link.symlink_to(outside)
    with pytest.raises(EditRefused, match="is a link"):
        read_deck_file(root, "limits", "decks/link.yaml")

"""YAML -> models: every problem at file:line:col, one bad file never stops the others."""

from __future__ import annotations

import re
import shutil
import string
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studykit.content.loading import MAX_FILE_BYTES, Library, LoadProblem, load_library, yamlnodes
from studykit.content.model import Origin
from studykit.core.config import ConfigError, bundled_root

BROKEN = Path(__file__).resolve().parent.parent / "data" / "broken"
GOOD_NOTE = "content/demo/good-note.yaml"
GOOD_DECK = "decks/demo/good-deck.yaml"
LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")  # what YAML counts as a new line


@pytest.fixture(params=["libyaml", "python"])
def yaml_loader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with libyaml's safe loader and with PyYAML's pure-Python one."""
    if request.param == "libyaml":
        if not hasattr(yaml, "CSafeLoader"):
            pytest.skip("PyYAML was built without libyaml")
        monkeypatch.setattr(yamlnodes, "_Loader", yaml.CSafeLoader)
    else:
        monkeypatch.setattr(yamlnodes, "_Loader", yaml.SafeLoader)
    return str(request.param)


def good_root(tmp_path: Path) -> Path:
    """A copy of the good note and deck that the broken files are loaded next to."""
    root = tmp_path / "root"
    shutil.copytree(BROKEN / "good", root)
    return root


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def only_problem(library: Library) -> LoadProblem:
    assert len(library.problems) == 1, [str(p) for p in library.problems]
    return library.problems[0]


def assert_good_loaded(library: Library) -> None:
    assert "good-note" in library.notes
    assert "good-deck" in library.decks
    assert GOOD_NOTE not in library.bad_files
    assert GOOD_DECK not in library.bad_files


# (fixture file, expected file:line:col, a phrase the message or hint must contain)
BROKEN_CASES = [
    (
        "decks/unknown-field.yaml",
        "6:5",
        "unknown field `bakc` in card `typo`; did you mean `back`?",
    ),
    ("decks/wrong-type.yaml", "3:20", "expected a number, got 'abc'"),
    ("decks/missing-field.yaml", "7:5", "card `no-front` is missing `front`; add `front:`"),
    (
        "decks/duplicate-key.yaml",
        "7:5",
        "duplicate key `back`: it is on line 6 and again on line 7",
    ),
    ("decks/tab-indent.yaml", "6:1", "replace the tab with spaces"),
    ("decks/syntax-error.yaml", "5:17", "must be in quotes"),
    ("decks/not-utf8.yaml", "5:15", "not valid UTF-8 (byte 0xe9)"),
    ("decks/alias-bomb.yaml", "7:4", "aliases expand to more than 100,000 values"),
    ("decks/python-tag.yaml", "5:12", "`!!python/object/apply:os.system` is not allowed"),
    ("decks/top-level-list.yaml", "1:1", "must be a mapping of fields"),
    ("decks/empty-file.yaml", "1:1", "the file is empty"),
    ("decks/empty-front.yaml", "5:12", "card `one`: `front` is empty"),
    ("decks/duplicate-card-id.yaml", "7:9", "duplicate card id `same`"),
    ("decks/duplicate-deck-id.yaml", "1:5", "already used by decks/demo/good-deck.yaml:2:1"),
    ("decks/dangling-note.yaml", "3:7", "no note has that id; did you mean `good-note`?"),
    (
        "decks/dangling-source.yaml",
        "12:13",
        "card `two` cites section `detials`, which note `good-note` does not have; "
        "did you mean `details`?",
    ),
    ("content/duplicate-note-id.yaml", "1:5", "already used by content/demo/good-note.yaml:2:1"),
    ("content/duplicate-section-id.yaml", "7:9", "duplicate section id `same`"),
    ("content/duplicate-claim-id.yaml", "16:13", "the claim on line 8 already has it"),
    ("content/not-a-number.yaml", "11:17", "expected a number, got 'about 2.7e-7'"),
]


def test_every_broken_fixture_has_a_case() -> None:
    on_disk = {
        path.relative_to(BROKEN).as_posix()
        for folder in ("decks", "content")
        for path in (BROKEN / folder).iterdir()
    }
    assert on_disk == {case[0] for case in BROKEN_CASES}


@pytest.mark.parametrize(("fixture", "position", "phrase"), BROKEN_CASES)
def test_broken_file_is_reported_and_the_rest_loads(
    tmp_path: Path, yaml_loader: str, fixture: str, position: str, phrase: str
) -> None:
    root = good_root(tmp_path)
    shutil.copy(BROKEN / fixture, root / fixture)

    library = load_library(root)

    problem = only_problem(library)
    assert f"{problem.path}:{problem.line}:{problem.column}" == f"{fixture}:{position}"
    assert phrase in str(problem)
    assert library.bad_files == (fixture,)
    assert_good_loaded(library)
    assert len(library.notes) == 1
    assert len(library.decks) == 1


def test_good_root_loads_with_origins(tmp_path: Path) -> None:
    library = load_library(good_root(tmp_path))

    assert library.problems == ()
    assert library.bad_files == ()
    note = library.notes["good-note"]
    deck = library.decks["good-deck"]
    assert library.note_for(deck) is note
    assert note.origin == Origin(GOOD_NOTE, 2, 1)
    assert [s.origin for s in note.sections] == [Origin(GOOD_NOTE, 6, 5), Origin(GOOD_NOTE, 15, 5)]
    assert note.sections[0].claims[0].origin == Origin(GOOD_NOTE, 11, 9)
    assert deck.origin == Origin(GOOD_DECK, 2, 1)
    assert [str(c.origin) for c in deck.cards] == [f"{GOOD_DECK}:6:5", f"{GOOD_DECK}:10:5"]
    assert note.sections[0].body == "The decay $\\gamma^{k}$ shrinks fast.\n"


def test_a_bom_is_fine(tmp_path: Path) -> None:
    root = good_root(tmp_path)
    shutil.copy(BROKEN / "with-bom.yaml", root / "decks" / "with-bom.yaml")
    assert (root / "decks" / "with-bom.yaml").read_bytes().startswith(b"\xef\xbb\xbf")

    library = load_library(root)

    assert library.problems == ()
    assert library.decks["with-bom"].origin == Origin("decks/with-bom.yaml", 1, 1)


def test_file_over_the_size_cap_is_refused_unparsed(tmp_path: Path) -> None:
    root = good_root(tmp_path)
    big = root / "decks" / "big.yaml"
    big.write_bytes(b"id: big\n" + b"# padding\n" * (MAX_FILE_BYTES // 10 + 1))

    problem = only_problem(load_library(root))

    assert (problem.path, problem.line, problem.column) == ("decks/big.yaml", 1, 1)
    assert "MB limit" in problem.message
    assert problem.hint == "split it into smaller notes or decks"


def test_utf16_file_gets_an_encoding_hint(tmp_path: Path) -> None:
    root = good_root(tmp_path)
    (root / "decks" / "wide.yaml").write_bytes("id: wide\n".encode("utf-16"))

    problem = only_problem(load_library(root))

    assert problem.path == "decks/wide.yaml"
    assert problem.hint == "it looks like UTF-16; save it as UTF-8"


def test_control_character_is_located(tmp_path: Path, yaml_loader: str) -> None:
    root = good_root(tmp_path)
    write(root, "decks/ctrl.yaml", "id: ctrl\nname: Ctrl\ncards:\n  - id: a\n    front: é\x01?\n")

    problem = only_problem(load_library(root))

    assert (problem.line, problem.column) == (5, 13)
    assert "control character U+0001" in problem.message


def test_double_quoted_latex_gets_an_escape_hint(tmp_path: Path, yaml_loader: str) -> None:
    root = good_root(tmp_path)
    write(root, "decks/esc.yaml", 'id: esc\nname: Esc\ncards:\n  - id: a\n    front: "\\sqrt{2}"\n')

    problem = only_problem(load_library(root))

    assert (problem.path, problem.line) == ("decks/esc.yaml", 5)
    assert "unknown escape" in problem.message
    assert problem.hint is not None and "single quotes" in problem.hint


DECK_HEAD = "id: d\nname: D\nnote: good-note\ncards:\n"


@pytest.mark.parametrize(
    ("cards", "position", "phrase"),
    [
        (
            "  - id: a\n    kind: basik\n    front: F\n    back: B\n",
            "6:11",
            "`kind` in card `a` must be one of basic, reversed, cloze, numeric, symbolic; "
            "got 'basik'; did you mean `basic`?",
        ),
        (
            "  - id: Bad Id\n    front: F\n    back: B\n",
            "5:9",
            "must be an id (lowercase letters, digits and `-`, starting with a letter or digit); "
            "got 'Bad Id'; try `bad-id`",
        ),
        (
            "  - id: a\n    front: 42\n    back: B\n",
            "6:12",
            '`front` in card `a`: expected text, got 42; put it in quotes: `front: "42"`',
        ),
        (
            "  - id: a\n    front: 2024-01-31\n    back: B\n",
            "6:12",
            "expected text, got a date (2024-01-31)",
        ),
        (
            "  - id: a\n    front: F\n    back: B\n    tags: solo\n",
            "8:11",
            "`tags` in card `a`: expected a list (`- item` lines), got 'solo'",
        ),
        (
            "  - id: a\n    front: F\n    back:\n",
            "7:10",
            "card `a`: a `basic` card needs a non-empty `back`",
        ),
        (
            "  - id: a\n    kind: cloze\n    front: The {{c0::gate}} forgets.\n",
            "7:12",
            "cloze number c0 in `front` is out of range: number deletions from c1 to c500",
        ),
        (
            "  - id: a\n    kind: cloze\n    front: '{{c1::a}} and {{c501::b}}'\n",
            "7:12",
            "cloze number c501 in `front` is out of range",
        ),
        (
            f"  - id: a\n    kind: cloze\n    front: '{{{{c{'9' * 5000}::b}}}}'\n",
            "7:12",
            "cloze number c99999999… in `front` is out of range",
        ),
        (
            "  - id: a\n    kind: numeric\n    front: F\n    answer: x\n"
            "    tolerance: {abs: 1, rel: 2}\n",
            "9:16",
            "`tolerance` of card `a`: give exactly one of `abs`, `rel` or `sig_figs`",
        ),
        (
            "  - id: a\n    kind: numeric\n    front: F\n    answer: x\n"
            "    params: {g: {choices: [0.9, [1]]}}\n",
            "9:33",
            "`choices` item 2 in parameter `g` of card `a`: expected a number or text, got a list",
        ),
        (
            "  - id: a\n    front: F\n    back: B\n    experiment: {name: e, params: {x: [1]}}\n",
            "8:39",
            "`params.x` in `experiment` of card `a`: expected text, a number or `true`/`false`",
        ),
        ("  - 5\n", "5:5", "card #1 must be a mapping (`key: value` lines), got 5"),
        (
            "  - {id: a, front: F, back: B}\n---\nid: e\n",
            "6:1",
            "but found another document; keep one YAML document per file",
        ),
        ("  - id: a\n    front: F\n    back: B\n    ? [x]\n    : y\n", "8:7", "plain text"),
        ("  - &c {id: a, front: F, back: *c}\n", "5:26", "refers to the list or mapping"),
        ("  - id: a\n    front: F\n    back: !!int abc\n", "7:11", "not a valid `!!int` value"),
        (
            "  - id: a\n    front: !custom F\n    back: B\n",
            "6:12",
            "tag `!custom` is not supported",
        ),
        ("  - id: a\n    front: F\n    back: B\n    source: nowhere\n", "8:13", "its sections are"),
    ],
)
def test_card_problems_are_located(
    tmp_path: Path, yaml_loader: str, cards: str, position: str, phrase: str
) -> None:
    root = good_root(tmp_path)
    write(root, "decks/d.yaml", DECK_HEAD + cards)

    library = load_library(root)

    problem = only_problem(library)
    assert f"{problem.line}:{problem.column}" == position, str(problem)
    assert phrase in str(problem)
    assert "d" not in library.decks
    assert_good_loaded(library)


def test_empty_cards_list_and_note_number_hints(tmp_path: Path) -> None:
    root = good_root(tmp_path)
    write(root, "decks/d.yaml", "id: d\nname: D\ncards: []\n")
    write(
        root,
        "content/n.yaml",
        "id: n\nnumber: 4.10\ntitle: T\nsections:\n  - {id: s, title: S, body: B}\n",
    )

    library = load_library(root)

    messages = [str(p) for p in library.problems]
    assert messages == [
        "content/n.yaml:2:9: `number` in note `n`: expected text, got 4.1; "
        'put it in quotes: `number: "4.10"`',
        "decks/d.yaml:3:8: `cards` in deck `d` needs at least 1 item(s); "
        "add an item under `cards:`",
    ]


def test_missing_top_level_field(tmp_path: Path) -> None:
    root = good_root(tmp_path)
    write(root, "decks/d.yaml", "# no id\nname: D\ncards:\n  - {id: a, front: F, back: B}\n")
    write(root, "content/n.yaml", "id: n\ntitle: T\n")

    library = load_library(root)

    assert [str(p) for p in library.problems] == [
        "content/n.yaml:1:1: note `n` is missing `sections`; add `sections:`",
        "decks/d.yaml:2:1: the deck is missing `id`; add `id:`",
    ]


def test_several_problems_in_one_file_are_all_reported(tmp_path: Path) -> None:
    root = good_root(tmp_path)
    write(
        root,
        "decks/d.yaml",
        "id: d\nname: D\nname: E\ncards:\n  - id: a\n    frnt: F\n    back: B\n  - id: b\n",
    )

    library = load_library(root)

    assert [(p.line, p.column) for p in library.problems] == [(3, 1), (5, 5), (6, 5), (8, 5)]
    assert "card `a` is missing `front`" in library.problems[1].message
    assert "did you mean `front`?" in str(library.problems[2])
    assert "card `b` is missing `front`" in library.problems[3].message


def test_list_whose_items_all_fail_is_not_also_called_empty(tmp_path: Path) -> None:
    root = good_root(tmp_path)
    write(root, "decks/d.yaml", "id: d\nname: D\ncards:\n  - id: a\n    front: F\n")

    problem = only_problem(load_library(root))

    assert "needs a non-empty `back`" in problem.message


def test_merge_keys_and_aliases_work(tmp_path: Path, yaml_loader: str) -> None:
    root = good_root(tmp_path)
    write(
        root,
        "decks/merge.yaml",
        "id: merge\nname: Merge\nnote: good-note\ncards:\n"
        "  - &base\n    id: a\n    front: F\n    back: B\n    source: intro\n"
        "  - <<: *base\n    id: b\n    back: Other\n",
    )

    library = load_library(root)

    assert library.problems == ()
    first, second = library.decks["merge"].cards
    assert (second.id, second.front, second.back, second.source) == ("b", "F", "Other", "intro")
    assert second.origin == Origin("decks/merge.yaml", 10, 5)
    assert first.origin == Origin("decks/merge.yaml", 5, 5)  # where `&base` starts it


def test_problem_inside_merged_mapping_points_at_its_source(tmp_path: Path) -> None:
    root = good_root(tmp_path)
    write(
        root,
        "decks/merge.yaml",
        "id: merge\nname: Merge\nx: &shared {bakc: B}\ncards:\n  - <<: *shared\n    id: a\n"
        "    front: F\n    back: B\n",
    )

    library = load_library(root)

    # `x` itself is an unknown deck field; the merged `bakc` is reported where it is written.
    assert [str(p).split(";")[0] for p in library.problems] == [
        "decks/merge.yaml:3:1: unknown field `x` in deck `merge`",
        "decks/merge.yaml:3:13: unknown field `bakc` in card `a`",
    ]


def test_plain_keys_are_taken_as_written(tmp_path: Path) -> None:
    root = good_root(tmp_path)
    write(
        root,
        "decks/keys.yaml",
        "id: keys\nname: Keys\ncards:\n  - id: a\n    kind: numeric\n    front: F\n"
        "    answer: x\n    params: {yes: {min: 1, max: 2}, 3: {choices: [1]}}\n",
    )

    library = load_library(root)

    assert library.problems == ()
    assert set(library.decks["keys"].cards[0].params) == {"yes", "3"}


def test_deck_whose_note_failed_to_load_says_so(tmp_path: Path) -> None:
    root = good_root(tmp_path)
    write(root, "content/broken.yaml", "id: broken\ntitle: B\nsections: nope\n")
    write(
        root,
        "decks/d.yaml",
        "id: d\nname: D\nnote: broken\ncards:\n  - {id: a, front: F, back: B}\n",
    )

    library = load_library(root)

    assert library.bad_files == ("content/broken.yaml", "decks/d.yaml")
    deck_problem = library.problems[1]
    assert str(deck_problem) == (
        "decks/d.yaml:3:7: deck `d` cites note `broken`, which did not load; "
        "fix the problems in content/broken.yaml"
    )
    assert_good_loaded(library)


def test_source_without_a_note(tmp_path: Path) -> None:
    root = good_root(tmp_path)
    write(
        root, "decks/d.yaml", "id: d\nname: D\ncards:\n  - {id: a, front: F, back: B, source: x}\n"
    )

    problem = only_problem(load_library(root))

    assert str(problem) == (
        "decks/d.yaml:4:40: card `a` cites section `x`, but deck `d` names no `note:`; "
        "add `note: <note id>` to the deck"
    )


def test_first_file_in_path_order_keeps_a_duplicate_id(tmp_path: Path) -> None:
    root = good_root(tmp_path)
    write(root, "decks/a/z.yaml", "id: same\nname: First\ncards:\n  - {id: a, front: F, back: B}\n")
    write(
        root, "decks/b/a.yaml", "id: same\nname: Second\ncards:\n  - {id: a, front: F, back: B}\n"
    )

    library = load_library(root)

    assert library.decks["same"].name == "First"
    assert library.bad_files == ("decks/b/a.yaml",)
    assert "decks/a/z.yaml:1:1" in library.problems[0].message


def test_file_discovery_and_deck_order(tmp_path: Path) -> None:
    root = good_root(tmp_path)
    card = "cards:\n  - {id: a, front: F, back: B}\n"
    write(root, "decks/x.yml", f"id: yml\nname: alpha\n{card}")
    write(root, "decks/.hidden.yaml", "not: [valid")
    write(root, "decks/.git/x.yaml", "not: [valid")
    write(root, "decks/notes.txt", "not: [valid")
    write(root, "decks/zeta.yaml", f"id: zeta\nname: Beta\n{card}")

    library = load_library(root)

    assert library.problems == ()
    assert list(library.decks) == ["yml", "zeta", "good-deck"]  # by name: alpha, Beta, Demo::Good


def test_missing_folders_give_an_empty_library(tmp_path: Path) -> None:
    library = load_library(tmp_path)
    assert (dict(library.notes), dict(library.decks), library.problems) == ({}, {}, ())


def test_library_maps_are_read_only(tmp_path: Path) -> None:
    library = load_library(good_root(tmp_path))
    with pytest.raises(TypeError):
        library.decks["x"] = library.decks["good-deck"]  # type: ignore[index]


def test_load_problem_str() -> None:
    problem = LoadProblem(
        "decks/x.yaml", 12, 5, "unknown field `bakc` in card `foo`", "did you mean `back`?"
    )
    assert (
        str(problem)
        == "decks/x.yaml:12:5: unknown field `bakc` in card `foo`; did you mean `back`?"
    )
    assert str(LoadProblem("a.yaml", 1, 1, "empty")) == "a.yaml:1:1: empty"


def test_bundled_content_loads_without_problems() -> None:
    try:
        root = bundled_root()
    except ConfigError as error:
        pytest.skip(f"no bundled content yet: {error}")
    if not any((root / "decks").rglob("*.yaml")) and not any((root / "content").rglob("*.yaml")):
        pytest.skip("content/ and decks/ hold no YAML yet (the content is being written)")

    library = load_library(root)

    assert [str(p) for p in library.problems] == []
    assert library.notes and library.decks
    for deck in library.decks.values():
        assert deck.origin is not None
        assert all(card.origin is not None for card in deck.cards)
        if deck.note is not None:
            assert library.note_for(deck) is not None


# --- anything in, only LoadProblems out ---------------------------------------------------


def assert_only_sane_problems(library: Library, rel: str, text_lines: int) -> None:
    for problem in library.problems:
        assert isinstance(problem, LoadProblem)
        assert problem.path == rel
        assert 1 <= problem.line <= text_lines + 1
        assert problem.column >= 1
        assert problem.message
    assert_good_loaded(library)


def fresh_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz") / "root"
    shutil.copytree(BROKEN / "good", root)
    return root


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=400) | st.text(max_size=400).map(lambda t: t.encode("utf-8")))
def test_arbitrary_bytes_only_give_load_problems(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    root = fresh_root(tmp_path_factory)
    (root / "decks" / "fuzz.yaml").write_bytes(data)

    library = load_library(root)

    text = data.decode("utf-8", errors="replace")
    assert_only_sane_problems(library, "decks/fuzz.yaml", len(LINE_BREAK.findall(text)))


KEYS = st.sampled_from(
    [
        "id",
        "name",
        "note",
        "cards",
        "front",
        "back",
        "kind",
        "source",
        "tags",
        "params",
        "answer",
        "tolerance",
        "experiment",
        "abs",
        "choices",
        "min",
        "max",
        "bakc",
        "<<",
    ]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-10, 10**6)
    | st.floats(allow_nan=True)
    | st.text(alphabet=string.ascii_lowercase + " -:{}1", max_size=12)
    | st.sampled_from(
        ["good-note", "intro", "basic", "cloze", "numeric", "{{c1::x}}", "2024-01-01"]
    )
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=25,
)
DECKISH = st.fixed_dictionaries(
    {"id": st.sampled_from(["fz", "good-deck", "Bad Id"]), "name": SCALARS},
    optional={
        "note": SCALARS,
        "cards": st.lists(st.dictionaries(KEYS, VALUES, max_size=7), max_size=4),
    },
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deck=DECKISH, style=st.sampled_from([False, None, True]))
def test_random_deck_shapes_only_give_load_problems(
    tmp_path_factory: pytest.TempPathFactory, deck: dict[str, object], style: bool | None
) -> None:
    root = fresh_root(tmp_path_factory)
    text = yaml.safe_dump(deck, default_flow_style=style, allow_unicode=True)
    (root / "decks" / "fz.yaml").write_text(text, encoding="utf-8")

    library = load_library(root)

    assert_only_sane_problems(library, "decks/fz.yaml", len(LINE_BREAK.findall(text)))
    assert ("fz" in library.decks) == (library.problems == ())


YAML_TOKENS = st.sampled_from(
    [
        "id: fz\n",
        "name: N\n",
        "cards:\n",
        "  - ",
        "    ",
        "front: ",
        "back: ",
        "kind: ",
        "x",
        "1",
        "&a ",
        "*a",
        "&b ",
        "*b",
        "<<: ",
        "!!str ",
        "!!int ",
        "!!set ",
        "!!python/tuple ",
        "!t ",
        "? ",
        ": ",
        "- ",
        "{",
        "}",
        "[",
        "]",
        ", ",
        "'",
        '"',
        "\\",
        "#",
        "\t",
        "\n",
        "---\n",
        "|\n",
        "null",
        "~",
        "2024-01-01",
        "0x1f",
        ".inf",
        "=",
        "%YAML 1.1\n",
        "\r",
        "\x85",
        "\u2028",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tokens=st.lists(YAML_TOKENS, max_size=40))
def test_yaml_token_soup_only_gives_load_problems(
    tmp_path_factory: pytest.TempPathFactory, tokens: list[str]
) -> None:
    root = fresh_root(tmp_path_factory)
    text = "".join(tokens)
    (root / "decks" / "soup.yaml").write_text(text, encoding="utf-8")

    library = load_library(root)

    assert_only_sane_problems(library, "decks/soup.yaml", len(LINE_BREAK.findall(text)))


def test_cloze_numbers_anki_gives_a_card_each_load(tmp_path: Path) -> None:
    root = good_root(tmp_path)
    front = "'{{c01::a}}, {{c2::b}} and {{c500::c}}'"
    write(root, "decks/d.yaml", DECK_HEAD + f"  - id: a\n    kind: cloze\n    front: {front}\n")
    library = load_library(root)
    assert not library.problems and "d" in library.decks

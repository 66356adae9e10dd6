"""The type-in notetype's script (studykit/export/typein.js), run by node against our own grader.

Each case is graded twice: by `studykit.quiz.grade` (what the app accepts) and by the script
(what Anki shows), and the verdicts must agree: right, wrong, or not readable. The script reads
what was typed back out of Anki's own comparison HTML, made here by the real Anki backend.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest
from anki.import_export_pb2 import ImportAnkiPackageUpdateCondition

from studykit.content.loading import Library, load_library
from studykit.content.model import COMPUTED_KINDS, Card, Deck
from studykit.export import export_anki
from studykit.export.apkgfile import computed_script
from studykit.export.variants import baked_variants
from studykit.quiz import draw_variant, grade

NODE = shutil.which("node") or shutil.which("nodejs")
needs_node = pytest.mark.skipif(
    NODE is None,
    reason="node is not installed (Debian: apt-get install nodejs); "
    "the type-in script cannot be run",
)
SCRIPT = Path(__file__).parents[2] / "studykit" / "export" / "typein.js"
GARBAGE = ("abc", "", "   ", "1e999", "0.8.1", "1..2", "2 3", "4,096", "#1", "1 +", "x" * 301)
IF_NEWER = ImportAnkiPackageUpdateCondition.IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER
RUNNER = """
const typein = require(process.argv[1]);
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = cases.map(([kind, a, b]) => {
  if (kind === "grade") return typein.grade(a, typein.readCheck(b)).correct;
  if (kind === "typed") return typein.typedFromComparison(a);
  const verdict = typein.verdictFromHtml(a);
  return verdict === null ? "none" : verdict;
});
process.stdout.write(JSON.stringify(out));
"""


def run_node(cases: list[tuple[str, str, str]], script: Path = SCRIPT) -> list[object]:
    """One node process for a batch: ("grade", typed, check) / ("typed", html) / ("back", html)."""
    assert NODE is not None
    done = subprocess.run(
        [NODE, "-e", RUNNER, str(script)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: list[object] = json.loads(done.stdout)
    return result


@pytest.fixture(scope="module")
def computed(bundled_library: Library) -> list[tuple[Deck, Card]]:
    library = bundled_library
    cards = [
        (deck, card)
        for deck in library.decks.values()
        for card in deck.cards
        if card.kind in COMPUTED_KINDS
    ]
    assert any(c.kind == "numeric" for _, c in cards) and any(
        c.kind == "symbolic" for _, c in cards
    )
    return cards


def check_of(back: str) -> str:
    match = re.search(r"<div id=sk-check-data hidden>(.*?)</div>", back, re.DOTALL)
    assert match is not None, back
    return match.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def answers_for(kind: str, answer: str, check: str) -> Iterator[str]:
    """Right, near (inside the tolerance), wrong (outside) and garbage answers."""
    yield from (answer, f"  {answer} ", f"+{answer}" if not answer.startswith("-") else answer)
    yield from GARBAGE
    if kind == "symbolic":
        yield from (answer.replace("**", "^"), f"({answer}) + 1", f"2*({answer})", "q")
        return
    _, value, rule, amount = check.split()
    expected = float(value)
    if rule == "sig":  # half a unit of the last significant figure
        step = 10.0 ** (math.floor(math.log10(abs(expected))) - int(amount) + 1) / 2
    elif rule == "rel":
        step = abs(expected) * float(amount)
    else:
        step = float(amount)
    for factor in (0.4, -0.4, 3, -3, 30):
        yield repr(expected + factor * step)
    yield f"{expected:.6e}"  # scientific notation
    yield f"{expected * 100:.10g}/100"  # arithmetic, as the app accepts


@needs_node
def test_script_agrees_with_the_grader_on_every_bundled_computed_card(
    computed: list[tuple[Deck, Card]],
) -> None:
    cases: list[tuple[str, str, str]] = []
    expected: list[bool | None] = []
    for deck, card in computed:
        variants = baked_variants(deck, card, 3)
        assert variants, card.id
        for variant in variants:
            assert variant.seed is not None
            check = variant.check
            drawn = draw_variant(card, variant.seed)
            for typed in answers_for(card.kind, variant.answer, check):
                cases.append(("grade", typed, check))
                expected.append(grade(drawn, typed).correct)
    got = run_node(cases)
    wrong = [
        (case[1], case[2], want, had)
        for case, want, had in zip(cases, expected, got, strict=True)
        if want != had
    ]
    assert not wrong, wrong[:10]
    # The cases reach every verdict for both kinds.
    assert {True, False, None} <= set(expected)


@needs_node
@pytest.mark.parametrize(
    ("typed", "check", "verdict"),
    [
        ("0.8145", "numeric 0.814506 rel 0.01", True),  # issue 13's case
        ("0.81", "numeric 0.814506 rel 0.01", True),  # inside 1 %
        ("0.80", "numeric 0.814506 rel 0.01", False),  # outside 1 %
        ("8.145e-1", "numeric 0.814506 rel 0.01", True),
        ("-0.8145", "numeric -0.814506 rel 0.01", True),
        ("+0.8145", "numeric 0.814506 rel 0.01", True),
        ("0,8145", "numeric 0.814506 rel 0.01", True),  # a decimal comma
        ("1e-3", "numeric 0.001 abs 0.0001", True),
        ("0.0011", "numeric 0.001 abs 0.0001", True),  # edge included
        ("0.0012", "numeric 0.001 abs 0.0001", False),
        ("1000.4", "numeric 1000 abs 0.5", True),  # absolute: 0.04 % off but 0.4 away
        ("1004", "numeric 1000 rel 0.01", True),  # relative: 4 away but 0.4 % off
        ("1004", "numeric 1000 abs 0.5", False),
        ("0.00123", "numeric 0.0012345 sig 3", True),
        ("0.00124", "numeric 0.0012345 sig 3", False),
        ("abc", "numeric 1 abs 0.1", None),
        ("", "numeric 1 abs 0.1", None),
        ("1e999", "numeric 1 abs 0.1", None),
        ("0.8.1", "numeric 1 abs 0.1", None),
        ("1-tanh(z)^2", "symbolic\n1 - tanh(z)**2", True),  # issue 13's case
        ("1/cosh(z)**2", "symbolic\n1 - tanh(z)**2", True),
        ("1+tanh(z)**2", "symbolic\n1 - tanh(z)**2", False),
        ("1-tanh(y)^2", "symbolic\n1 - tanh(z)**2", None),
    ],
)
def test_right_near_wrong_and_garbage(typed: str, check: str, verdict: bool | None) -> None:
    assert run_node([("grade", typed, check)]) == [verdict]


@needs_node
def test_typed_text_is_read_back_from_ankis_comparison(tmp_path: Path) -> None:
    col = Collection(str(tmp_path / "c.anki2"))
    try:
        pairs = [
            ("0.814506", "0.8145"),
            ("0.814506", "0.814506"),
            ("0.814506", ""),
            ("1 - tanh(z)**2", "1-tanh(z)^2"),
            ("5", "abc 12"),
            ("0.5", ".5"),
            ("a<b & c", "a<b&c >"),
            ("12", "1e999"),
        ]
        cases = [("typed", col.compare_answer(exp, typed), "") for exp, typed in pairs]
    finally:
        col.close()
    assert run_node(cases) == [typed for _, typed in pairs]


@needs_node
def test_the_script_in_an_imported_card_grades_what_was_typed(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "decks").mkdir(parents=True)
    (root / "decks" / "t.yaml").write_text(
        """id: t
name: T
cards:
  - id: share
    kind: numeric
    front: "Share of {n} in 100?"
    params: {n: {choices: [81.4506]}}
    answer: "n / 100"
    tolerance: {rel: 0.01}
  - id: deriv
    kind: symbolic
    front: "d/dz tanh(z)?"
    answer: "1 - tanh(z)**2"
    defines: "diff(tanh(z), z)"
""",
        encoding="utf-8",
    )
    result = export_anki(load_library(root), tmp_path / "t.apkg")
    col = Collection(str(tmp_path / "anki.anki2"))
    try:
        options = ImportAnkiPackageOptions(update_notes=IF_NEWER, update_notetypes=IF_NEWER)
        col.import_anki_package(
            ImportAnkiPackageRequest(package_path=str(result.path), options=options)
        )
        backs = {}
        for cid in col.find_cards(""):
            card = col.get_card(cid)
            backs[card.note()["Front"]] = (card.answer(), card.note()["Answer"])
        share = next(v for k, v in backs.items() if "Share" in k)
        deriv = next(v for k, v in backs.items() if "tanh" in k)
        assert "Accepted: <code>1 - tanh(z)**2</code>" in deriv[0], deriv[0][-3000:-2000]
        assert "<code>diff(tanh(z), z)</code>" in deriv[0]
        script = re.search(r"<script>\n(.*?)</script>", share[0], re.DOTALL)
        assert script is not None and script.group(1) == computed_script()

        def shown(back: str, expected: str, typed: str) -> str:
            # What Anki's reviewer does with the back: its comparison in place of the field.
            return back.replace("[[type:Answer]]", col.compare_answer(expected, typed))

        cases = [
            ("back", shown(*share, "0.8145"), ""),
            ("back", shown(*share, "0.80"), ""),
            ("back", shown(*share, "abc"), ""),
            ("back", shown(*deriv, "1-tanh(z)^2"), ""),
            ("back", shown(*deriv, "1+tanh(z)^2"), ""),
        ]
    finally:
        col.close()
    verdicts = run_node(cases)
    assert [v["correct"] for v in verdicts] == [True, False, None, True, False]  # type: ignore[index]
    assert verdicts[0]["text"] == "✓ Right (accepted: 0.814506 ± 1 %)"  # type: ignore[index]
    assert "Could not read" in verdicts[2]["text"]  # type: ignore[index]


def test_the_script_has_no_double_brace_anki_would_read_as_a_field() -> None:
    text = SCRIPT.read_text(encoding="utf-8")
    assert "{{" not in text and "}}" not in text

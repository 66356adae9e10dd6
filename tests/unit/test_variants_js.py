"""A computed card in Anki: one card whose note carries the baked variants, and the script
(studykit/export/variants.js, run by node) that shows one per showing and grades against it."""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

import pytest
from anki.collection import Collection

from studykit.content.loading import load_library
from studykit.export import export_anki
from studykit.export.apkgfile import computed_script
from tests.unit.test_export_anki import import_package, write_root
from tests.unit.test_typein_js import NODE, needs_node

SCRIPTS = Path(__file__).parents[2] / "studykit" / "export"
RUNNER = """
const variants = require(process.argv[1]);
const typein = require(process.argv[2]);
// A stand-in for the browser's sessionStorage (node has none): the same two calls.
function store() {
  const kept = new Map();
  return {
    getItem: (k) => (kept.has(k) ? kept.get(k) : null),
    setItem: (k, v) => kept.set(k, String(v)),
  };
}
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = cases.map((c) => {
  if (c.kind === "sides") {
    // A front then its back, as a platform with (or without) storage and page variables.
    const storage = c.storage ? store() : null;
    const frontPicks = {};
    const backPicks = c.samePage ? frontPicks : {};
    const shown = [];
    for (let k = 0; k < c.times; k++) {
      const pick = (side, picks) =>
        variants.choose(c.count, c.key, side, storage, picks, Math.random, c.now);
      const front = pick("front", frontPicks);
      const back = pick("back", backPicks);
      shown.push([front, back]);
    }
    return shown;
  }
  if (c.kind === "stale") {
    const storage = store();
    storage.setItem("studykit-variant:" + c.key, c.value);
    return variants.choose(c.count, c.key, "back", storage, {}, Math.random, c.now);
  }
  if (c.kind === "day") return variants.dayVariant(c.key, c.count, c.now);
  return variants.backFor(c.html, c.index, typein);
});
process.stdout.write(JSON.stringify(out));
"""
NOW = 1_772_600_000_000  # a fixed moment (ms): the day's variant depends on it


def run(cases: list[dict[str, object]]) -> list[object]:
    assert NODE is not None
    done = subprocess.run(
        [NODE, "-e", RUNNER, str(SCRIPTS / "variants.js"), str(SCRIPTS / "typein.js")],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: list[object] = json.loads(done.stdout)
    return result


@needs_node
def test_the_back_shows_the_variant_the_front_drew_on_every_platform() -> None:
    platforms = [
        {"storage": True, "samePage": True},  # Anki desktop: one page, storage too
        {"storage": True, "samePage": False},  # AnkiDroid, AnkiMobile: the back is a new page
        {"storage": False, "samePage": True},  # no storage: the day's variant
        {"storage": False, "samePage": False},
    ]
    cases: list[dict[str, object]] = [
        {"kind": "sides", "count": 4, "key": "d/c", "times": 200, "now": NOW, **platform}
        for platform in platforms
    ]
    results = run(cases)
    for platform, shown in zip(platforms, results, strict=True):
        assert isinstance(shown, list)
        assert all(front == back for front, back in shown), platform  # the sides agree
        fronts = {front for front, _ in shown}
        assert fronts <= {0, 1, 2, 3}
        if platform["storage"]:
            assert fronts == {0, 1, 2, 3}, platform  # a fresh draw each showing
        else:
            assert len(fronts) == 1, platform  # the day's variant, every time that day


@needs_node
def test_a_single_variant_a_stale_value_and_the_next_day() -> None:
    one, stale, garbage, today, tomorrow = run(
        [
            {"kind": "sides", "count": 1, "key": "d/c", "times": 5, "now": NOW, "storage": True},
            {"kind": "stale", "count": 3, "key": "d/c", "value": "7", "now": NOW},
            {"kind": "stale", "count": 3, "key": "d/c", "value": "1x", "now": NOW},
            {"kind": "day", "count": 3, "key": "d/c", "now": NOW},
            {"kind": "day", "count": 3, "key": "d/c", "now": NOW + 86_400_000},
        ]
    )
    assert one == [[0, 0]] * 5
    assert stale == garbage == today  # out of range or unreadable: the day's variant
    assert tomorrow == (today + 1) % 3  # type: ignore[operator]


@needs_node
def test_anki_renders_one_card_with_every_variant_and_grades_the_one_shown(
    tmp_path: Path, collection: Collection
) -> None:
    root = write_root(tmp_path / "root")
    result = export_anki(load_library(root), tmp_path / "v.apkg", deck_ids=["demo"], variants=3)
    import_package(collection, result.path)
    (cid,) = collection.find_cards("effective")
    card = collection.get_card(cid)
    question, answer = card.question(), card.answer()
    for side in (question, answer):
        scripts = re.findall(r"<script>\n(.*?)</script>", side, re.DOTALL)
        assert scripts == [computed_script()]
    found = re.findall(r'data-sk-answer="([^"]*)" data-sk-check="([^"]*)"', question)
    assert len(found) == 3
    answers = [html.unescape(a) for a, _ in found]
    assert len(set(answers)) == 3 and card.note()["Answer"] == answers[0]
    assert all(html.unescape(c).startswith("numeric ") for _, c in found)

    def back(typed: str) -> str:
        # What Anki's reviewer does with the back: its comparison (against the note's
        # Answer field, the first variant) in place of the field.
        return answer.replace("[[type:Answer]]", collection.compare_answer(answers[0], typed))

    cases: list[dict[str, object]] = []
    for index, right in enumerate(answers):
        cases.append({"kind": "back", "html": back(right), "index": index})
        cases.append({"kind": "back", "html": back(answers[0]), "index": index})
    shown = run(cases)
    for index, right in enumerate(answers):
        own, first = shown[2 * index], shown[2 * index + 1]
        assert isinstance(own, dict) and isinstance(first, dict)
        assert own["answer"] == right
        assert own["verdict"]["correct"] is True  # the variant shown, within its tolerance
        assert f"accepted: {right}" in own["verdict"]["text"]
        assert right in own["comparison"]
        assert first["verdict"]["correct"] is (index == 0)  # the first variant's answer
    wrong = shown[3]
    assert isinstance(wrong, dict)
    assert "typeBad" in wrong["comparison"] and answers[1] in wrong["comparison"]


def test_the_scripts_and_templates_keep_double_braces_out_of_the_scripts() -> None:
    for name in ("variants.js", "typein.js"):
        text = (SCRIPTS / name).read_text(encoding="utf-8")
        assert "{{" not in text and "}}" not in text, name
    script = computed_script()
    assert "studykitVariants.show(document" in script and "studykitTypein" in script
    assert script.index("var studykitTypein") < script.index("var studykitVariants")


@pytest.mark.parametrize("variants", [1, 3])
def test_a_computed_card_is_one_note_and_one_card(
    tmp_path: Path, collection: Collection, variants: int
) -> None:
    root = write_root(tmp_path / "root")
    result = export_anki(
        load_library(root), tmp_path / "v.apkg", deck_ids=["demo"], variants=variants
    )
    import_package(collection, result.path)
    (nid,) = collection.find_notes("effective")
    note = collection.get_note(nid)
    assert len(note.cards()) == 1
    assert note["Variants"].count("class=sk-variant ") == variants

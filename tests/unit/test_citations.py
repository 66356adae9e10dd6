"""`{claim:ID}` / `{measured:ID}`: one renderer for notes, cards, `show` and Anki; load errors."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from studykit.checking.runner import run_check
from studykit.cli import cli
from studykit.content.citations import number_tex, render_citations
from studykit.content.loading import load_library
from studykit.content.model import Note
from studykit.core.config import bundled_root
from studykit.study.cardtext import back_markdown

NOTE = r"""id: demo-note
title: Demo
sections:
  - id: decay
    title: Decay
    body: |
      Bound $0.95^{295} \approx {claim:decay-295}$ hai, yaani {claim:decay-295}.
      Gradient {measured:k-095} steps mein girta hai; ek run {measured:run-ms} chala.

      ```
      {claim:decay-295} stays as written in code
      ```
    claims:
      - id: decay-295
        says: '0.95^{295} \approx 2.68 \times 10^{-7}'
        expr: "0.95**295"
        approx: 2.68e-7
        rel_tol: 0.005
      - id: gap
        says: '300 - 5 = 295'
        expr: "300 - 5"
        equals: "295"
      - id: pair
        says: '\sin^2 x + \cos^2 x = 1'
        expr: "sin(x)**2 + cos(x)**2 == 1"
    measured:
      - id: k-095
        experiment: effective-context
        params: {gamma: 0.95}
        answer: k
        value: 90
        tolerance: {abs: 0}
        machine: test machine
        torch: 2.13.0
      - id: run-ms
        experiment: effective-context
        params: {gamma: 0.95}
        answer: k
        value: 12.5
        unit: ms
        deterministic: false
        band: [1, 100]
        machine: test machine
        torch: 2.13.0
"""

DECK = r"""id: demo
name: Demo
note: demo-note
cards:
  - id: decay
    source: decay
    front: "$0.95^{295}$ kitna hai, {claim:gap} Jacobians ke baad?"
    back: "${claim:decay-295}$ — yaani {claim:decay-295}."
"""


def write_root(root: Path, note: str = NOTE, deck: str = DECK) -> Path:
    (root / "content").mkdir(parents=True, exist_ok=True)
    (root / "decks").mkdir(parents=True, exist_ok=True)
    (root / "content" / "note.yaml").write_text(note, encoding="utf-8")
    (root / "decks" / "demo.yaml").write_text(deck, encoding="utf-8")
    return root


def demo_note(tmp_path: Path) -> Note:
    library = load_library(write_root(tmp_path))
    assert [str(p) for p in library.problems] == []
    return library.notes["demo-note"]


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    ("value", "digits", "tex"),
    [
        (0.95**295, 3, r"2.68 \times 10^{-7}"),
        (0.95**12, 3, "0.540"),
        (62831.85, 5, "62{,}832"),
        (16777216.0, None, "16{,}777{,}216"),
        (0.5, None, "0.5"),
        (4.0078125, 2, "4.0"),
        (2.27e-13, 2, r"2.3 \times 10^{-13}"),
    ],
)
def test_numbers_are_written_to_their_significant_figures(
    value: float, digits: int | None, tex: str
) -> None:
    assert number_tex(value, digits) == tex


def test_a_claim_renders_its_computed_value_in_maths_and_in_prose(tmp_path: Path) -> None:
    note = demo_note(tmp_path)
    text = render_citations(note.sections[0].body, note)
    assert r"$0.95^{295} \approx 2.68 \times 10^{-7}$" in text
    assert r"yaani $2.68 \times 10^{-7}$." in text
    assert "{claim:decay-295} stays as written in code" in text  # fenced code untouched


def test_a_measurement_renders_its_value_and_a_timing_names_its_machine(tmp_path: Path) -> None:
    note = demo_note(tmp_path)
    text = render_citations(note.sections[0].body, note)
    assert "Gradient 90 steps" in text
    assert "ek run 12.5 ms (on test machine, cpu, torch 2.13.0) chala" in text


def test_a_card_back_renders_from_the_decks_note(tmp_path: Path) -> None:
    library = load_library(write_root(tmp_path))
    deck = library.decks["demo"]
    back = back_markdown(deck.cards[0], library.note_for(deck)).replace("\\", "")  # md escapes
    assert "2.68 × 10⁻⁷ — yaani 2.68 × 10⁻⁷." in back and "{claim" not in back


def test_an_unknown_claim_in_a_body_is_a_load_error_at_its_line(tmp_path: Path) -> None:
    note = NOTE.replace("yaani {claim:decay-295}", "yaani {claim:decay-259}")
    library = load_library(write_root(tmp_path, note=note))
    line = line_of(note, "{claim:decay-259}")
    column = note.splitlines()[line - 1].index("{claim:decay-259}") + 1
    [problem] = [p for p in library.problems if p.path == "content/note.yaml"]
    assert (problem.path, problem.line, problem.column) == ("content/note.yaml", line, column)
    assert "`{claim:decay-259}` names no claim of note `demo-note`" in problem.message
    assert problem.hint == "did you mean `decay-295`?"
    assert "demo-note" not in library.notes


def test_an_unknown_measurement_on_a_card_drops_the_deck_with_file_line(tmp_path: Path) -> None:
    deck = DECK.replace("{claim:gap}", "{measured:k-95}")
    library = load_library(write_root(tmp_path, deck=deck))
    [problem] = library.problems
    assert (problem.path, problem.line) == ("decks/demo.yaml", line_of(deck, "{measured:k-95}"))
    assert problem.hint == "did you mean `k-095`?"
    assert "demo" not in library.decks


def test_an_identity_cannot_be_cited(tmp_path: Path) -> None:
    deck = DECK.replace("{claim:gap}", "{claim:pair}")
    [problem] = load_library(write_root(tmp_path, deck=deck)).problems
    assert "cites an identity" in problem.message


def test_show_note_and_show_deck_print_the_values(tmp_path: Path) -> None:
    root = write_root(tmp_path / "root")
    runner = CliRunner()
    note = runner.invoke(cli, ["--root", str(root), "show", "note", "demo-note"])
    assert note.exit_code == 0, note.output
    assert "0.95²⁹⁵ ≈ 2.68 × 10⁻⁷" in note.output
    assert note.output.count("{claim") == 1  # only the fenced code keeps it
    shown_note = " ".join(note.output.split())
    assert "12.5 ms†" in shown_note  # the machine is said once, in the section's footnote
    assert shown_note.count("test machine") == 1
    assert "† Measured on test machine, cpu, torch 2.13.0." in shown_note
    deck = runner.invoke(cli, ["--root", str(root), "show", "deck", "demo"])
    assert deck.exit_code == 0, deck.output
    shown = " ".join(deck.output.split())
    assert "295 Jacobians ke baad?" in shown and "2.68 × 10⁻⁷" in shown


def test_show_bundled_note_has_no_raw_citations_or_latex() -> None:
    result = CliRunner().invoke(
        cli, ["--root", str(bundled_root()), "show", "note", "rnn-limitations"]
    )
    assert result.exit_code == 0, result.output
    assert not re.search(r"\{(claim|measured):|\\[a-z]+|\[(claim|measured) ", result.output)
    assert "(0.95)²⁹⁵ ≈ 2.68 × 10⁻⁷" in " ".join(result.output.split())


def test_the_anki_export_field_holds_the_value(tmp_path: Path) -> None:
    from anki.collection import Collection

    from studykit.export import export_anki

    root = write_root(tmp_path / "root")
    out = tmp_path / "demo.apkg"
    export_anki(load_library(root), out)
    assert zipfile.is_zipfile(out)
    (tmp_path / "anki").mkdir()
    col = Collection(str(tmp_path / "anki" / "c.anki2"))
    try:
        from anki.collection import ImportAnkiPackageOptions, ImportAnkiPackageRequest

        request = ImportAnkiPackageRequest(
            package_path=str(out), options=ImportAnkiPackageOptions()
        )
        col.import_anki_package(request)
        [note_id] = col.find_notes("")
        fields = col.get_note(note_id).fields
    finally:
        col.close()
    assert "295 Jacobians ke baad?" in fields[0]
    assert r"\(2.68 \times 10^{-7}\)" in fields[1]
    assert "{claim" not in fields[0] + fields[1]


def test_measured_drift_is_flagged_at_the_entrys_line(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from studykit.experiments.runner import run_in_process

    clean = run_check(
        [write_root(tmp_path / "clean")], tmp_path, run_experiments=True, runner=run_in_process
    )
    assert [str(p) for p in clean.problems] == []
    wrong = NOTE.replace("        value: 90\n", "        value: 91\n")
    wrong = wrong.replace("band: [1, 100]", "band: [1, 50]")  # the run's 90 falls outside
    root = write_root(tmp_path / "planted", note=wrong)
    data = ["--data-dir", str(tmp_path / "data")]
    result = CliRunner().invoke(cli, [*data, "check", "--run-experiments", str(root)])
    assert result.exit_code == 1, result.output
    path = root / "content" / "note.yaml"
    drifted, banded = [
        line for line in result.output.splitlines() if ": experiment measured " in line
    ]
    assert drifted.startswith(
        f"{path}:{line_of(wrong, '- id: k-095')}: experiment measured k-095: "
    )
    assert "now measures k = 90, but the entry says 91" in drifted
    assert banded.startswith(
        f"{path}:{line_of(wrong, '- id: run-ms')}: experiment measured run-ms: "
    )
    assert "now measures k = 90 ms, outside the entry's band [1, 50] ms" in banded
    assert "1 measured entries and 1 banded ones re-run (1 runs)" in result.output
    # Plain check compares the deterministic entry with the run just recorded, not the band.
    plain = CliRunner().invoke(cli, [*data, "check", str(root)])
    assert plain.exit_code == 1, plain.output
    [line] = [line for line in plain.output.splitlines() if ": experiment measured " in line]
    assert line == drifted
    assert "1 measured entries compared (1 runs recorded, 0 run now)" in plain.output
    assert "1 banded ones compared only with --run-experiments" in plain.output


def test_plain_check_flags_a_measurement_with_bad_parameters(tmp_path: Path) -> None:
    wrong = NOTE.replace(
        "params: {gamma: 0.95}\n        answer: k\n        value: 90",
        "params: {gama: 0.95}\n        answer: k\n        value: 90",
    )
    assert wrong != NOTE
    root = write_root(tmp_path, note=wrong)
    [problem] = run_check([root], root).problems
    assert (problem.line, problem.subject) == (line_of(wrong, "- id: k-095"), "measured k-095")
    assert "gama" in problem.message


def test_pending_rendering_shows_a_placeholder_and_computes_nothing(tmp_path: Path) -> None:
    """The notes screen renders with `pending`: values not computed yet are `…`, in prose
    and in maths; once computed (by anyone: show, export, check), every renderer has it."""
    from studykit.content.citations import CLAIM_VALUES, PENDING, cited_claims
    from studykit.study.cardtext import cited_markdown

    note = demo_note(tmp_path)
    text = note.sections[0].body
    [decay] = cited_claims([text], note)
    assert decay.id == "decay-295"
    CLAIM_VALUES.clear()
    pending = render_citations(text, note, pending=True)
    assert f"\\approx \\text{{{PENDING}}}$ hai, yaani {PENDING}." in pending
    assert not CLAIM_VALUES.known(decay.expr)  # nothing was computed
    assert "yaani …." in cited_markdown(text, note, pending=True)
    computed = render_citations(text, note)  # studykit show, the export: computed here
    assert CLAIM_VALUES.known(decay.expr)
    assert render_citations(text, note, pending=True) == computed
    assert "yaani $2.68 \\times 10^{-7}$." in computed


def test_a_claim_value_is_computed_once_per_expression() -> None:
    from studykit.content.citations import ClaimValues

    values = ClaimValues(limit=2)
    assert not values.known("2**10")
    assert values.value("2**10") == 1024.0
    assert values.known("2**10")
    assert values.value("no such name") is None and values.known("no such name")
    values.value("3")  # past the limit, the least recently used goes
    assert not values.known("2**10") and values.known("3")

"""`check --run-experiments`: linked experiments run on cpu and agree with their closed forms.

The runs happen in this process (`run_in_process`); test_check runs the command, with a child
process per run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from studykit.checking import run_check
from studykit.experiments import registry
from studykit.experiments.base import (
    Answer,
    ClosedForm,
    Experiment,
    Outcome,
    Param,
    Params,
    RunContext,
)
from studykit.experiments.closed_forms import expression
from studykit.experiments.runner import run_in_process

pytest.importorskip("torch")

NOTE = """\
id: fixture
title: Fixture
sections:
  - id: decay
    title: Decay
    body: Gradient decays as gamma^k.
    experiment: {name: effective-context, params: {gamma: 0.9}}
"""
DECK = """\
id: fixture
name: "Fixture"
note: fixture
cards:
  - id: k-star
    kind: numeric
    source: decay
    front: "gamma = {gamma}: k*?"
    params: {gamma: {choices: [0.8, 0.9]}}
    answer: "ceiling(log(0.01)/log(gamma))"
    tolerance: {abs: 0.5}
    experiment: {name: effective-context, params: {gamma: "{gamma}"}, answer: k}
    examples:
      - {params: {gamma: 0.8}, value: 21}
"""
WRONG = """\
  - id: doubled
    kind: numeric
    source: decay
    front: "x = {x}: 2x?"
    params: {x: {min: 1.5, max: 3}}
    answer: "2*x"
    experiment: {name: test-doubling, params: {x: "{x}"}, answer: double}
"""
OFF = """\
  - id: off-by-ten-percent
    kind: numeric
    source: decay
    front: "x = {x}: 2x?"
    params: {x: {min: 1.5, max: 3}}
    answer: "2.2*x"
    experiment: {name: test-doubling, params: {x: "{x}"}, answer: double, tolerance: {rel: 0.05}}
"""


def _double(params: Params, ctx: RunContext) -> Outcome:
    x = float(params["x"])
    return Outcome((Answer("double", "2x", 2 * x), Answer("triple", "3x", 3 * x)), "")


DOUBLING = Experiment(
    name="test-doubling",
    title="Doubling (test only)",
    summary="Doubles x.",
    params=(Param("x", "float", 1.0, "the number"),),
    run=_double,
    closed_forms=(ClosedForm("double", "2*x"), ClosedForm("triple", "4*x")),  # planted: 4x
)


@pytest.fixture
def doubling() -> Iterator[Experiment]:
    registry.register(DOUBLING)
    try:
        yield DOUBLING
    finally:
        registry.unregister(DOUBLING.name)


def fixture_root(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "content").mkdir()
    (tmp_path / "decks").mkdir()
    (tmp_path / "content" / "fixture.yaml").write_text(NOTE, encoding="utf-8")
    (tmp_path / "decks" / "fixture.yaml").write_text(DECK + extra, encoding="utf-8")
    return tmp_path


def test_agreeing_links_are_clean_and_each_distinct_run_happens_once(tmp_path: Path) -> None:
    root = fixture_root(tmp_path)
    report = run_check([root], root, run_experiments=True, runner=run_in_process)
    assert report.problems == []
    assert report.experiments is not None
    # The section runs gamma = 0.9; the card its two choices, 0.8 and 0.9: two distinct runs.
    assert report.experiments.ran == 2
    assert report.experiments.note is not None
    assert report.experiments.note.startswith("2 links compared with their closed forms")


def test_a_disagreeing_closed_form_is_reported_at_the_link(
    tmp_path: Path, doubling: Experiment
) -> None:
    root = fixture_root(tmp_path, WRONG)
    report = run_check([root], root, run_experiments=True, runner=run_in_process)
    lines = (root / "decks" / "fixture.yaml").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.strip() == "- id: doubled")
    assert [str(p) for p in report.problems] == [
        f"{root / 'decks' / 'fixture.yaml'}:{line}: experiment test-doubling: triple measured "
        "4.5, closed form 6 (`4*x`; card doubled)"
    ]
    assert report.exit_code == 1
    # gamma 0.9 and 0.8; x at the range's low end, middle and high end.
    assert report.experiments is not None and report.experiments.ran == 5


def test_a_card_formula_off_its_measured_answer_fails_only_when_run(
    tmp_path: Path, doubling: Experiment
) -> None:
    root = fixture_root(tmp_path, OFF)
    plain = run_check([root], root)
    # Its only evidence is the experiment: plain `check` counts it but cannot compare it.
    assert plain.problems == [] and plain.experiment_only == 1
    assert "1 only through an experiment" in (plain.evidence_line(ran_experiments=False) or "")
    report = run_check([root], root, run_experiments=True, runner=run_in_process)
    lines = (root / "decks" / "fixture.yaml").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.strip() == "- id: off-by-ten-percent")
    assert [str(p) for p in report.problems if p.kind == "card"] == [
        f"{root / 'decks' / 'fixture.yaml'}:{line}: card off-by-ten-percent: `double` at x={x}: "
        f"the experiment measured {2 * x:g} (±5%), the answer gives {2.2 * x:g} "
        "(`test-doubling`)"
        for x in (1.5, 2.25, 3)
    ]


PE_CARD = """\
  - id: pe-sin
    kind: numeric
    source: decay
    front: "PE(pos = {pos}, 2i) with i = {i}, d = {d}?"
    params: {pos: {choices: [5, 50]}, i: {choices: [1, 3]}, d: {choices: [16]}}
    answer: "sin(pos/BASE**(2*i/d))"
    tolerance: {abs: 0.005}
    experiment:
      name: positional-encoding
      params: {pos: "{pos}", i: "{i}", d_model: "{d}", positions: 8}
      answer: pe_sin
      tolerance: {abs: 0.000001}
"""


@pytest.mark.parametrize(("base", "wrong"), [("10000", False), ("1000", True)])
def test_a_positional_encoding_card_is_measured_by_pe_sin(
    tmp_path: Path, base: str, wrong: bool
) -> None:
    root = fixture_root(tmp_path, PE_CARD.replace("BASE", base))
    report = run_check([root], root, run_experiments=True, runner=run_in_process)
    problems = [str(p) for p in report.problems]
    if not wrong:
        assert problems == []
        return
    assert problems and all("card pe-sin: `pe_sin` at" in p for p in problems), problems
    assert report.exit_code == 1


def test_registering_a_taken_name_is_refused(doubling: Experiment) -> None:
    with pytest.raises(ValueError, match="already registered"):
        registry.register(doubling)
    assert "test-doubling" in registry.names()


def test_every_declared_closed_form_parses_over_its_parameters() -> None:
    declared = 0
    for experiment in registry.experiments().values():
        for form in experiment.closed_forms:
            expression(experiment, form)  # ExpressionError on a name that is not a parameter
            declared += 1
    assert declared >= 10

"""`studykit check`: planted mistakes are caught at file:line.

The bundled content passes through the pytest plugin (tests/unit/test_pytest_plugin.py).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from studykit.checking import DEFAULT_REL_TOL, check_card, check_claim, run_check
from studykit.content.model import Card, Claim

ROOT = Path(__file__).resolve().parents[2]
PLANTED = ROOT / "tests" / "data" / "check" / "planted"
PLANTED_NOTE = PLANTED / "content" / "planted.yaml"
PLANTED_DECK = PLANTED / "decks" / "planted.yaml"


def studykit(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYKIT_")}
    return subprocess.run(
        [sys.executable, "-m", "studykit", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=180,
        check=False,
    )


def line_of(path: Path, item_id: str) -> int:
    """The 1-based line of `- id: <item_id>` in a fixture file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.strip() == f"- id: {item_id}")


PLANTED_CLAIMS = {
    "wrong-approx": "expected 2.7e-06 (rel_tol 0.01), computed 2.68203e-07",
    "default-tolerance": "expected 14.97 (rel_tol 1e-06), computed 14.9658",
    "wrong-equals": "expected 16385, computed 16384",
    "false-identity": "the identity does not hold",
    "hostile": "bad expression: `__import__` is not an allowed function",
}
PLANTED_CARDS = {
    "divides-by-zero": "answer has no value for gamma=0.5: undefined (division by zero)",
    "undeclared-placeholder": "`{beta}` in the front is not a declared parameter",
    "log-of-range": "answer has no value for x=0",
}


def test_planted_mistakes_are_reported_at_their_lines() -> None:
    result = studykit("check", "tests/data/check/planted")
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert "Traceback" not in result.stdout + result.stderr
    for claim_id, text in PLANTED_CLAIMS.items():
        where = f"tests/data/check/planted/content/planted.yaml:{line_of(PLANTED_NOTE, claim_id)}"
        assert any(line.startswith(f"{where}: claim {claim_id}: {text}") for line in lines), (
            claim_id,
            lines,
        )
    for card_id, text in PLANTED_CARDS.items():
        where = f"tests/data/check/planted/decks/planted.yaml:{line_of(PLANTED_DECK, card_id)}"
        assert any(line.startswith(f"{where}: card {card_id}: {text}") for line in lines), (
            card_id,
            lines,
        )
    for fine in ("right-approx", "true-identity", "card fine", "symbolic-fine"):
        assert not any(fine in line for line in lines), fine
    assert lines[-1] == (
        "7 claims, 6 cards checked, 2 equations (2 verified, 0 skipped, 0 wrong), 8 problems"
    )


def test_json_is_one_document_with_the_same_problems() -> None:
    result = studykit("check", "--json", str(PLANTED))
    assert result.returncode == 1
    document = json.loads(result.stdout)
    assert (document["ok"], document["claims"], document["cards"]) == (False, 7, 6)
    found = {(p["kind"], p["id"]): p for p in document["problems"]}
    assert set(found) == {("claim", c) for c in PLANTED_CLAIMS} | {
        ("card", c) for c in PLANTED_CARDS
    }
    wrong = found[("claim", "wrong-equals")]
    assert wrong["line"] == line_of(PLANTED_NOTE, "wrong-equals")
    assert wrong["path"].endswith("tests/data/check/planted/content/planted.yaml")
    assert (wrong["expected"], wrong["computed"]) == ("16385", "16384")


def test_a_single_file_is_checked_on_its_own() -> None:
    result = studykit("check", "tests/data/check/planted/decks/planted.yaml")
    assert result.returncode == 1
    assert " claim " not in result.stdout
    assert result.stdout.splitlines()[-1] == (
        "0 claims, 6 cards checked, 0 equations (0 verified, 0 skipped, 0 wrong), 3 problems"
    )


def test_an_invalid_file_exits_1_with_its_location(tmp_path: Path) -> None:
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "bad.yaml").write_text(
        "id: bad\nname: Bad\ncards:\n  - id: a\n    front: Q\n    bakc: A\n"
    )
    result = studykit("check", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith("decks/bad.yaml:6:5: unknown field `bakc`")
    assert "Traceback" not in result.stderr


def test_a_missing_path_or_one_outside_any_root_exits_2(tmp_path: Path) -> None:
    missing = studykit("check", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr
    outside = studykit("check", str(tmp_path))
    assert outside.returncode == 2 and "content/ or decks/" in outside.stderr


def test_run_experiments_checks_linked_names_and_says_what_it_ran() -> None:
    result = studykit("check", "--run-experiments", "tests/data/check/planted/decks")
    lines = result.stdout.splitlines()
    assert result.returncode == 1  # the planted card problems
    if importlib.util.find_spec("studykit.experiments.registry") is None:
        assert "experiments: no experiments are registered yet; nothing to run" in lines
        return
    at = line_of(PLANTED_DECK, "unknown-experiment")
    where = f"tests/data/check/planted/decks/planted.yaml:{at}"
    assert any(
        line.startswith(f"{where}: experiment no-such-experiment (card unknown-experiment): ")
        for line in lines
    ), lines
    assert not any(": experiment effective-context" in line for line in lines)
    ran = (
        "experiments: PyTorch is not installed"
        if importlib.util.find_spec("torch") is None
        else "experiments: 1 link compared with their closed forms"
    )
    assert any(line.startswith(ran) for line in lines), lines
    # Every kind of link at a small size; the bundled content's full-size runs take minutes
    # (benchmarks/bench_check_experiments.py runs them).
    clean = studykit("check", "--run-experiments", "tests/data/check/linked")
    assert clean.returncode == 0, clean.stdout
    if importlib.util.find_spec("torch") is not None:
        assert clean.stdout.startswith(
            "experiments: 2 links compared with their closed forms (1 run on cpu); "
        ), clean.stdout
        assert "; 1 card answer compared with measured values; 1 measured entries re-run" in (
            clean.stdout
        )


def claim(**fields: object) -> Claim:
    return Claim.model_validate({"id": "c", "says": "x", **fields})


def test_approx_without_a_tolerance_uses_rel_1e_6() -> None:
    assert DEFAULT_REL_TOL == 1e-6
    assert check_claim(claim(expr="1000001/1000000", approx=1.0000005)) is None
    assert check_claim(claim(expr="1000001/1000000", approx=1.00001)) is not None


def test_absolute_and_relative_tolerances_are_honoured() -> None:
    assert check_claim(claim(expr="2 + 0.05", approx=2.0, abs_tol=0.05)) is None
    assert check_claim(claim(expr="2 + 0.06", approx=2.0, abs_tol=0.05)) is not None
    assert check_claim(claim(expr="100*1.01", approx=100, rel_tol=0.011)) is None
    assert check_claim(claim(expr="100*1.02", approx=100, rel_tol=0.011)) is not None


def test_equals_is_exact_and_identities_are_decided() -> None:
    assert check_claim(claim(expr="ceiling(log(0.01)/log(0.95))", equals="90")) is None
    assert check_claim(claim(expr="1/3", equals="0.333333333333")) is not None
    assert check_claim(claim(expr="sin(a + b) == sin(a)*cos(b) + cos(a)*sin(b)")) is None
    finding = check_claim(claim(expr="(x + 1)**2 == x**2 + 1"))
    assert finding is not None and "does not hold" in finding.message


def test_unknown_names_in_a_closed_claim_are_bad_expressions() -> None:
    finding = check_claim(claim(expr="gamma**2", equals="1"))
    assert finding is not None and finding.message.startswith("bad expression: unknown name")


def computed(**fields: object) -> Card:
    return Card.model_validate({"id": "k", "kind": "numeric", "front": "Q?", **fields})


def test_latex_groups_are_not_placeholders() -> None:
    card = computed(
        front=r"$h_{t}$, $\frac{a}{b}$, $10^{k}$ and $\mathrm{x}$ for γ = {gamma}",
        params={"gamma": {"choices": [0.9]}},
        answer="gamma",
    )
    findings, tried = check_card(card)
    assert findings == [] and tried == 1


def test_every_choice_and_range_point_is_tried() -> None:
    card = computed(
        params={"a": {"choices": [1, 2, 3]}, "b": {"min": 1, "max": 2, "step": 0.25}},
        answer="a/b",
    )
    findings, tried = check_card(card)
    assert findings == [] and tried == 3 * 5
    bad = computed(params={"b": {"min": -1, "max": 1, "step": 0.5}}, answer="1/b")
    findings, _ = check_card(bad)
    assert [f.message for f in findings] == [
        "answer has no value for b=0: undefined (division by zero)"
    ]


def test_a_string_choice_is_reported() -> None:
    card = computed(params={"g": {"choices": ["abc"]}}, answer="g")
    findings, _ = check_card(card)
    assert "is not a number" in findings[0].message


def test_run_check_over_a_root_in_process() -> None:
    report = run_check([PLANTED], ROOT)
    assert report.exit_code == 1 and report.claims == 7 and report.cards == 6
    assert len(report.problems) == 8


@pytest.mark.parametrize("hostile", ["__import__('os').system('true')", "().__class__"])
def test_hostile_answers_are_bad_expressions(hostile: str) -> None:
    findings, tried = check_card(computed(answer=hostile))
    assert tried == 0 and findings[0].message.startswith("bad `answer` expression")

"""Complexity claims: a claim's `order` against its cost, and each `O(·)` in the text against
the orders its note's claims give (issue 25, item 2)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError

from studykit.checking import run_check
from studykit.checking.claims import check_claim
from studykit.checking.growth import growth_difference
from studykit.checking.orders import order_equations
from studykit.content.model import Claim
from tests.unit.test_check import ROOT

NOTE = "content/ai-ml/rnn-limitations.yaml"
DECK = "decks/ai-ml/rnn-limitations.yaml"
COMPUTED = "decks/ai-ml/rnn-limitations-computed.yaml"


@pytest.mark.parametrize(
    ("cost", "order", "same"),
    [
        ("(T + 1)*d", "T*d", True),
        ("2*sqrt(T)*d", "sqrt(T)*d", True),
        ("4096 + T**2", "T**2", True),
        ("T*d + T**2", "T*d", False),  # T**2 outgrows T*d as T grows
        ("T", "T**2", False),  # an order that overstates the cost is wrong too
        ("T*log(T)", "T", False),
        ("7", "1", True),
    ],
)
def test_two_growths_are_the_same_order_in_every_variable(
    cost: str, order: str, same: bool
) -> None:
    assert (growth_difference(cost, order) is None) == same


def test_a_cost_that_does_not_grow_as_its_order_fails_the_claim() -> None:
    claim = Claim.model_validate(
        {"id": "c", "says": r"O(T \cdot d)", "expr": "T**2*d", "order": "T*d"}
    )
    finding = check_claim(claim)
    assert finding is not None
    assert finding.message == (
        "the cost `T**2*d` is not O(T*d): the cost grows faster than O(T*d) in `T`"
    )
    good = Claim.model_validate({"id": "c", "says": "O(T)", "expr": "3*T + 2", "order": "T"})
    assert check_claim(good) is None


def test_a_complexity_claim_takes_no_expected_value() -> None:
    with pytest.raises(ValidationError, match="complexity claim"):
        Claim.model_validate({"id": "c", "says": "O(T)", "expr": "T", "order": "T", "equals": "1"})


def test_an_order_no_claim_gives_is_wrong_and_says_which_orders_there_are() -> None:
    orders = {"steps": "T", "weights": "T**2"}
    text = r"RNN: $O(T)$ steps; attention memory $\mathcal{O}(T^2)$, not $O(T^3)$."
    found = order_equations(text, orders)
    assert [(e.tex, e.verdict) for e in found] == [
        ("O(T)", "verified"),
        (r"\mathcal{O}(T^2)", "verified"),
        ("O(T^3)", "wrong"),
    ]
    assert found[2].reason.startswith(
        "`O(T^3)` is the order of no cost in this note (its claims give O(T) (steps), "
        "O(T**2) (weights))"
    )
    assert text[found[2].index :].startswith("O(T^3)")
    (alone,) = order_equations("$O(n)$", {})
    assert alone.verdict == "wrong" and "tied to no cost" in alone.reason


def copied(tmp_path: Path) -> Path:
    for folder in ("content", "decks"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    return tmp_path


# (file, written, planted, where the problem is reported): wrong complexities in the
# bundled content; a claim's own problem is at its `- id:` line.
PLANTS = [
    (NOTE, "memory $O(T^2)$.", "memory $O(T^3)$.", None),
    (NOTE, r"Memory $O(\sqrt{T} \cdot d)$", r"Memory $O(T \cdot \sqrt{d})$", None),
    (DECK, r"$O(T^2)$: backward", r"$O(T^2 d)$: backward", None),
    (COMPUTED, r"Memory $O(T^2)$.", r"Memory $O(T \log T)$.", None),
    (NOTE, 'expr: "(T + 1)*d"', 'expr: "(T + 1)*d*d"', "- id: bptt-memory-order"),
    (NOTE, r"says: 'O(T^2) \text{ attention", r"says: 'O(T) \text{ attention", None),
]


@pytest.mark.parametrize(("relative", "written", "planted", "at"), PLANTS)
def test_a_wrong_complexity_in_the_bundled_content_fails_at_its_line(
    tmp_path: Path, relative: str, written: str, planted: str, at: str | None
) -> None:
    root = copied(tmp_path)
    path = root / relative
    text = path.read_text(encoding="utf-8")
    assert text.count(written) == 1, written
    line = text[: text.index(at or written)].count("\n") + 1
    path.write_text(text.replace(written, planted), encoding="utf-8")
    problems = run_check([path], root).problems
    assert [(Path(p.path).name, p.line) for p in problems] == [(path.name, line)], [
        str(p) for p in problems
    ]


def test_citing_a_complexity_claim_says_to_write_its_order_instead(tmp_path: Path) -> None:
    root = copied(tmp_path)
    path = root / NOTE
    text = path.read_text(encoding="utf-8")
    written = r"- Memory: $O(T \cdot d)$ jahan"
    assert text.count(written) == 1
    path.write_text(text.replace(written, "- Memory: {claim:bptt-memory-order} jahan"), "utf-8")
    messages = [p.message for p in run_check([path], root).problems]
    assert any(
        "`{claim:bptt-memory-order}` cites a complexity claim, which has no value to show; "
        "write `$O(…)$` with its order (T*d) in the maths" in message
        for message in messages
    ), messages


@pytest.mark.parametrize(
    ("order", "variable", "exponent"),
    [("T**2", "T", 2.0), ("sqrt(T)*d", "T", 0.5), ("sqrt(T)*d", "d", 1.0), ("T*d", "B", 0.0)],
)
def test_an_orders_exponent_in_one_variable(order: str, variable: str, exponent: float) -> None:
    from studykit.checking.growth import order_exponent

    assert order_exponent(order, variable) == pytest.approx(exponent)


# A claim's order against the measured growth exponent it names (issue 25, item 2).
GROWTH_PLANTS = [
    # O(T·d) backed by the softmax weights' exponent 2: linear is not quadratic.
    ("growth: {measured: bptt-rnn-growth,", "growth: {measured: bptt-weights-growth,", "2"),
    # O(T²) backed by the states' exponent ~1.
    ("growth: {measured: bptt-weights-growth,", "growth: {measured: bptt-rnn-growth,", "0.997"),
    ("growth: {measured: bptt-rnn-growth,", "growth: {measured: bptt-rnn-grow,", "known: "),
]


@pytest.mark.parametrize(("written", "planted", "said"), GROWTH_PLANTS)
def test_a_complexity_claim_against_a_measured_exponent_fails_at_its_line(
    tmp_path: Path, written: str, planted: str, said: str
) -> None:
    root = copied(tmp_path)
    path = root / NOTE
    text = path.read_text(encoding="utf-8")
    assert text.count(written) == 1, written
    at = text.index(written)
    line = text[: text.rindex("- id: ", 0, at)].count("\n") + 1  # the claim's `- id:` line
    path.write_text(text.replace(written, planted), encoding="utf-8")
    problems = run_check([path], root).problems
    assert [(Path(p.path).name, p.line) for p in problems] == [(path.name, line)], [
        str(p) for p in problems
    ]
    assert said in problems[0].message


def test_growth_belongs_to_a_complexity_claim() -> None:
    with pytest.raises(ValidationError, match="give the claim an `order`"):
        Claim.model_validate(
            {
                "id": "c",
                "says": "x",
                "expr": "1",
                "equals": "1",
                "growth": {"measured": "m", "variable": "T"},
            }
        )

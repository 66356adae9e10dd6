"""Computed cards: seeded variants, tolerance edges, symbolic equivalence, unreadable input."""

from __future__ import annotations

from pathlib import Path

import pytest

from studykit.content.loading import load_library
from studykit.content.model import COMPUTED_KINDS, Card, Tolerance
from studykit.quiz import DEFAULT_TOLERANCE, draw_variant, format_number, grade
from studykit.quiz.grading import within
from studykit.quiz.variants import fill, placeholders

ROOT = Path(__file__).resolve().parents[2]


def numeric(answer: str, tolerance: dict[str, float] | None = None, **params: object) -> Card:
    return Card.model_validate(
        {
            "id": "n",
            "kind": "numeric",
            "front": "Q " + " ".join(f"{{{name}}}" for name in params),
            "params": params,
            "answer": answer,
            **({"tolerance": tolerance} if tolerance else {}),
        }
    )


def symbolic(answer: str, **params: object) -> Card:
    return Card.model_validate(
        {"id": "s", "kind": "symbolic", "front": "Q?", "params": params, "answer": answer}
    )


@pytest.mark.parametrize(
    ("given", "expected", "tolerance", "ok"),
    [
        (90.5, 90.0, Tolerance(abs=0.5), True),
        (89.5, 90.0, Tolerance(abs=0.5), True),
        (90.5001, 90.0, Tolerance(abs=0.5), False),
        (101.0, 100.0, Tolerance(rel=0.01), True),
        (98.99, 100.0, Tolerance(rel=0.01), False),
        (-101.0, -100.0, Tolerance(rel=0.01), True),
        (89.8, 89.78, Tolerance(sig_figs=3), True),  # the rounded value passes
        (89.83, 89.78, Tolerance(sig_figs=3), True),  # half a unit of the last figure
        (89.84, 89.78, Tolerance(sig_figs=3), False),
        (90.0, 89.78, Tolerance(sig_figs=2), True),
        (89.0, 89.78, Tolerance(sig_figs=2), False),
        (2.68e-7, 2.68203e-7, Tolerance(sig_figs=3), True),
        (2.7e-7, 2.68203e-7, Tolerance(sig_figs=3), False),
        (0.0, 0.0, Tolerance(sig_figs=3), True),
        (1e-9, 0.0, Tolerance(sig_figs=3), False),
    ],
)
def test_tolerance_edges(given: float, expected: float, tolerance: Tolerance, ok: bool) -> None:
    assert within(given, expected, tolerance) is ok


def test_numeric_answers_are_graded_with_the_cards_tolerance() -> None:
    card = numeric("ceiling(log(0.01)/log(gamma))", {"abs": 0.5}, gamma={"choices": [0.95]})
    variant = draw_variant(card, 1)
    assert variant.values == {"gamma": 0.95} and variant.expected() == 90
    right = grade(variant, "90")
    assert right.correct is True and right.expected_latex == "90"
    assert grade(variant, " 90.4 ").correct is True
    wrong = grade(variant, "89")
    assert wrong.correct is False and wrong.given_latex == "89"
    assert grade(variant, "log(0.01)/log(0.95)").correct is True  # 89.78, within 0.5


def test_numbers_may_be_typed_the_way_people_write_them() -> None:
    card = numeric("32*512", {"abs": 0.5})
    variant = draw_variant(card, 0)
    for typed in ("16384", "2^14", "512×32", "1.6384e4"):
        assert grade(variant, typed).correct is True, typed
    assert grade(variant, "16385").correct is False


@pytest.mark.parametrize("typed", ["4,096", "16,384", "-4,096"])
def test_a_comma_before_three_digits_is_ambiguous_and_refused(typed: str) -> None:
    verdict = grade(draw_variant(numeric("4096"), 0), typed)
    assert verdict.correct is None and "could mean" in verdict.message


def test_a_decimal_comma_is_read_with_a_visible_note() -> None:
    variant = draw_variant(numeric("0.2624"), 0)
    right = grade(variant, "0,2624")
    assert right.correct is True and "read 0,2624 as 0.2624" in right.message
    assert grade(variant, "0,26").correct is False  # read as 0.26: out of three figures
    assert grade(draw_variant(numeric("0.096"), 0), "0,096").correct is True  # 0 is no group
    assert grade(draw_variant(numeric("-2.5"), 0), "-2,5").correct is True


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("4,", "`4,` is not a number: write 4 or 4.5 (a decimal comma needs digits after it)."),
        (" -4, ", "`-4,` is not a number: write -4 or -4.5"),
        ("4.5,", "`4.5,` is not a number: write 4.5 (no comma at the end)."),
        ("4, 5", "`4, 5` is more than one number: type one (a decimal: 4.5 or 4,5)."),
    ],
)
def test_a_stray_comma_says_what_to_type_instead(typed: str, says: str) -> None:
    verdict = grade(draw_variant(numeric("4"), 0), typed)
    assert verdict.correct is None and verdict.message.startswith(says)
    assert "tuple" not in verdict.message


def test_a_comma_in_an_expression_answer_says_where_commas_go() -> None:
    verdict = grade(draw_variant(symbolic("x**2"), 0), "x, x**2")
    assert verdict.correct is None and "tuple" not in verdict.message
    assert verdict.message.startswith("`x, x**2` is more than one expression: type one")


def test_thousands_in_several_groups_are_plain_numbers() -> None:
    verdict = grade(draw_variant(numeric("1234567"), 0), "1,234,567")
    assert verdict.correct is True and "read" not in verdict.message
    assert grade(draw_variant(numeric("1"), 0), "1,2,3").correct is None
    assert grade(draw_variant(numeric("3"), 0), "log(8, 2)").correct is True  # not a number


def test_default_tolerance_is_three_significant_figures() -> None:
    assert Tolerance(sig_figs=3) == DEFAULT_TOLERANCE
    variant = draw_variant(numeric("log(32000, 2)"), 0)  # 14.9658...
    assert grade(variant, "14.97").correct is True
    assert grade(variant, "15").correct is True  # 15.0 is 14.9658 to three figures
    assert grade(variant, "14.9").correct is False


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("", "Type an answer first"),
        ("ninety", "unknown name `ninety`"),
        ("9 0", "not a valid expression"),
        ("__import__('os')", "`__import__` is not an allowed function"),
        ("1 # 2", "one line"),
        ("1/0", "has no value"),
    ],
)
def test_unreadable_numbers_get_a_message_not_a_wrong(typed: str, message: str) -> None:
    result = grade(draw_variant(numeric("2"), 0), typed)
    assert result.correct is None and message in result.message


@pytest.mark.parametrize("typed", ["2*(x+1)", "2*x + 2", "x + x + 2", "(x+1)*2", "2^1*x+2"])
def test_equivalent_symbolic_forms_are_accepted(typed: str) -> None:
    assert grade(draw_variant(symbolic("2*x+2"), 0), typed).correct is True


@pytest.mark.parametrize("typed", ["2*x", "2*(x+2)", "x**2 + 2", "2*x + 2.001"])
def test_different_symbolic_forms_are_rejected(typed: str) -> None:
    result = grade(draw_variant(symbolic("2*x+2"), 0), typed)
    assert result.correct is False and result.given_latex


def test_symbolic_grading_uses_simplification_and_sample_points() -> None:
    variant = draw_variant(symbolic("1 - tanh(z)**2"), 0)
    assert grade(variant, "diff(tanh(z), z)").correct is True
    assert grade(variant, "1/cosh(z)**2").correct is True
    assert grade(variant, "1 - tanh(z)").correct is False


def test_symbolic_typos_get_a_friendly_message() -> None:
    variant = draw_variant(symbolic("gamma**(T - t)"), 0)
    assert grade(variant, "gamma^(T-t)").correct is True
    typo = grade(variant, "gama**(T-t)")
    assert typo.correct is None and "unknown name `gama`" in typo.message
    assert "`T`, `gamma`, `t`" in typo.message
    unbalanced = grade(variant, "gamma**(T-t")
    assert unbalanced.correct is None and "Could not read your answer" in unbalanced.message


def test_symbolic_cards_substitute_their_parameters() -> None:
    variant = draw_variant(symbolic("a*x", a={"choices": [3]}), 5)
    assert grade(variant, "3*x").correct is True
    assert grade(variant, "a*x").correct is True
    assert grade(variant, "2*x").correct is False


def test_same_seed_same_variant_and_seeds_differ() -> None:
    card = numeric("a*b", a={"choices": [1, 2, 3, 4, 5, 6]}, b={"min": 0.5, "max": 2.5})
    assert draw_variant(card, 42) == draw_variant(card, 42)
    drawn = {tuple(draw_variant(card, seed).values.items()) for seed in range(40)}
    assert len(drawn) > 10
    for seed in range(40):
        values = draw_variant(card, seed).values
        assert values["a"] in {1, 2, 3, 4, 5, 6} and 0.5 <= values["b"] <= 2.5


def test_ranges_with_a_step_draw_grid_points() -> None:
    card = numeric("g", g={"min": 0.9, "max": 0.99, "step": 0.01})
    seen = {draw_variant(card, seed).values["g"] for seed in range(300)}
    assert seen == {round(0.9 + k * 0.01, 2) for k in range(10)}


def test_placeholders_are_filled_but_latex_groups_are_left_alone() -> None:
    text = r"γ = {gamma}, $h_{t}$, $10^{k}$, $\frac{a}{b}$, ${n}$ tokens"
    assert placeholders(text) == ["gamma", "n"]
    assert fill(text, {"gamma": 0.95, "n": 512, "t": 1}) == (
        r"γ = 0.95, $h_{t}$, $10^{k}$, $\frac{a}{b}$, $512$ tokens"
    )


def test_worked_steps_show_the_formula_the_values_and_the_result() -> None:
    card = numeric("ceiling(log(0.01)/log(gamma))", gamma={"choices": [0.99]})
    steps = draw_variant(card, 0).steps_latex()
    assert steps.count(" = ") == 2
    formula, substituted, result = steps.split(" = ")
    assert r"\gamma" in formula and "0.99" in substituted and result == "459"


def bundled_cards() -> list[Card]:
    library = load_library(ROOT)
    return [
        card
        for deck in library.decks.values()
        for card in deck.cards
        if card.kind in COMPUTED_KINDS
    ]


@pytest.mark.parametrize("card", bundled_cards(), ids=lambda card: card.id)
def test_every_bundled_card_accepts_its_own_answer(card: Card) -> None:
    for seed in range(3):
        variant = draw_variant(card, seed)
        assert not set(placeholders(variant.front())) & set(card.params)
        if card.kind == "numeric":
            typed = format_number(variant.expected(), 8)
        else:
            typed = card.answer or ""
        assert grade(variant, typed).correct is True, (variant.values, typed)

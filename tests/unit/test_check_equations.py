"""Equations in prose: the LaTeX grammar, the relations, and planted mistakes at file:line."""

from __future__ import annotations

import json
import shutil
import time
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studykit.checking import run_check
from studykit.checking.context import Context
from studykit.checking.equations import check_says, check_span, check_text
from studykit.checking.findings import Report
from studykit.expressions.statements import statements
from studykit.expressions.texlex import TexError, tokenize
from studykit.expressions.texnodes import names, render, written_number
from tests.unit.test_check import ROOT, studykit

PLANTS = ROOT / "tests" / "data" / "check" / "equations"
PLANTED_NOTE = PLANTS / "content" / "equations.yaml"
PLANTED_DECK = PLANTS / "decks" / "equations.yaml"


def verdicts(text: str) -> list[str]:
    return [equation.verdict for equation in check_text(text)]


def sides(tex: str) -> list[str]:
    (chain,) = statements(tex)
    return [render(side.node) if side.node else f"! {side.problem}" for side in chain.sides]


@pytest.mark.parametrize(
    ("tex", "expected"),
    [
        (r"0.95^{295}", ["(19/20)**295"]),
        (r"16{,}384", ["16384"]),
        (r"\lceil \log 0.01 / \log 0.95 \rceil", ["ceiling(log(1/100)/log(19/20))"]),
        (r"\left\lceil \frac{\log 0.01}{\log 0.5} \right\rceil", ["ceiling(log(1/100)/log(1/2))"]),
        (r"\log_2 32000", ["log(32000, 2)"]),
        (r"T \log_2 V", ["T*log(V, 2)"]),
        (r"12Td^2 + 2T^2 d", ["12*T*d**2 + 2*T**2*d"]),
        (r"\sin a \cos b", ["sin(a)*cos(b)"]),
        (r"\tanh^2 z", ["tanh(z)**2"]),
        (r"\sigma(1)", ["1/(1 + exp(-1))"]),
        (r"\sqrt[3]{27} \cdot 90\%", ["27**(1/3)*(90*(1/100))"]),
        (r"e^{-b} + 2\pi", ["E**(-b) + 2*pi"]),
        (r"k^* + d_k + d_{model}", ["k_star + d_k + d_model"]),
        (r"\frac{d}{dz} \tanh z", ["diff(tanh(z), z)"]),
        (r"|i - j|", ["Abs(i - j)"]),
    ],
)
def test_sides_read_as_safe_expressions(tex: str, expected: list[str]) -> None:
    (chain,) = statements(tex + " = 1")
    assert [render(side.node) for side in chain.sides if side.node] == [*expected, "1"]


def test_chains_split_at_relations_and_statements_at_separators() -> None:
    (chain,) = statements(r"0.95^{89} \approx 0.0104 > 0.01")
    assert chain.relations == ("≈", ">")
    first, second = statements(r"\gamma^k = 0.01 \quad \Rightarrow \quad k = 2")
    assert (first.tex, second.tex) == (r"\gamma^k = 0.01", "k = 2")
    (bound,) = statements(r"T \log_2 V \approx 748 \text{ for } T = 50,\ V = 32000")
    assert [binding.tex for binding in bound.bindings] == ["T = 50", "V = 32000"]
    (cut,) = statements(r"5000 - 32 = 4968 \text{ idle cores (one per sequence)}")
    assert cut.tex == "5000 - 32 = 4968"


@pytest.mark.parametrize("body", ["^", "!", "'"])
def test_a_text_is_never_read_as_the_maths_its_body_spells(body: str) -> None:
    """`\\text{^}` is prose, not a superscript: the TeX reader sees the command, not its body."""
    (chain,) = statements(rf"y = 2 x \text{{ for }} x = 2 \text{{{body}}} 3")
    (binding,) = chain.bindings
    assert binding.sides[1].node is None
    assert binding.sides[1].problem == rf"`\text{{{body}}}` inside an expression"


@pytest.mark.parametrize(
    ("tex", "reason"),
    [
        (r"h_t = f(h_{t-1}, x_t)", "a function the checker does not know"),
        (r"a_t = W_{hh} h_{t-1}", "the subscript in `h_{t-1}` is not a plain name"),
        (r"c_t = f_t \odot c_{t-1}", r"`\odot` is not something the checker evaluates"),
        (r"\sin^2 + \cos^2 = 1", r"`\sin` without an argument"),
        (r"e_{ij} = \mathrm{score}(s, h)", r"`\mathrm{score}` is not something"),
        (r"x = 64 1024", "a number (`1024`) right after another factor"),
    ],
)
def test_what_cannot_be_read_is_skipped_with_the_reason(tex: str, reason: str) -> None:
    (equation,) = check_span(tex, Context())
    assert equation.verdict == "skipped"
    assert reason in equation.reason


@pytest.mark.parametrize(
    "tex",
    [
        r"5000 - 32 = 4968",
        r"32 \times 512 = 16{,}384",
        r"0.95^{295} \approx 2.68 \times 10^{-7}",
        r"\lceil \log 0.01 / \log 0.95 \rceil = 90",
        r"\sigma(0) = 0.5",
        r"\sigma(1) \approx 0.731",
        r"0.95^{90} \approx 0.00989 \le 0.01",
        r"4096^2 \times 4 \text{ bytes} = 64 \text{ MiB}",
        r"\|PE\| = \sqrt{256} = 16",
        r"\sin(a + b) = \sin a \cos b + \cos a \sin b",
        r"\frac{12Td^2 + 2T^2 d}{2Td^2} = 7 \text{ at } T = d = 512",
        r"90\% \approx 0.9",
    ],
)
def test_right_equations_are_verified(tex: str) -> None:
    assert [equation.verdict for equation in check_span(tex, Context())] == ["verified"]


@pytest.mark.parametrize(
    ("tex", "reason"),
    [
        (r"0.95^{8} \approx 0.76", "computed 0.66342, which is not 0.76"),
        (r"5000 - 32 = 4969", "left side is 4968, right side 4969"),
        (r"\sigma(1) = 0.731", "equal only when rounded: write `\\approx`"),
        (r"0.95^{295} \approx 2.86 \times 10^{-7}", "(±5e-10)"),
        (r"0.95^{89} \approx 0.0104 < 0.01", "is false"),
        (r"0.95^{90} \approx 0.0099 \le 0.0098", "is false"),
        (r"\frac{12Td^2 + 2T^2 d}{2Td^2} = 6 + \frac{d}{T}", "not an identity"),
    ],
)
def test_wrong_equations_say_what_is_wrong(tex: str, reason: str) -> None:
    (equation,) = check_span(tex, Context())
    assert equation.verdict == "wrong", equation
    assert reason in equation.reason


def test_approx_is_to_half_a_unit_in_the_last_written_digit() -> None:
    assert written_number(statements("x = 2.68 \\times 10^{-7}")[0].sides[1].node) == (  # type: ignore[arg-type]
        Fraction(268, 100) * Fraction(1, 10**7),
        Fraction(5, 10**10),
    )
    assert verdicts("$\\frac{\\log 0.01}{\\log 0.95} \\approx 89.78$") == ["verified"]
    assert verdicts("$\\frac{\\log 0.01}{\\log 0.95} \\approx 89.79$") == ["wrong"]
    assert verdicts("$10000^{510/512} \\approx 9647$") == ["verified"]
    assert verdicts("$10000^{510/512} \\approx 9646$") == ["wrong"]


def test_definitions_carry_through_a_text() -> None:
    text = (
        r"$$k^* = \left\lceil \frac{\log(0.01)}{\log(\gamma)} \right\rceil$$ "
        r"$\gamma = 0.95$ par $k^* = 90$, $\gamma = 0.99$ par $k^* = 459$; "
        r"$T = 50$, $V = 32{,}000$: $T \log_2 V \approx 748$."
    )
    assert verdicts(text) == [
        "skipped",  # defines k^*
        "skipped",  # defines gamma
        "verified",
        "skipped",
        "verified",
        "skipped",
        "skipped",
        "verified",
    ]
    assert verdicts(text.replace("459", "460")).count("wrong") == 1
    # `z = 0` here is a condition; a statement true for every z is not made wrong by it.
    assert verdicts(r"$\tanh'(z) = 1 - \tanh^2(z)$ (1 sirf $z = 0$ par), $\tanh'(z) < 1$") == [
        "verified",
        "skipped",
        "verified",
    ]


def test_conditions_and_placeholders_are_skipped_with_reasons() -> None:
    (condition,) = check_span(r"\gamma^k = 0.01", Context())
    assert condition.verdict == "skipped" and "not an identity" in condition.reason
    (placeholder,) = check_span(r"\gamma = {gamma}", Context(), params={"gamma": None})
    assert "card parameter `{gamma}`" in placeholder.reason
    (one_sided,) = check_span(r"\approx 10^{-7}", Context())
    assert one_sided.reason == "a relation with one side missing"
    assert check_span(r"h_{t-1}", Context()) == []  # no relation: not an equation


def test_says_must_agree_with_the_claims_value() -> None:
    (right,) = check_says(r"(0.95)^{295} \approx 2.7 \times 10^{-7}", 2.682e-7)
    assert right.verdict == "verified"
    (wrong,) = check_says(r"k^* = 91", 90.0)
    assert wrong.verdict == "wrong" and "claim computes 90" in wrong.reason
    (unit,) = check_says(r"4096^2 \times 4 \text{ bytes} = 64 \text{ MiB}", 64.0)
    assert unit.verdict == "verified"
    (order,) = check_says(r"(0.95)^{295} \text{ is of order } 10^{-7}", -7.0)
    assert order.verdict == "skipped"


@pytest.mark.parametrize(
    "tex",
    [
        r"10^{10^{10}} = 1",
        r"2^{2^{2^{2^{2^{2}}}}} = 1",
        r"0.95^{100000000} \approx 0",
        "{" * 200 + "1" + "}" * 200 + " = 1",
        r"\sqrt{" * 60 + "2" + "}" * 60 + " = 1",
        "1 + " * 5_000 + "1 = 1",
        "x = " + "9" * 100_000,
    ],
)
def test_hostile_equations_are_refused_quickly(tex: str) -> None:
    started = time.perf_counter()
    found = check_span(tex, Context())
    assert time.perf_counter() - started < 5
    assert [equation.verdict for equation in found] == ["skipped"]
    assert found[0].reason


def test_a_huge_span_is_refused_before_it_is_read() -> None:
    with pytest.raises(TexError, match="too long"):
        tokenize("1" * 100_000)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 10**6), st.integers(-3, 3))
def test_sums_are_exact(a: int, b: int, off: int) -> None:
    (equation,) = check_span(f"{a} + {b} = {a + b + off}", Context())
    assert equation.verdict == ("verified" if off == 0 else "wrong")


@settings(max_examples=40, deadline=None)
@given(st.floats(0.05, 0.999), st.integers(1, 60), st.integers(2, 5))
def test_rounded_powers_verify_and_a_shifted_last_digit_does_not(
    base: float, power: int, digits: int
) -> None:
    base = round(base, 2)
    value = base**power
    written = f"{value:.{digits}e}"
    mantissa, exponent = written.split("e")
    tex = rf"{base}^{{{power}}} \approx {mantissa} \times 10^{{{int(exponent)}}}"
    assert [e.verdict for e in check_span(tex, Context())] == ["verified"], tex
    last = int(mantissa[-1])
    shifted = mantissa[:-1] + str((last + 2) % 10 if last < 8 else last - 2)
    wrong = rf"{base}^{{{power}}} \approx {shifted} \times 10^{{{int(exponent)}}}"
    assert [e.verdict for e in check_span(wrong, Context())] == ["wrong"], wrong


def line_with(path: Path, text: str) -> int:
    """The 1-based line of the file holding `text`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


PLANTED = {
    (PLANTED_NOTE, r"$0.95^{8} \approx 0.76$"): "computed 0.66342, which is not 0.76",
    (PLANTED_NOTE, r"3.7 \times 10^{-7}"): "computed 2.68203e-07, which is not 3.7e-07",
    (PLANTED_NOTE, "says: 'k^* = 91'"): "`says` writes 91, but the claim computes 90",
    (PLANTED_DECK, r"2.86 \times 10^{-7}"): "which is not 2.86e-07",
    (PLANTED_DECK, "{{c2::91}}"): "`k^*` is 90 by its definition earlier in the text",
    (PLANTED_DECK, r"\in (0.01, 1)"): "not in `(0.01, 1)`: 0.0059 > 0.01 is false",
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (r"$2 + 2 = 4 \in (3, 4]$", ["verified"]),
        (r"$2 + 2 = 4 \in (3, 4)$", ["wrong"]),  # an open end leaves its bound out
        (r"$x = 2 + 2 = 4 \in (5, 6]$", ["wrong"]),  # the range at the end of a chain
        (r"$0.9^{44} \in (0, 0.01]$", ["verified"]),
        (r"$5 \in [6, \infty)$", ["wrong"]),
        (r"$5 \in (-\infty, 6]$", ["verified"]),
        (r"$k \in [1, 3]$", ["skipped"]),  # a symbol's range: a declaration, not a claim
        (r"$h_T \in \mathbb{R}^d$", ["skipped"]),  # not an interval
    ],
)
def test_a_range_is_checked_at_both_ends(text: str, expected: list[str]) -> None:
    assert verdicts(text) == expected


def test_planted_equations_are_reported_at_their_lines() -> None:
    result = studykit("check", "--verbose", "tests/data/check/equations")
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    for (path, marker), text in PLANTED.items():
        where = f"{path.relative_to(ROOT).as_posix()}:{line_with(path, marker)}: equation "
        assert any(line.startswith(where) and text in line for line in lines), (marker, lines)
    skipped = f"equations.yaml:{line_with(PLANTED_NOTE, 'h_t = f(')}: skipped equation"
    assert any(skipped in line and "a function the checker does not know" in line for line in lines)
    assert lines[-1] == (
        "3 claims, 0 cards checked, 21 equations (7 verified, 8 skipped, 6 wrong), 6 problems"
    )


def test_json_counts_the_equations_and_verbose_lists_the_skipped() -> None:
    result = studykit("check", "--json", "--verbose", str(PLANTS))
    document = json.loads(result.stdout)
    assert document["equations"] == {"verified": 7, "skipped": 8, "wrong": 6}
    assert {p["kind"] for p in document["problems"]} == {"equation"}
    assert all(item["reason"] for item in document["skipped_equations"])
    plain = json.loads(studykit("check", "--json", str(PLANTS)).stdout)
    assert "skipped_equations" not in plain


def test_every_numeric_equation_in_the_bundled_content_is_verified(
    bundled_report: Report,
) -> None:
    report = bundled_report
    counts = report.equations
    assert counts.wrong == 0 and counts.verified >= 90, counts
    assert not [p for p in report.problems if p.kind == "equation"]
    for skipped in report.skipped_equations:
        assert skipped.reason, skipped
        for chain in statements(skipped.tex):
            readable = [side.node for side in chain.sides if side.node is not None]
            numeric = len(readable) == len(chain.sides) >= 2
            assert not (numeric and not any(names(node) for node in readable)), skipped


def test_definitions_that_grow_without_bound_are_refused() -> None:
    chain = " ".join(f"$x_{k + 1} = x_{k} + x_{k}$" for k in range(30))
    *_, last = check_text(f"$x_0 = 1$ {chain} $x_{{30}} + 1 = 5$")
    assert last.verdict == "skipped" and "too large" in last.reason


def test_a_text_with_too_many_equations_skips_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("studykit.checking.equations.MAX_EQUATIONS_PER_TEXT", 3)
    found = check_text(" ".join(["$1 + 1 = 2$"] * 5))
    assert [e.verdict for e in found] == ["verified"] * 3 + ["skipped"] * 2
    assert "more than 3 equations" in found[-1].reason


def test_a_latex_side_that_disagrees_with_the_claim_it_cites_fails_at_its_line(
    tmp_path: Path,
) -> None:
    """`$0.95^{88} \\approx {claim:gamma-095-pow-89}$`: the citation renders 89's value."""
    shutil.copytree(ROOT / "content", tmp_path / "content")
    shutil.copytree(ROOT / "decks", tmp_path / "decks")
    note = tmp_path / "content" / "ai-ml" / "rnn-limitations.yaml"
    written = r"$0.95^{89} \approx {claim:gamma-095-pow-89}"
    text = note.read_text(encoding="utf-8")
    assert text.count(written) == 1
    note.write_text(text.replace(written, written.replace("{89}", "{88}")), encoding="utf-8")
    line = next(n for n, row in enumerate(text.splitlines(), 1) if written in row)
    report = run_check([note], tmp_path)  # the note alone (in-process: no second torch)
    assert report.exit_code == 1
    shown = [str(problem).removeprefix(f"{tmp_path}/") for problem in report.problems]
    assert any(
        row.startswith(f"content/ai-ml/rnn-limitations.yaml:{line}: equation `0.95^{{88}}")
        for row in shown
    ), shown

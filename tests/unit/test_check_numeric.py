"""What sympy cannot decide, checked with torch; every skip in a named category.

Each planted fault is put into a copy of the bundled content and must be a problem at its
file:line; the unplanted copy passes.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from studykit.checking import run_check
from studykit.checking.equations import check_text
from studykit.checking.findings import Report
from studykit.checking.skips import SkipCategory, classify
from tests.unit.test_check import ROOT

pytest.importorskip("torch")

NOTE = Path("content") / "ai-ml" / "rnn-limitations.yaml"
DECK = Path("decks") / "ai-ml" / "rnn-limitations.yaml"
COMPUTED = Path("decks") / "ai-ml" / "rnn-limitations-computed.yaml"

JACOBIAN = (
    r"\frac{\partial h_t}{\partial h_{t-1}} = \mathrm{diag}\big(\tanh'(a_t)\big) \cdot W_{hh}"
)
CHAIN = (
    r"\frac{\partial L}{\partial h_1} = \frac{\partial L}{\partial h_T} \cdot "
    r"\frac{\partial h_T}{\partial h_{T-1}} \cdot \frac{\partial h_{T-1}}{\partial h_{T-2}} "
    r"\cdots \frac{\partial h_2}{\partial h_1}"
)
STEP_BOUND = (
    r"\left\| \frac{\partial h_t}{\partial h_{t-1}} \right\| \le \sigma_{\max}(W_{hh}) "
    r"\cdot \max_i \tanh'(a_{t,i})"
)
GAMMA = r"\gamma = \sigma_{\max}(W_{hh}) \cdot \max_{t,i} \tanh'(a_{t,i})"
PE_EVEN = r"PE_{(pos, 2i)} = \sin\left(\frac{pos}{10000^{2i/d}}\right)"
PE_ODD = r"PE_{(pos, 2i+1)} = \cos\left(\frac{pos}{10000^{2i/d}}\right)"
ATTENTION = (
    r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right) V"
)
SOFTMAX = r"\alpha_{ij} = \frac{\exp(e_{ij})}{\sum_{k=1}^{T} \exp(e_{ik})}"


def verdicts(text: str) -> list[str]:
    return [item.verdict for item in check_text(text)]


@pytest.mark.parametrize(
    "tex",
    [
        JACOBIAN,
        r"\frac{\partial h_t}{\partial h_{t-1}} = \mathrm{diag}(1 - h_t^2)\, W_{hh}",
        CHAIN,
        STEP_BOUND,
        PE_EVEN,
        PE_ODD,
        r"PE_{(pos, 2i)} = \sin(pos / 10000^{2i/d})",
        r"\|PE(pos)\|^2 = d/2",
        r"\|PE\| = \sqrt{d/2}",
        ATTENTION,
        SOFTMAX,
        r"\frac{\partial c_t}{\partial c_{t-1}} = \mathrm{diag}(f_t)",
    ],
)
def test_true_forms_are_verified_numerically(tex: str) -> None:
    assert verdicts(f"${tex}$") == ["verified"]


def test_a_norm_bound_over_steps_reads_gamma_from_its_definition() -> None:
    bound = r"\left\| \frac{\partial h_T}{\partial h_1} \right\| \le \gamma^{T-1}"
    text = f"${GAMMA}$ likho: ${bound}$"
    assert verdicts(text) == ["skipped", "verified"]
    wrong = text.replace("^{T-1}", "^{T}")
    found = check_text(wrong)
    assert [item.verdict for item in found] == ["skipped", "wrong"]
    assert "sampled counterexample" in found[1].reason


@pytest.mark.parametrize(
    ("tex", "message"),
    [
        (JACOBIAN.replace("W_{hh}", "W_{hh}^\\top"), "different Jacobian"),
        (
            r"\frac{\partial h_t}{\partial h_{t-1}} = "
            r"W_{hh} \cdot \mathrm{diag}\big(\tanh'(a_t)\big)",
            "different Jacobian",
        ),
        (
            r"\frac{\partial L}{\partial h_1} = \frac{\partial h_2}{\partial h_1} \cdots "
            r"\frac{\partial h_T}{\partial h_{T-1}} \cdot \frac{\partial L}{\partial h_T}",
            "do not multiply in the written order",
        ),
        (STEP_BOUND.replace(r"(W_{hh})", r"(W_{hh})^2"), "sampled counterexample"),
        (PE_EVEN.replace(r"\sin", r"\cos"), "reference sinusoidal encoding"),
        (PE_ODD.replace("10000", "1000"), "reference sinusoidal encoding"),
        (PE_ODD.replace("2i/d", "i/d"), "reference sinusoidal encoding"),
        (r"\|PE(pos)\|^2 = d", "norm² is"),
        (ATTENTION.replace(r"\sqrt{d_k}", "d_k"), "scaled_dot_product_attention"),
        (ATTENTION.replace(r"QK^\top", r"KQ^\top"), "multiply in the written order"),
        (r"\frac{\partial c_t}{\partial c_{t-1}} = \mathrm{diag}(f_{t-1})", "different Jacobian"),
        (SOFTMAX.replace("e_{ik}", "e_{kj}"), "torch.softmax"),
        (SOFTMAX.replace("e_{ij})}{", "e_{ji})}{"), "torch.softmax"),
    ],
)
def test_wrong_forms_are_wrong(tex: str, message: str) -> None:
    (found,) = check_text(f"${tex}$")
    assert found.verdict == "wrong" and message in found.reason, found


def test_without_torch_the_forms_skip_as_needing_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real = builtins.__import__

    def no_torch(name: str, *args: object, **kwargs: object) -> object:
        if name == "torch" or name.startswith("torch."):
            raise ImportError(name)
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_torch)
    (found,) = check_text(f"${PE_EVEN}$")
    assert (found.verdict, found.category) == ("skipped", SkipCategory.NEEDS_TORCH.value)
    assert "pip install" in found.reason


def test_skips_are_classified() -> None:
    assert classify(r"h_t = f(h_{t-1}, x_t)") is SkipCategory.DEFINITION
    assert classify(r"i = 0, 1, \dots, d/2 - 1") is SkipCategory.NOTATION
    text = 'Q: "$\\frac{\\partial h_t}{\\partial h_{t-1}} \\approx 1$" mein kya galat hai?'
    assert classify("x", text, text.index("\\frac")) is SkipCategory.QUOTED_AS_WRONG
    assert classify(r"\frac{\partial h}{\partial x} = \mathrm{mystery}") is (
        SkipCategory.UNCLASSIFIED
    )


def test_bundled_content_has_no_unclassified_skip(bundled_report: Report) -> None:
    bundled = bundled_report
    assert bundled.problems == []
    unclassified = [item for item in bundled.skipped_equations if item.category == "unclassified"]
    assert unclassified == []
    assert all(item.category in set(SkipCategory) for item in bundled.skipped_equations)
    document = bundled.to_json(verbose=True)
    assert sum(document["skipped_by_category"].values()) == document["equations"]["skipped"]
    assert all("category" in item for item in document["skipped_equations"])


PLANTS = [
    (NOTE, JACOBIAN, JACOBIAN.replace("\\cdot W_{hh}", "\\cdot W_{hh}^\\top"), "Jacobian"),
    (
        NOTE,
        r"\frac{\partial L}{\partial h_T} \cdot \frac{\partial h_T}{\partial h_{T-1}}",
        r"\frac{\partial h_T}{\partial h_{T-1}} \cdot \frac{\partial L}{\partial h_T}",
        "multiply in the written order",
    ),
    (NOTE, r"\le \gamma^{T-1}$$", r"\le \gamma^{T}$$", "sampled counterexample"),
    (
        NOTE,
        STEP_BOUND,
        STEP_BOUND.replace(r"\sigma_{\max}(W_{hh})", r"\sigma_{\max}(W_{hh})^2"),
        "sampled counterexample",
    ),
    (NOTE, PE_ODD, PE_ODD.replace(r"\cos", r"\sin"), "reference sinusoidal encoding"),
    (NOTE, ATTENTION, ATTENTION.replace(r"\sqrt{d_k}", "d_k"), "scaled_dot_product_attention"),
    (DECK, r"\le \gamma^{T-1}", r"\le \gamma^{T-2}", "sampled counterexample"),
    (COMPUTED, r"\cos(pos / 10000^{2i/d})", r"\sin(pos / 10000^{2i/d})", "sinusoidal"),
    (NOTE, r"= \mathrm{diag}(f_t)$", r"= \mathrm{diag}(f_{t-1})$", "different Jacobian"),
    (NOTE, r"\exp(e_{ik})}", r"\exp(e_{kj})}", "torch.softmax"),
    (NOTE, r"$f = 0.5$ par", r"$f = 0.6$ par", "along the cell state (f = 0.6, 50 steps)"),
]


@pytest.mark.parametrize(("relative", "old", "new", "message"), PLANTS)
def test_a_planted_fault_is_a_problem_at_its_line(
    tmp_path: Path, relative: Path, old: str, new: str, message: str
) -> None:
    for folder in ("content", "decks"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    path = tmp_path / relative
    text = path.read_text(encoding="utf-8")
    assert old in text, old  # the written text checks clean: test_bundled_content_has_no_...
    line = text[: text.index(old)].count("\n") + 1
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    problems = run_check([path], tmp_path).problems
    located = [(p.path.endswith(relative.name), p.line, p.kind) for p in problems]
    if old.startswith("$f = "):  # the value changes; the wrong gradient is on the next line
        line += 1
    assert (True, line, "equation") in located, [str(p) for p in problems]
    assert any(message in p.message for p in problems), [str(p) for p in problems]


def test_a_cell_state_gradient_is_the_forget_gate_to_the_steps() -> None:
    text = r"$f = 0.5$ par $\partial c_{50} / \partial c_0 \approx 8.88 \times 10^{-16}$"
    assert verdicts(text) == ["skipped", "verified"]
    found = check_text(text.replace("10^{-16}", "10^{-15}"))
    assert found[1].verdict == "wrong" and "f = 0.5, 50 steps" in found[1].reason


def test_verbose_text_names_each_skips_category(bundled_report: Report) -> None:
    """`check --verbose` of the bundled content (its text, from the suite's one check of it)."""
    assert bundled_report.exit_code == 0
    lines = bundled_report.text_lines(verbose=True)
    skipped = [line for line in lines if "skipped equation" in line]
    assert skipped and all("] `" in line for line in skipped)
    assert not any("[unclassified]" in line for line in skipped)
    assert any(line.startswith("skipped by category: definition ") for line in lines)


@pytest.mark.parametrize(
    "text",
    [
        r"$f = 0.5$ par $\partial c_{100000000} / \partial c_0 \approx 0$",
        r"$d = 1000000000$ par $\|PE\| = 16$",
    ],
)
def test_sizes_the_text_gives_are_bounded(text: str) -> None:
    started = time.perf_counter()
    found = check_text(text)
    assert found[-1].verdict == "skipped" and time.perf_counter() - started < 5

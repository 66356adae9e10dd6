"""Every bundled text, rendered as the screens render it, shows no raw LaTeX or markdown."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from studykit.cli import cli
from studykit.content.loading import Library
from studykit.content.model import COMPUTED_KINDS, Card, Note, ParamSpec
from studykit.experiments import registry
from studykit.experiments.base import Experiment, Outcome
from studykit.quiz import Variant
from studykit.quiz.variants import representative
from studykit.study.cardtext import (
    back_markdown,
    card_markdown,
    cited_markdown,
    expected_text,
    front_markdown,
    one_line,
    plain_text,
    side_markdown,
    worked_text,
)

ROOT = Path(__file__).resolve().parents[2]
PARAMS = {"gamma": ParamSpec(choices=(0.9,)), "k": ParamSpec(choices=(4,))}
LETTER = r"[^\W\d_]"  # a letter of any script, Greek included
# What raw TeX or markdown looks like once it reaches the screen.
RAW: dict[str, re.Pattern[str]] = {
    "a LaTeX command": re.compile(r"\\[A-Za-z]+"),
    "a TeX group `_{`/`^{`": re.compile(r"[_^]\{"),
    "a `$`": re.compile(r"\$"),
    "markdown `**`": re.compile(r"\*\*"),
    "a cloze `{{c1::`": re.compile(r"\{\{c\d"),
    "a `{placeholder}`": re.compile(r"\{[A-Za-z_]\w*\}"),
    # `h_T`, `W_hh`, `h_(T-1)`: a letter's index written with `_` (a name like `d_model` is fine)
    "an ASCII subscript like `h_T`": re.compile(
        rf"(?<![\w]){LETTER}_(?:\(|[^\W_]{{1,2}}(?![^\W_]))"
    ),
    # `k^*`, `ρ^k`: a caret straight on a letter or digit (`10^(2 · i)` is the fallback form)
    "an ASCII superscript like `ρ^k`": re.compile(r"\^[\w*]"),
}


def raw_pieces(text: str) -> list[str]:
    """What in `text` is raw LaTeX or markdown, each with the rule it breaks."""
    found: list[str] = []
    for rule, pattern in RAW.items():
        found += [f"{rule}: {match.group()!r}" for match in pattern.finditer(text)]
    return found


@pytest.mark.parametrize(
    "planted",
    [
        r"fixed-size h_{t-1}",
        "fixed-size h_T mein",
        "∂h_T/∂h_(T-1)",
        "x₁, …, x_T",
        "d_(model) = 512",
        "Jacobian diag(tanh') · W_hh",
        "√d_k se divide",
        "k^* = ⌈…⌉",
        "ρ^k = 0.3",
        r"\lceil x \rceil",
        "$x$",
        "**[...]**",
        "{{c1::x}}",
        "γ = {gamma}",
    ],
)
def test_the_detector_catches_raw_text(planted: str) -> None:
    assert raw_pieces(planted)


@pytest.mark.parametrize(
    "rendered",
    ["h[T] ∈ ℝᵈ", "x[1], …, x[T]", "d_model = 512", "batch · seq_len", "k* = 90", "10^((2 · i)/d)"],
)
def test_the_detector_passes_the_rendered_conventions(rendered: str) -> None:
    assert raw_pieces(rendered) == []


@pytest.fixture(scope="module")
def library(bundled_library: Library) -> Library:
    assert bundled_library.notes and bundled_library.decks, "no bundled content found"
    return bundled_library


def _shown(markdown: str) -> str:
    """Markdown as it is laid out on screen (Rich's markdown, as `studykit show` prints it)."""
    return plain_text(markdown, width=120)


def _note_texts(library: Library) -> Iterator[tuple[str, str]]:
    for note in library.notes.values():
        yield f"note {note.id} title", note.title
        for section in note.sections:
            where = f"note {note.id} section {section.id}"
            yield f"{where} title", section.title
            yield f"{where} body", _shown(cited_markdown(section.body, note))


def _variant_texts(where: str, variant: Variant, note: Note | None) -> Iterator[tuple[str, str]]:
    yield f"{where} front", _shown(side_markdown(variant.front(), note))
    yield f"{where} back", _shown(side_markdown(variant.back() or "", note))
    yield f"{where} expected", expected_text(variant)
    yield f"{where} worked", worked_text(variant)


def _card_texts(library: Library) -> Iterator[tuple[str, str]]:
    for deck in library.decks.values():
        note = library.note_for(deck)
        for card in deck.cards:
            where = f"deck {deck.id} card {card.id}"
            if card.kind in COMPUTED_KINDS:  # a few variants, as the review screen shows them
                for values in representative(card):
                    variant = Variant(card, 0, values)
                    yield from _variant_texts(f"{where} {values}", variant, note)
                continue
            yield f"{where} front", _shown(front_markdown(card, note))  # cloze: before reveal
            yield f"{where} back", _shown(back_markdown(card, note))  # cloze: after reveal


def test_every_kind_of_card_is_covered(library: Library) -> None:
    kinds = {card.kind for deck in library.decks.values() for card in deck.cards}
    assert {"basic", "cloze", "numeric", "symbolic"} <= kinds
    clozes_in_maths = [
        card
        for deck in library.decks.values()
        for card in deck.cards
        if card.kind == "cloze" and re.search(r"\$[^$]*\{\{c\d", card.front)
    ]
    assert clozes_in_maths, "a cloze inside maths keeps the test honest"


def test_notes_show_no_raw_latex_or_markdown(library: Library) -> None:
    problems = [f"{where}: {p}" for where, text in _note_texts(library) for p in raw_pieces(text)]
    assert problems == []


def test_cards_show_no_raw_latex_or_markdown(library: Library) -> None:
    problems = [f"{where}: {p}" for where, text in _card_texts(library) for p in raw_pieces(text)]
    assert problems == []


def test_show_deck_prints_a_computed_cards_variant_with_its_answer(library: Library) -> None:
    deck = next(d for d in library.decks.values() if any(c.kind == "numeric" for c in d.cards))
    card = next(c for c in deck.cards if c.kind == "numeric")
    front, back = card_markdown(card, library.note_for(deck), seed=0)
    assert raw_pieces(_shown(front)) == []
    assert "Expected:" in back and "Worked:" in back


# -- experiments: every text the experiments screen shows ----------------------------------

# Small parameters so that every experiment runs in about a second on a CPU.
SMALL: dict[str, dict[str, object]] = {
    "effective-context": {"gamma": 0.8},
    "rnn-gradient-decay": {"rho": 0.9, "hidden_size": 8, "length": 40},
    "lstm-forget-gate": {"forget": 0.731, "length": 12, "hidden_size": 4},
    "positional-encoding": {"positions": 16, "d_model": 8},
    "attention-scaling": {"d_k": 16, "keys": 32, "queries": 256},
    "bptt-memory": {"length": 64, "batch_size": 4, "hidden_size": 8},
    "memory-capacity": {"hidden_size": 16},
    "long-range": {"distance": 5, "seeds": 1, "hidden_size": 8, "train": True, "steps": 3},
    "parallelism": {
        "batch_size": 2, "seq_len": 16, "hidden_size": 8, "heads": 2, "layers": 1, "repeats": 1
    },
}  # fmt: skip


def _definition_texts(experiment: Experiment) -> Iterator[tuple[str, str]]:
    where = f"experiment {experiment.name}"
    yield f"{where} title", experiment.title
    yield f"{where} summary", experiment.summary
    for param in experiment.params:
        yield f"{where} param {param.name}", param.help


def _outcome_texts(name: str, outcome: Outcome) -> Iterator[tuple[str, str]]:
    where = f"experiment {name}"
    yield f"{where} explanation", outcome.explanation
    for answer in outcome.answers:
        yield f"{where} answer {answer.key}", answer.label
    if outcome.plot is not None:
        plot = outcome.plot
        yield f"{where} plot", " ".join([plot.title, plot.x_label, plot.y_label])
        yield f"{where} series", " ".join(series.label for series in plot.series)
    if outcome.table is not None:
        yield f"{where} table", " ".join(outcome.table.headers)


def test_experiment_definitions_show_no_raw_latex() -> None:
    texts = (t for e in registry.experiments().values() for t in _definition_texts(e))
    assert [f"{where}: {p}" for where, text in texts for p in raw_pieces(text)] == []


def test_small_parameters_cover_every_experiment() -> None:
    assert set(SMALL) == set(registry.names())


@pytest.mark.parametrize("name", sorted(SMALL))
def test_experiment_results_show_no_raw_latex(name: str) -> None:
    pytest.importorskip("torch")
    from studykit.experiments.runner import run_in_process

    outcome = run_in_process(name, SMALL[name], device="cpu", seed=0).outcome
    problems = [f"{w}: {p}" for w, text in _outcome_texts(name, outcome) for p in raw_pieces(text)]
    assert problems == []


# -- the paths the screens and `studykit show` share ---------------------------------------


def test_a_cloze_inside_maths_hides_and_fills_as_markdown() -> None:
    card = Card(
        id="c",
        kind="cloze",
        front=r"Recurrence: $h_t = {{c1::\tanh(W_{hh} h_{t-1})::formula}}$, at $z = {{c2::0}}$.",
    )
    # Each ordinal hides its own deletion and shows the other filled in, in maths too.
    assert _shown(front_markdown(card)) == "Recurrence: hₜ = [formula], at z = 0."
    assert _shown(front_markdown(card, None, 2)) == "Recurrence: hₜ = tanh(Wₕₕ hₜ₋₁), at z = [...]."
    assert _shown(back_markdown(card)) == "Recurrence: hₜ = tanh(Wₕₕ hₜ₋₁), at z = 0."
    assert _shown(back_markdown(card, None, 2)) == "Recurrence: hₜ = tanh(Wₕₕ hₜ₋₁), at z = 0."


def test_a_computed_card_without_a_back_shows_its_answer_as_maths() -> None:
    card = Card(id="n", kind="numeric", front="x?", answer="gamma**k", params=PARAMS)
    assert _shown(back_markdown(card)) == "Answer: γᵏ"


@pytest.mark.parametrize(
    ("kind", "item"), [("note", "rnn-limitations"), ("deck", "rnn-limitations"),
                       ("deck", "rnn-limitations-computed")]
)  # fmt: skip
def test_show_prints_plain_rendered_text(kind: str, item: str) -> None:
    result = CliRunner().invoke(cli, ["--root", str(ROOT), "show", kind, item])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output  # piped: no colour codes
    assert raw_pieces(result.output) == []
    if item.endswith("computed"):  # one variant, answered
        assert "Expected: " in result.output and "Worked: " in result.output


def test_one_line_is_plain_and_short(library: Library) -> None:
    deck = library.decks["rnn-limitations"]
    card = next(c for c in deck.cards if c.id == "rnn-recurrence-cloze")
    assert one_line(front_markdown(card)) == "Vanilla RNN recurrence: hₜ = [...]"
    assert one_line(back_markdown(card), limit=40) == "Vanilla RNN recurrence: hₜ = tanh(Wₕₕ h…"

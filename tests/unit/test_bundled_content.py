"""The bundled note and deck: schema-valid, cross-referenced, and their numbers right."""

from __future__ import annotations

import ast
import math
import operator
import re
from collections import Counter
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
import yaml

from studykit.content.model import Claim, Deck, Note

ROOT = Path(__file__).resolve().parents[2]
NOTE_FILE = ROOT / "content" / "ai-ml" / "rnn-limitations.yaml"
DECK_FILE = ROOT / "decks" / "ai-ml" / "rnn-limitations.yaml"
COMPUTED_FILE = ROOT / "decks" / "ai-ml" / "rnn-limitations-computed.yaml"

# The eight seed flashcards (#flashcards/ai-ml) live on under their ids.
SEED_CARDS = (
    "sequential-bottleneck",
    "parallelize-over-time",
    "vanishing-gradient-derivation",
    "compression-bottleneck",
    "transformer-speedup",
    "lstm-not-a-full-fix",
    "effective-context-formula",
    "self-attention-long-range",
)
# Past this many words on a card, front and back (maths counted as one), it holds more
# than one fact.
MAX_CARD_WORDS = 50
# A front that asks for two things: "…, aur kyun?", "dono formulas", "kaun si do cheezein".
TWO_THINGS = re.compile(r", aur |\bdono\b|\bdo cheezein\b|\baur kyun\b")
EXPERIMENTS = frozenset(
    {
        "effective-context",
        "rnn-gradient-decay",
        "lstm-forget-gate",
        "parallelism",
        "memory-capacity",
        "long-range",
        "bptt-memory",
        "positional-encoding",
        "attention-scaling",
    }
)


@cache
def note() -> Note:
    return Note.model_validate(yaml.safe_load(NOTE_FILE.read_text(encoding="utf-8")))


@cache
def deck() -> Deck:
    return Deck.model_validate(yaml.safe_load(DECK_FILE.read_text(encoding="utf-8")))


@cache
def computed_deck() -> Deck:
    return Deck.model_validate(yaml.safe_load(COMPUTED_FILE.read_text(encoding="utf-8")))


def all_claims() -> list[Claim]:
    return [claim for section in note().sections for claim in section.claims]


# A stand-in for the sympy checker: plain floats over a tiny AST whitelist.
_OPERATORS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_FUNCTIONS: dict[str, Callable[..., float]] = {
    "log": lambda x, base=math.e: math.log(x, base),
    "ln": math.log,
    "exp": math.exp,
    "sqrt": math.sqrt,
    "ceiling": math.ceil,
    "floor": math.floor,
    "sin": math.sin,
    "cos": math.cos,
    "tanh": math.tanh,
}
_CONSTANTS = {"pi": math.pi, "E": math.e}


class FreeVariableError(Exception):
    """The expression names a symbol: an identity for sympy, not arithmetic."""


def evaluate(node: ast.AST, env: dict[str, float] | None = None) -> float:
    env = env or {}
    match node:
        case ast.Constant(value=bool()):
            pass
        case ast.Constant(value=int() | float() as value):
            return float(value)
        case ast.BinOp(left=left, op=op, right=right) if type(op) in _OPERATORS:
            return _OPERATORS[type(op)](evaluate(left, env), evaluate(right, env))
        case ast.UnaryOp(op=ast.USub(), operand=operand):
            return -evaluate(operand, env)
        case ast.Name(id=name) if name in _CONSTANTS:
            return _CONSTANTS[name]
        case ast.Name(id=name) if name in env:
            return env[name]
        case ast.Name(id=name):
            raise FreeVariableError(name)
        case ast.Call(func=ast.Name(id=name), args=args, keywords=[]) if name in _FUNCTIONS:
            return float(_FUNCTIONS[name](*(evaluate(arg, env) for arg in args)))
    raise ValueError(f"not allowed in a claim: {ast.unparse(node)}")


def value_of(expr: str) -> float:
    return evaluate(ast.parse(expr, mode="eval").body)


def test_note_and_deck_fit_together() -> None:
    assert deck().id == "rnn-limitations"
    assert deck().note == note().id
    assert deck().name == "AI-ML::Transformer Architecture::RNN limitations"


def test_ids_are_unique() -> None:
    for ids in (
        [s.id for s in note().sections],
        [c.id for c in all_claims()],
        [c.id for c in deck().cards],
    ):
        assert [i for i, n in Counter(ids).items() if n > 1] == []


def test_every_section_has_a_title_and_a_body() -> None:
    for section in note().sections:
        assert section.title.strip() and section.body.strip(), section.id


def test_deck_has_enough_cards_of_the_plain_kinds() -> None:
    kinds = Counter(card.kind for card in deck().cards)
    assert sum(kinds.values()) >= 25
    assert kinds["basic"] > kinds["reversed"] > 0
    assert kinds["cloze"] > 0
    assert kinds["numeric"] == kinds["symbolic"] == 0


def test_every_card_cites_a_section_and_every_section_is_cited() -> None:
    section_ids = {s.id for s in note().sections}
    sources = {card.id: card.source for card in deck().cards}
    assert {cid: src for cid, src in sources.items() if src not in section_ids} == {}
    assert section_ids - set(sources.values()) == set()


@pytest.mark.parametrize("card_id", SEED_CARDS)
def test_seed_card_keeps_its_id(card_id: str) -> None:
    assert card_id in {card.id for card in deck().cards}


def _words_outside_maths(text: str) -> int:
    return len(re.sub(r"\$\$.*?\$\$|\$[^$]*\$", "M", text, flags=re.DOTALL).split())


def test_cards_hold_one_fact() -> None:
    """Short cards, and no front that asks two things ("…, aur kyun?", "dono formulas")."""
    cards = [*deck().cards, *computed_deck().cards]
    long = {
        c.id: n
        for c in cards
        if (n := _words_outside_maths(c.front) + _words_outside_maths(c.back or ""))
        > MAX_CARD_WORDS
    }
    assert long == {}
    questions = [c for c in cards if c.kind != "cloze"]  # a cloze front is a statement
    two = [c.id for c in questions if c.front.count("?") > 1 or TWO_THINGS.search(c.front)]
    assert two == []


def test_each_number_is_drilled_in_one_deck() -> None:
    """A claim a numeric card reproduces is asked there; a basic card does not cite it too."""
    drilled = {
        agreement.claim
        for card in computed_deck().cards
        if card.kind == "numeric"
        for agreement in card.agrees_with
    }
    cited = {
        card.id: sorted(claim for claim in drilled if f"{{claim:{claim}}}" in text)
        for card in deck().cards
        if (text := card.front + (card.back or ""))
    }
    assert {card_id: claims for card_id, claims in cited.items() if claims} == {}


def test_no_card_asks_for_a_measured_number() -> None:
    """Machine- and seed-dependent numbers are `measured:` entries; cards never cite them."""
    for card in deck().cards:
        assert "{measured:" not in card.front + (card.back or ""), card.id
        assert card.experiment is None or card.experiment.answer is not None, card.id


def test_measured_entries_cover_the_experiments_the_note_quotes() -> None:
    measured = [m for section in note().sections for m in section.measured]
    assert {m.experiment for m in measured} == EXPERIMENTS
    timings = [m for m in measured if m.unit == "ms"]
    assert timings and all(not m.deterministic for m in timings)
    cited = "".join(section.body for section in note().sections)
    assert [m.id for m in measured if f"{{measured:{m.id}}}" not in cited] == []


def test_experiments_are_the_planned_ones_and_all_attached() -> None:
    names = [s.experiment.name for s in note().sections if s.experiment]
    assert sorted(names) == sorted(EXPERIMENTS)


def test_enough_claims() -> None:
    assert len(all_claims()) >= 20


@pytest.mark.parametrize("claim", all_claims(), ids=lambda c: c.id)
def test_claim_arithmetic(claim: Claim) -> None:
    tree = ast.parse(claim.expr, mode="eval").body
    if claim.order is not None:  # a cost and its growth: the ratio settles as each one grows
        order = ast.parse(claim.order, mode="eval").body
        variables = sorted(
            {n.id for t in (tree, order) for n in ast.walk(t) if isinstance(n, ast.Name)}
            - _FUNCTIONS.keys()
            - _CONSTANTS.keys()
        )
        for name in variables:
            ratios = [
                evaluate(tree, env) / evaluate(order, env)
                for env in ({n: 3.0 for n in variables} | {name: big} for big in (1e6, 1e12))
            ]
            assert ratios[1] > 0 and math.isclose(*ratios, rel_tol=1e-3), (name, ratios)
        return
    if isinstance(tree, ast.Compare):
        calls = {
            n.func.id
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        }
        if not calls <= _FUNCTIONS.keys():  # e.g. diff: the sympy checker decides it
            from studykit.checking import check_claim

            assert check_claim(claim) is None
            return
        names = (
            {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - calls - _CONSTANTS.keys()
        )
        for sample in (0.3, 1.7, -2.2):  # an identity holds wherever its sides are defined
            env = {name: sample * (k + 1) for k, name in enumerate(sorted(names))}
            left, right = evaluate(tree.left, env), evaluate(tree.comparators[0], env)
            assert math.isclose(left, right, rel_tol=1e-12, abs_tol=1e-12), env
        return
    got = evaluate(tree)
    if claim.equals is not None:
        assert math.isclose(got, value_of(claim.equals), rel_tol=1e-12, abs_tol=1e-12)
    else:
        assert claim.approx is not None
        assert claim.rel_tol is not None or claim.abs_tol is not None, "approx needs a tolerance"
        rel, abs_ = claim.rel_tol or 0.0, claim.abs_tol or 0.0
        assert math.isclose(got, claim.approx, rel_tol=rel, abs_tol=abs_), got


def words(text: str) -> list[str]:
    """Words as the note counts them: punctuation dropped, 1-based by position."""
    return re.findall(r"[A-Za-z0-9]+", text)


def quoted_after(body: str, label: str) -> str:
    match = re.search(re.escape(label) + r'[^"]*"([^"]+)"', body)
    assert match, label
    return " ".join(match.group(1).split())


def test_coreference_positions_match_the_sentence() -> None:
    section = note().section("long-range-dependencies")
    assert section is not None
    from studykit.content.citations import render_citations

    body = render_citations(section.body, note())
    sentence = words(quoted_after(body, "**Sentence"))
    assert f"{len(sentence)} words" in body
    ceo = sentence.index("CEO") + 1
    for pronoun in ("She", "Her", "her"):
        position = sentence.index(pronoun) + 1
        assert f'"{pronoun}" (position {position})' in body
        assert f"distance ${position} - {ceo} = {position - ceo}$" in body


def test_translation_input_word_count_matches() -> None:
    section = note().section("compression-bottleneck")
    assert section is not None
    from studykit.content.citations import render_citations

    body = render_citations(section.body, note())  # the counts are the note's facts
    sentence = words(quoted_after(body, "**Input"))
    assert f"**Input ({len(sentence)} words):**" in body
    for word in ("committee", "discussed", "proposal"):
        assert f'"{word}" (position {sentence.index(word) + 1}' in body


def test_bundled_library_loads_without_problems() -> None:
    loading = pytest.importorskip("studykit.content.loading")
    if not hasattr(loading, "load_library"):
        pytest.skip("studykit.content.loading has no load_library yet")
    from studykit.core.config import bundled_root

    library = loading.load_library(bundled_root())
    assert [str(p) for p in library.problems] == []
    assert note().id in library.notes
    assert deck().id in library.decks

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

from studykit.model import Claim, Deck, Note

ROOT = Path(__file__).resolve().parents[2]
NOTE_FILE = ROOT / "content" / "ai-ml" / "rnn-limitations.yaml"
DECK_FILE = ROOT / "decks" / "ai-ml" / "rnn-limitations.yaml"

# A distinctive phrase of each of the eight seed flashcards (#flashcards/ai-ml).
SEED_QUESTIONS = (
    "sequential processing bottleneck kya hai",
    "time ke across computation parallelize kyun nahi",
    "vanishing gradient formula derive karo",
    "compression bottleneck kya hai",
    "long sequences par kitna faster",
    "vanishing gradient problem fully kyun solve nahi",
    "effective context window formula kya hai",
    "long-range dependency problem kaise solve karta hai",
)
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


@pytest.mark.parametrize("phrase", SEED_QUESTIONS)
def test_seed_question_is_a_card(phrase: str) -> None:
    fronts = [card.front.lower() for card in deck().cards]
    assert sum(phrase.lower() in front for front in fronts) == 1


def test_experiments_are_the_planned_ones_and_all_attached() -> None:
    names = [s.experiment.name for s in note().sections if s.experiment]
    assert sorted(names) == sorted(EXPERIMENTS)


def test_enough_claims() -> None:
    assert len(all_claims()) >= 20


@pytest.mark.parametrize("claim", all_claims(), ids=lambda c: c.id)
def test_claim_arithmetic(claim: Claim) -> None:
    tree = ast.parse(claim.expr, mode="eval").body
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
    sentence = words(quoted_after(section.body, "**Sentence"))
    assert f"{len(sentence)} words" in section.body
    ceo = sentence.index("CEO") + 1
    for pronoun in ("She", "Her", "her"):
        position = sentence.index(pronoun) + 1
        assert f'"{pronoun}" (position {position})' in section.body
        assert f"distance ${position} - {ceo} = {position - ceo}$" in section.body


def test_translation_input_word_count_matches() -> None:
    section = note().section("compression-bottleneck")
    assert section is not None
    sentence = words(quoted_after(section.body, "**Input"))
    assert f"**Input ({len(sentence)} words):**" in section.body
    for word in ("committee", "discussed", "proposal"):
        assert f'"{word}" (position {sentence.index(word) + 1}' in section.body


def test_bundled_library_loads_without_problems() -> None:
    loading = pytest.importorskip("studykit.loading")
    if not hasattr(loading, "load_library"):
        pytest.skip("studykit.loading has no load_library yet")
    from studykit.config import bundled_root

    library = loading.load_library(bundled_root())
    assert [str(p) for p in library.problems] == []
    assert note().id in library.notes
    assert deck().id in library.decks

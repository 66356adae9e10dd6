"""measured_value(): a computed card's linked experiment answer, read from the store's cache."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

import pytest

from studykit.content.model import Card, Deck
from studykit.experiments.base import Answer, Outcome, Params, Result
from studykit.experiments.device import torch_version
from studykit.quiz import draw_variant
from studykit.quiz.measured import Measured, measure, measured_value
from studykit.quiz.variants import number_latex
from studykit.study.session import StudySession
from studykit.text.unicodemath import latex_to_unicode
from tests.conftest import make_library

MakeSession = Callable[..., StudySession]
K_STAR = Card.model_validate(
    {
        "id": "k-star",
        "kind": "numeric",
        "front": "gamma = {gamma}: k*?",
        "params": {"gamma": {"choices": [0.5]}},
        "answer": "ceiling(log(0.01)/log(gamma))",
        "experiment": {"name": "effective-context", "params": {"gamma": "{gamma}"}, "answer": "k"},
    }
)


def session_for(make_session: MakeSession, card: Card) -> StudySession:
    return make_session(make_library([Deck(id="d", name="D", cards=(card,))]))


def stored(gamma: float, k: int) -> Result:
    """A result as the cache keys it: validated params, cpu, this torch version."""
    params: Params = {"gamma": gamma, "threshold": 0.01, "max_steps": 100_000}
    answers = (Answer("k", "steps", k, "steps"), Answer("raw", "ratio", 6.64, "steps"))
    return Result("effective-context", params, 0, "cpu", torch_version(), 0.1, Outcome(answers, ""))


def test_nothing_is_measured_until_the_result_is_cached(make_session: MakeSession) -> None:
    session = session_for(make_session, K_STAR)
    variant = draw_variant(K_STAR, 1)
    assert measured_value(variant, session) is None
    session.store_experiment(stored(0.5, 7).to_json())
    found = measured_value(variant, session)
    assert found == Measured(7.0, "effective-context", device="cpu")
    assert found is not None and found.text() == "measured: 7 (experiment effective-context, cpu)"


def test_other_parameters_or_a_missing_answer_give_nothing(make_session: MakeSession) -> None:
    session = session_for(make_session, K_STAR)
    session.store_experiment(stored(0.6, 10).to_json())  # another gamma: not this variant
    assert measured_value(draw_variant(K_STAR, 1), session) is None
    session.store_experiment(stored(0.5, 7).to_json())
    unknown = K_STAR.model_copy(
        update={"experiment": K_STAR.experiment.model_copy(update={"answer": "nope"})}  # type: ignore[union-attr]
    )
    assert measured_value(draw_variant(unknown, 1), session) is None
    unlinked = K_STAR.model_copy(
        update={"experiment": K_STAR.experiment.model_copy(update={"answer": None})}  # type: ignore[union-attr]
    )
    assert measured_value(draw_variant(unlinked, 1), session) is None


def test_an_answer_key_must_look_like_one() -> None:
    with pytest.raises(ValueError, match="answer"):
        Card.model_validate(
            {**K_STAR.model_dump(), "experiment": {"name": "effective-context", "answer": "k*"}}
        )


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch")
def test_measure_runs_once_and_caches_through_the_session(make_session: MakeSession) -> None:
    session = session_for(make_session, K_STAR)
    variant = draw_variant(K_STAR, 1)
    seen: list[float] = []
    first = measure(variant, session, progress=lambda f, _m: seen.append(f))
    assert first == Measured(7.0, "effective-context", device="cpu")
    assert seen and seen[-1] == 1.0
    assert measured_value(variant, session) == first


def test_a_small_measured_value_reads_as_the_expected_value_does() -> None:
    value = 2.65614e-05
    variant_expected = latex_to_unicode(number_latex(value))  # as the Expected: line shows it
    shown = Measured(value, "bptt-memory").text()
    assert shown == f"measured: {variant_expected} (experiment bptt-memory, cpu)"
    assert shown == "measured: 2.65614 × 10⁻⁵ (experiment bptt-memory, cpu)"

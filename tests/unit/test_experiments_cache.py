"""The experiment cache in the real SQLite store, and card lookups through it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from studykit.content.loading import Library
from studykit.content.model import ExperimentRef
from studykit.experiments.base import ParamError, Result
from studykit.experiments.budget import Budget
from studykit.experiments.cache import lookup, run_cached
from studykit.experiments.cards import answer_for, resolved_params
from studykit.experiments.device import torch_version
from studykit.experiments.runner import run_in_process
from studykit.study.session import StudySession

pytest.importorskip("torch")
MakeSession = Callable[..., StudySession]


class CountingRunner:
    """The experiment run in this process, counting the calls (the last test runs a child)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, *args: Any, budget: Budget | None = None, **kwargs: Any) -> Result:
        self.calls += 1
        return run_in_process(*args, **kwargs)  # no budget in process: nothing to fence


def test_second_run_comes_from_the_cache(make_session: MakeSession, small_library: Library) -> None:
    session = make_session(small_library)
    runner = CountingRunner()
    params = {"gamma": 0.9, "threshold": 0.05}
    first = run_cached(session, "effective-context", params, device="cpu", runner=runner)
    second = run_cached(session, "effective-context", params, device="cpu", runner=runner)
    assert runner.calls == 1
    assert not first.cached and second.cached
    assert second.to_json() == first.to_json()
    assert second == first  # same content; `cached` is not part of equality

    # A new session on the same file still has it (it is in SQLite, not in memory).
    reopened = make_session(small_library)
    assert run_cached(reopened, "effective-context", params, device="cpu", runner=runner).cached
    assert runner.calls == 1


def test_any_other_input_misses_the_cache(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    runner = CountingRunner()
    base = {"d_model": 8, "positions": 8}
    run_cached(session, "positional-encoding", base, device="cpu", runner=runner)
    run_cached(session, "positional-encoding", {**base, "d_model": 16}, device="cpu", runner=runner)
    run_cached(session, "positional-encoding", base, device="cpu", seed=1, runner=runner)
    assert runner.calls == 3
    stored = session.cached_experiment(
        name="positional-encoding",
        params={"d_model": 8, "positions": 8, "base": 10_000.0},
        seed=0,
        device="cpu",
        torch_version="0.0.0-other",
    )
    assert stored is None


def test_alias_and_default_spellings_share_one_cache_entry(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    runner = CountingRunner()
    small = {"hidden_size": 4, "length": 10}
    run_cached(session, "rnn-gradient-decay", {**small, "gamma": 0.9}, device="cpu", runner=runner)
    hit = lookup(session, "rnn-gradient-decay", {**small, "rho": "0.9"}, device="cpu")
    assert hit is not None and hit.params["rho"] == 0.9
    assert runner.calls == 1


def test_answer_for_a_card_fills_placeholders_and_reads_the_cache(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    ref = ExperimentRef(name="effective-context", params={"gamma": "{gamma}"})
    assert resolved_params(ref, {"gamma": 0.97}) == {"gamma": 0.97}
    assert answer_for(ref, {"gamma": 0.97}, cache=session) is None
    run_cached(session, "effective-context", {"gamma": 0.97}, device="cpu")
    result = answer_for(ref, {"gamma": 0.97}, cache=session)
    assert result is not None and result.cached
    assert result.answer("k").value == 152
    assert result.torch_version == torch_version()
    with pytest.raises(ParamError, match="0 < gamma < 1"):
        answer_for(ref, {"gamma": 1.2}, cache=session)

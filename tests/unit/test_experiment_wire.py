"""What crosses a boundary as JSON: a Result (the cache and `--json`), the child's lines, and a
cached row that no longer reads. Every row a user has cached must still read."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from studykit.content.loading import Library
from studykit.experiments import process
from studykit.experiments.base import (
    Answer,
    ExperimentFailed,
    Outcome,
    ParamError,
    Plot,
    Result,
    Series,
    Table,
    TorchMissing,
)
from studykit.experiments.budget import LimitExceeded
from studykit.experiments.cache import lookup, run_cached
from studykit.experiments.device import torch_version
from studykit.experiments.protocol import (
    Finished,
    Progress,
    Request,
    encode,
    error_message,
)
from studykit.experiments.runner import prepare
from studykit.study.session import StudySession

MakeSession = Callable[..., StudySession]

RESULT = Result(
    name="effective-context",
    params={"gamma": 0.9, "threshold": 0.05, "steps": 3, "clip": True, "mode": "fast"},
    seed=7,
    device="cpu",
    torch_version="2.0.0",
    elapsed_s=0.25,
    outcome=Outcome(
        answers=(
            Answer("k", "Context", 21, "steps"),
            Answer("never", "Never forgets", float("inf")),
            Answer("name", "Model", "rnn"),
        ),
        explanation="ek line",
        plot=Plot("t", "step", "norm", (Series("measured", (0.0, 1.0), (1.0, float("-inf"))),)),
        table=Table(("a", "b"), (("1", "2"),)),
    ),
    machine="a CPU",
    peak_bytes=123,
)
# What the hand-written `to_json` wrote (and so what every cached row holds).
ROW: dict[str, Any] = {
    "name": "effective-context",
    "params": {"gamma": 0.9, "threshold": 0.05, "steps": 3, "clip": True, "mode": "fast"},
    "seed": 7,
    "device": "cpu",
    "torch_version": "2.0.0",
    "machine": "a CPU",
    "elapsed_s": 0.25,
    "peak_bytes": 123,
    "answers": [
        {"key": "k", "label": "Context", "value": 21, "unit": "steps"},
        {"key": "never", "label": "Never forgets", "value": "inf", "unit": ""},
        {"key": "name", "label": "Model", "value": "rnn", "unit": ""},
    ],
    "explanation": "ek line",
    "plot": {
        "title": "t",
        "x_label": "step",
        "y_label": "norm",
        "log_y": False,
        "series": [{"label": "measured", "x": [0.0, 1.0], "y": [1.0, "-inf"]}],
    },
    "table": {"headers": ["a", "b"], "rows": [["1", "2"]]},
}


def test_a_result_is_written_as_every_cached_row_is() -> None:
    document = RESULT.to_json()
    assert document == ROW
    assert json.loads(json.dumps(document)) == ROW  # plain JSON: inf and nan as strings


def test_a_cached_row_reads_back_to_the_same_result() -> None:
    again = Result.from_json(json.loads(json.dumps(ROW)), cached=True)
    assert again == RESULT and again.cached
    assert again.params == RESULT.params
    assert [type(v) for v in again.params.values()] == [float, float, int, bool, str]
    never = again.answer("never").value
    assert isinstance(never, float) and math.isinf(never)


def test_an_old_row_without_the_later_fields_reads() -> None:
    old = {k: v for k, v in ROW.items() if k not in ("machine", "peak_bytes", "plot", "table")}
    old["answers"] = [{"key": "k", "label": "Context", "value": 21}]
    result = Result.from_json(old)
    assert (result.machine, result.peak_bytes) == ("", 0)
    assert result.outcome == Outcome((Answer("k", "Context", 21),), "ek line")


@pytest.mark.parametrize(
    ("broken", "needle"),
    [
        ({k: v for k, v in ROW.items() if k != "explanation"}, "explanation"),
        ({**ROW, "seed": "seven"}, "seed"),
        ({**ROW, "answers": [{"key": "k"}]}, "label"),
        ({**ROW, "plot": {"title": "t"}}, "x_label"),
    ],
)
def test_a_row_missing_a_field_is_a_value_error_naming_it(
    broken: dict[str, Any], needle: str
) -> None:
    with pytest.raises(ValueError, match=needle):
        Result.from_json(broken)


def test_a_result_that_is_not_an_object_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="not list"):
        Result.from_json([1, 2])  # type: ignore[arg-type]


# -- the experiment cache: a row that no longer reads is a miss ------------------------------


def test_a_cached_row_that_does_not_read_is_run_again_and_replaced(
    make_session: MakeSession, small_library: Library
) -> None:
    session = make_session(small_library)
    found, values = prepare("effective-context", {}, "cpu")
    runs: list[Result] = []

    def runner(*args: object, **kwargs: object) -> Result:
        runs.append(replace(RESULT, params=values, seed=0, torch_version=torch_version()))
        return runs[-1]

    good = run_cached(session, found, {}, device="cpu", runner=runner)
    broken = {k: v for k, v in good.to_json().items() if k != "answers"}
    session.store_experiment(broken)  # the same inputs: it replaces the good row
    assert lookup(session, found, {}, device="cpu") is None
    again = run_cached(session, found, {}, device="cpu", runner=runner)
    assert len(runs) == 2 and not again.cached
    hit = lookup(session, found, {}, device="cpu")
    assert hit is not None and hit.cached and hit == good


# -- the child's lines -----------------------------------------------------------------------

REQUEST = Request(
    name="fake",
    target="nowhere:run",
    params={},
    device="cpu",
    seed=0,
    budget_bytes=1 << 30,
    budget_seconds=5.0,
)


@pytest.fixture
def child_says(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[bytes], None]]:
    """Replace the child by a process that reads the request and writes the given bytes."""
    process.stop_server()
    script = (
        "import sys; sys.stdin.buffer.readline(); "
        "sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]))"
    )

    def says(data: bytes) -> None:
        def spawn() -> subprocess.Popen[bytes]:
            return subprocess.Popen(
                [sys.executable, "-c", script, data.hex()],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )

        monkeypatch.setattr(process, "spawn", spawn)

    yield says
    process.stop_server()


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        (b"not json\n", "unreadable line"),
        (b'{"progress": "half"}\n', "unexpected message"),
        (b'{"progress": [0.5]}\n', "unexpected message"),
        (b'{"progress": [0.5, "x"], "result": {}}\n', "unexpected message"),
        (b'{"surprise": 1}\n', "unexpected message"),
        (b"[1, 2]\n", "unexpected message"),
        (b'{"error": "boom"}\n', "unexpected message"),
        (b'{"error": {"message": "no kind"}}\n', "unexpected message"),
        (b'{"result": [1]}\n', "unexpected message"),
        (b'{"result": {"name": "fake"}}\n', "malformed result"),
    ],
)
def test_a_malformed_line_from_the_child_is_a_clear_failure(
    child_says: Callable[[bytes], None], line: bytes, needle: str
) -> None:
    child_says(line)
    with pytest.raises(ExperimentFailed, match=f"fake: .*{needle}"):
        process.run_child(REQUEST)


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"kind": "param", "message": "bad gamma"}, ParamError),
        ({"kind": "limit", "message": "too big"}, LimitExceeded),
        ({"kind": "torch"}, TorchMissing),
        ({"kind": "from-a-newer-child", "message": "odd"}, ExperimentFailed),
    ],
)
def test_an_error_from_the_child_becomes_its_exception(
    child_says: Callable[[bytes], None], body: dict[str, str], error: type[Exception]
) -> None:
    child_says(json.dumps({"error": body}).encode() + b"\n")
    with pytest.raises(error) as raised:
        process.run_child(REQUEST)
    assert type(raised.value) is error


def test_progress_then_a_result_come_through_typed(child_says: Callable[[bytes], None]) -> None:
    lines = encode(Progress(progress=(0.5, "half way"))) + encode(Finished(result=ROW))
    child_says(lines)
    seen: list[tuple[float, str]] = []
    result = process.run_child(REQUEST, progress=lambda f, t: seen.append((f, t)))
    assert seen == [(0.5, "half way")]
    assert result == RESULT


def test_the_childs_lines_keep_their_wire_shape() -> None:
    assert json.loads(encode(Progress(progress=(0.25, "x")))) == {"progress": [0.25, "x"]}
    assert json.loads(encode(error_message(ParamError("bad")))) == {
        "error": {"kind": "param", "message": "bad"}
    }
    assert json.loads(encode(error_message(TorchMissing()))) == {
        "error": {"kind": "torch", "message": str(TorchMissing())}
    }
    wide = {**ROW, "plot": {**ROW["plot"], "series": [{"label": "l", "x": [math.inf], "y": []}]}}
    assert json.loads(encode(Finished(result=wide)))["result"]["plot"]["series"][0]["x"] == [
        math.inf
    ]
    assert encode(Progress(progress=(1.0, "done"))).endswith(b"}\n")


def test_a_request_of_the_wrong_shape_is_refused_by_the_child() -> None:
    assert Request.decode(REQUEST.encode()) == REQUEST
    with pytest.raises(ValueError, match="seed"):
        Request.decode(REQUEST.encode().replace(b'"seed": 0', b'"seed": "zero"'))

"""`check --run-experiments` reports a link whose run would be over budget, at its file:line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from studykit.checking import run_check
from tests.experiment_fixtures import SIZED, registered

pytest.importorskip("torch")

NOTE = """\
id: fixture
title: Fixture
sections:
  - id: small
    title: Small
    body: Fits.
    experiment: {name: test-sized, params: {size: 1}}
  - id: huge
    title: Huge
    body: Does not fit.
    experiment: {name: test-sized, params: {size: 64}}
"""


@pytest.fixture(autouse=True)
def sized() -> Iterator[None]:
    with registered(SIZED):
        yield


def test_an_over_budget_link_is_a_finding_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "fixture.yaml").write_text(NOTE, encoding="utf-8")
    report = run_check([tmp_path], tmp_path, run_experiments=True)
    [problem] = report.problems
    assert problem.path.endswith("content/fixture.yaml") and problem.line == 8  # `- id: huge`
    assert problem.kind == "experiment" and problem.subject == "test-sized"
    assert problem.message.startswith("test-sized would need ~64.0 GiB, ~1.0 s, over the budget")
    assert problem.message.endswith(
        "lower `size`, or raise the budget "
        "(--budget, or experiment_budget in config.toml) (section huge)"
    )

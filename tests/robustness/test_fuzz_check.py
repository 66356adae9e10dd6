"""Fuzzing load + check together: a note with arbitrary claim fields never raises past `check`."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studykit.checking.findings import Report
from studykit.checking.runner import check_library
from studykit.checking.scope import Scope
from studykit.content.loading import load_library
from studykit.core.errors import StudykitError

SCALARS = st.one_of(
    st.text(max_size=40),
    st.sampled_from([".nan", ".inf", "-.inf", "1e400", "__import__('os')", "0.95**295", "x == x"]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expr=SCALARS, approx=SCALARS, rel_tol=SCALARS, equals=st.none() | SCALARS)
def test_claims_never_escape_check(
    expr: object, approx: object, rel_tol: object, equals: object
) -> None:
    claim = {"id": "c", "says": "s", "expr": expr, "approx": approx, "rel_tol": rel_tol}
    if equals is not None:
        claim = {"id": "c", "says": "s", "expr": expr, "equals": equals}
    note = {
        "id": "n",
        "title": "T",
        "sections": [{"id": "s", "title": "S", "body": "b", "claims": [claim]}],
    }
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "content").mkdir()
        (root / "content" / "n.yaml").write_text(json.dumps(note), encoding="utf-8")  # JSON is YAML
        try:
            library = load_library(root)
            report = Report()
            check_library(library, Scope(root, None), report)
        except StudykitError:
            return
    assert report.claims + len(library.problems) >= 1

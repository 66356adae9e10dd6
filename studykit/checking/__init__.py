"""`studykit check`: every claim in the notes and every computed card's answer, verified.

Claims: `approx` within `rel_tol`/`abs_tol` (default rel 1e-6 when neither is given), `equals`
decided exactly by sympy, identities (`a == b`) by simplification or, where that cannot decide,
at random points. Computed cards: `{param}` placeholders declared, and the answer a finite real
for every choice and for a range's endpoints and grid points; then its evidence (see
`evidence`): each example, agreeing claim and `defines` compared with the answer, and a card
with none reported. Load problems come from the
loader. Imports neither textual nor torch.
"""

from __future__ import annotations

from studykit.checking.cards import check_card
from studykit.checking.claims import DEFAULT_REL_TOL, check_claim
from studykit.checking.findings import ExperimentSummary, Finding, Problem, Report
from studykit.checking.runner import CheckInputError, run_check, scopes

__all__ = [
    "DEFAULT_REL_TOL",
    "CheckInputError",
    "ExperimentSummary",
    "Finding",
    "Problem",
    "Report",
    "check_card",
    "check_claim",
    "run_check",
    "scopes",
]

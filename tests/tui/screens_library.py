"""A small library for pictures of the screens: long deck names, a typed sub-deck, a note."""

from __future__ import annotations

from datetime import timedelta

from studykit.content.loading import Library
from studykit.content.model import Card, Deck, Measurement, Note, Section
from studykit.study.session import Rating, StudySession
from tests.conftest import FakeClock, make_library

PARENT = "Maths::Linear algebra::Eigenvalues and eigenvectors"
COMPUTED = f"{PARENT}::Computed practice"
# Two timings from one machine: the Overview says where they were measured once, as a footnote.
TIMINGS = tuple(
    Measurement(
        id=key,
        experiment="parallelism",
        answer="rnn_ms",
        value=value,
        unit="ms",
        digits=2,
        deterministic=False,
        band=(1.0, 100.0),
        machine="2-core CPU (x86_64)",
        torch="2.13.0+cpu",
    )
    for key, value in (("power-ms", 3.2), ("solve-ms", 41.0))
)


def library() -> Library:
    """A note with long section titles, a parent deck with a note and a typed sub-deck."""
    note = Note(
        id="eigen-note",
        title="Eigenvalues and eigenvectors of a square matrix",
        number="2.3",
        path=("Maths", "Linear algebra"),
        sections=tuple(
            Section(id=f"s{i}", title=title, body=body, measured=TIMINGS if i == 1 else ())
            for i, (title, body) in enumerate(
                [
                    (
                        "Overview",
                        "An eigenvector $v$ of $A$ keeps its direction: $Av = λv$. Power "
                        "iteration took {measured:power-ms}, the full solver "
                        "{measured:solve-ms}.",
                    ),
                    (
                        "The characteristic polynomial and why its roots are the eigenvalues",
                        "$\\det(A - λI) = 0$ has the eigenvalues as its roots.",
                    ),
                    ("Trace and determinant", "The eigenvalues add up to the trace."),
                    (
                        "Common mistake: every matrix has a basis of eigenvectors",
                        "A shear has one eigenvector direction only.",
                    ),
                    ("Powers of a matrix", "$A^k v = λ^k v$: a factor below one decays."),
                ],
                start=1,
            )
        ),
    )
    parent = Deck(
        id="eigen",
        name=PARENT,
        note="eigen-note",
        new_per_day=5,
        cards=tuple(
            Card(id=f"basic-{i}", front=f"Question {i}: what is λ here?", back=f"Answer {i}.")
            for i in range(1, 9)
        ),
    )
    typed = Card.model_validate(
        {
            "id": "k-star",
            "kind": "numeric",
            "front": "A factor γ = {gamma} per step: after how many steps k is γᵏ ≤ 0.01?",
            "params": {"gamma": {"choices": [0.9]}},
            "answer": "ceiling(log(0.01)/log(gamma))",
            "tolerance": {"abs": 0.5},
        }
    )
    computed = Deck(id="eigen-computed", name=COMPUTED, note="eigen-note", cards=(typed,))
    return make_library([parent, computed], [note])


def with_history(study: StudySession, clock: FakeClock) -> StudySession:
    """Four answers on the days before the clock's time, then the clock back where it was."""
    start = clock.now
    for day, rating in enumerate((Rating.Good, Rating.Easy, Rating.Again, Rating.Good)):
        clock.set(start - timedelta(days=7 - day))
        card = study.next_card("eigen")
        assert card is not None
        study.answer(card, rating, duration_ms=4000)
    clock.set(start)
    return study

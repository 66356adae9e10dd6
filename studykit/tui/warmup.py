"""Work done once the first screen is up, in a thread worker, so that later screens are quick.

Without it the first typed answer waits for sympy to import ("Checking…" for a second or
more), the notes wait for the claim values they cite and parse their markdown, and each
screen's first opening pays for its modules (the experiments screen for the CUDA probe too).
Nothing here is needed for the first screen, which must never import sympy: the worker
starts after it has settled.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from studykit.study.session import StudySession

SCREEN_MODULES = (
    "studykit.tui.screens.review",
    "studykit.tui.screens.notes",
    "studykit.tui.screens.experiments",
    "studykit.tui.screens.quiz",
    "studykit.tui.screens.browser",
    "studykit.tui.screens.stats",
)


def warm_up(session: StudySession, cancelled: Callable[[], bool]) -> None:
    """sympy, the notes' claim values and markdown, the screens' modules and the CUDA probe,
    in that order (the first typed answer is the likeliest to come first); stops early once
    `cancelled()`."""
    from studykit.expressions import parse

    # The path a typed answer takes: our parser, its whitelist, sympy's tree, an equality.
    parse("(x**2 + 1) == (1 + x*x)", names=["x"]).holds({})
    prepare_notes(session, cancelled)
    for name in SCREEN_MODULES:
        if cancelled():
            return
        importlib.import_module(name)
    from studykit.tui.screens.experiments import cuda_reason

    cuda_reason()  # a child process only where torch is built for a GPU that may be there


def prepare_notes(session: StudySession, cancelled: Callable[[], bool]) -> None:
    """Every claim the notes cite computed, then their sections' markdown parsed as Notes
    shows it (`section_text`, `prepared_markdown`)."""
    from studykit.content.citations import CLAIM_VALUES, cited_claims

    notes = list(session.library.notes.values())
    for note in notes:
        for claim in cited_claims([section.body for section in note.sections], note):
            if cancelled():
                return
            CLAIM_VALUES.value(claim.expr)
    from studykit.tui.screens.notes import section_text
    from studykit.tui.widgets.drawn_markdown import TEXTS_KEPT, prepared_markdown

    sections = [(section, note) for note in notes for section in note.sections]
    for section, note in sections[:TEXTS_KEPT]:
        if cancelled():
            return
        prepared_markdown(section_text(section, note)[0])

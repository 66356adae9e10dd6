"""What a note declares once for all its texts: symbols' definitions and given facts."""

from __future__ import annotations

from pydantic import Field

from studykit.content.modelbase import Ident, NonEmpty, Strict


class Definition(Strict):
    """A symbol's definition, declared once for every text of its note (or deck)."""

    says: NonEmpty = Field(
        description="`symbol = expression` as LaTeX, e.g. `k^* = \\lceil \\log(0.01) / "
        "\\log(\\gamma) \\rceil`: every other `symbol = …` in the texts is checked against it."
    )
    source: str = Field(default="", description="Where it comes from, e.g. a paper or the seed.")


class Fact(Strict):
    """A given number (a parameter, a date, a count from the source), cited as `{fact:ID}`."""

    id: Ident = Field(description="Stable id, unique among the note's facts.")
    value: float = Field(description="The number, as the texts show it (`512`, `0.95`, `2017`).")
    unit: str = Field(default="", description="Unit shown after the value, e.g. `MiB`, `%`.")
    says: str = Field(default="", description="What it is, e.g. `tokens per sequence`.")
    source: NonEmpty = Field(description="Where it comes from: the seed, a paper, an example.")
    symbol: str | None = Field(
        default=None,
        description="LaTeX symbol it gives a value, e.g. `T`: every `T = …` in the note's and "
        "its decks' maths is checked against it.",
    )

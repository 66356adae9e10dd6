"""The content model: notes with sections and claims, decks with cards.

Every model is frozen and forbids unknown fields, so a typo in YAML is an error
that the loader reports with file:line and a "did you mean". The loader records
where each object came from in its `origin` (not part of the schema).
"""

from __future__ import annotations

from typing import Annotated, Literal, Self, get_args

from pydantic import Field, WithJsonSchema, model_validator

from studykit.content.declarations import Definition as Definition
from studykit.content.declarations import Fact as Fact
from studykit.content.evidence import Agreement as Agreement
from studykit.content.evidence import Example as Example
from studykit.content.evidence import ParamSpec as ParamSpec
from studykit.content.evidence import Tolerance as Tolerance
from studykit.content.modelbase import (
    COMPUTED_KINDS as COMPUTED_KINDS,
)
from studykit.content.modelbase import (
    ID_PATTERN as ID_PATTERN,
)
from studykit.content.modelbase import (
    AnswerKey as AnswerKey,
)
from studykit.content.modelbase import (
    CardKind as CardKind,
)
from studykit.content.modelbase import (
    EasyDays as EasyDays,
)
from studykit.content.modelbase import (
    Ident as Ident,
)
from studykit.content.modelbase import (
    NonEmpty as NonEmpty,
)
from studykit.content.modelbase import (
    Number as Number,
)
from studykit.content.modelbase import (
    Origin as Origin,
)
from studykit.content.modelbase import (
    ParamValue as ParamValue,
)
from studykit.content.modelbase import (
    Share as Share,
)
from studykit.content.modelbase import (
    Strict as Strict,
)
from studykit.content.modelbase import (
    TextOrigin as TextOrigin,
)
from studykit.content.modelbase import (
    Weekday as Weekday,
)
from studykit.content.ordinals import card_ordinals
from studykit.text.clozes import CLOZE_PATTERN, cloze_number_problem


class ExperimentRef(Strict):
    """A link to a live experiment and the parameters to run it with."""

    name: Ident = Field(description="Registered experiment name, e.g. `effective-context`.")
    params: dict[str, ParamValue] = Field(
        default_factory=dict,
        description="Parameter values; `{name}` refers to a computed card's drawn parameter.",
    )
    answer: AnswerKey | None = Field(
        default=None,
        description="Computed card: the experiment's named answer that measures the card's answer.",
    )
    tolerance: Tolerance | None = Field(
        default=None,
        description=(
            "Computed card: how close the measured `answer` must be to the card's formula under "
            "`check --run-experiments` (default: the card's own tolerance)."
        ),
    )

    @model_validator(mode="after")
    def _tolerance_needs_answer(self) -> Self:
        if self.tolerance is not None and self.answer is None:
            raise ValueError("`tolerance` compares the measured `answer`; name the `answer` too")
        return self


class Growth(Strict):
    """A measured scaling exponent behind a complexity claim: how a measured size grew."""

    measured: Ident = Field(description="Id of the note's `measured:` entry holding the exponent.")
    variable: NonEmpty = Field(description="The variable it grows in, e.g. `T`.")


class Claim(Strict):
    """A number or identity the text states, verified by `studykit check`."""

    id: Ident = Field(description="Stable id, unique within its note.")
    says: NonEmpty = Field(description="What the text states, as LaTeX.")
    expr: NonEmpty = Field(description="Safe expression that computes it (or an `==` identity).")
    approx: float | None = Field(default=None, description="Expected value, within tolerance.")
    equals: str | None = Field(default=None, description="Expected exact value, as an expression.")
    rel_tol: float | None = Field(default=None, ge=0, description="Relative tolerance for approx.")
    abs_tol: float | None = Field(default=None, ge=0, description="Absolute tolerance for approx.")
    digits: int | None = Field(
        default=None,
        ge=1,
        le=15,
        description="Significant figures where `{claim:ID}` cites it (default: as `approx`).",
    )
    order: str | None = Field(
        default=None,
        description="The growth `expr` (a cost formula) has, as `O(order)` in the text says.",
    )
    growth: Growth | None = Field(
        default=None,
        description="A measured scaling exponent the `order` must match (within ±0.1).",
    )

    @model_validator(mode="after")
    def _one_expectation(self) -> Self:
        identity = "==" in self.expr
        given = (self.approx is not None) + (self.equals is not None)
        if self.growth is not None and self.order is None:
            raise ValueError("`growth` backs a complexity claim: give the claim an `order`")
        if self.order is not None:
            if identity or given or self.rel_tol is not None or self.abs_tol is not None:
                raise ValueError(
                    "a complexity claim (`order`) takes `expr` as its cost formula and no "
                    "`approx`, `equals`, tolerance or `==`"
                )
            return self
        if identity and given:
            raise ValueError("an identity (`==` in expr) takes neither `approx` nor `equals`")
        if not identity and given != 1:
            raise ValueError("give exactly one of `approx` or `equals` (or write expr as `a == b`)")
        if (self.rel_tol is not None or self.abs_tol is not None) and self.approx is None:
            raise ValueError("`rel_tol`/`abs_tol` only apply with `approx`")
        return self


# A pair in YAML (`[low, high]`); the JSON Schema says so without `prefixItems`.
Band = Annotated[
    tuple[float, float],
    WithJsonSchema({"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}),
]


class Measurement(Strict):
    """A number an experiment measured, cited in the text as `{measured:ID}`."""

    id: Ident = Field(description="Stable id, unique among the note's measurements.")
    experiment: Ident = Field(description="Registered experiment that measured it.")
    params: dict[str, ParamValue] = Field(default_factory=dict, description="Run parameters.")
    seed: int = Field(default=0, description="Random seed of the run.")
    answer: AnswerKey = Field(description="The experiment's named answer that gave the value.")
    value: float = Field(description="The value measured.")
    unit: str = Field(default="", description="Unit shown after the value, e.g. `ms`, `MiB`.")
    digits: int | None = Field(default=None, ge=1, le=15, description="Significant figures shown.")
    tolerance: Tolerance | None = Field(
        default=None, description="How far a re-run may land (deterministic entries need one)."
    )
    deterministic: bool = Field(
        default=True,
        description="False for timings and training-success shares: compared with `band`.",
    )
    band: Band | None = Field(
        default=None,
        description="`[low, high]` a re-run of a non-deterministic entry must land in (edges "
        "included); it holds `value`.",
    )
    machine: NonEmpty = Field(description="Machine it was measured on, e.g. `2-core CPU (x86_64)`.")
    device: Literal["cpu", "cuda"] = Field(default="cpu", description="Device it ran on.")
    torch: NonEmpty = Field(description="PyTorch version it ran with, e.g. `2.13.0`.")

    @model_validator(mode="after")
    def _tolerance_when_deterministic(self) -> Self:
        if self.deterministic and self.tolerance is None:
            raise ValueError(
                "a deterministic measurement needs `tolerance` (re-runs are compared with it); "
                "a timing takes `deterministic: false` and a `band`"
            )
        if not self.deterministic and self.band is None:
            raise ValueError(
                "a non-deterministic measurement needs `band: [low, high]`, the range a re-run "
                f"must land in; for example `band: [{self.value / 2:g}, {self.value * 2:g}]`"
            )
        if self.deterministic and self.band is not None:
            raise ValueError(
                "`band` is for `deterministic: false` entries; this one has `tolerance`"
            )
        if self.band is not None and self.band[0] > self.band[1]:
            raise ValueError("`band` is `[low, high]`: its low end is above its high end")
        if self.band is not None and not self.band[0] <= self.value <= self.band[1]:
            low, high = self.band
            raise ValueError(
                f"`band` [{low:g}, {high:g}] does not hold the entry's value {self.value:g}"
            )
        return self


class Section(Strict):
    """One section of a note: markdown body with $inline$ and $$display$$ LaTeX."""

    id: Ident = Field(description="Stable id, unique within its note; cards point at it.")
    title: NonEmpty = Field(description="Heading shown in the notes screen.")
    body: NonEmpty = Field(description="Markdown with LaTeX maths.")
    claims: tuple[Claim, ...] = Field(default=(), description="Numbers the body states.")
    measured: tuple[Measurement, ...] = Field(
        default=(), description="Numbers experiments measured, cited as `{measured:ID}`."
    )
    experiment: ExperimentRef | None = Field(
        default=None, description="Experiment that measures it."
    )


class Note(Strict):
    """A note: one file under `content/`."""

    id: Ident = Field(description="Stable id; decks point at it with `note:`.")
    number: str | None = Field(default=None, description="Course numbering, e.g. `4.1.1`.")
    title: NonEmpty = Field(description="Title of the note.")
    path: tuple[str, ...] = Field(
        default=(), description="Subject path, e.g. [AI-ML, Transformers]."
    )
    language: str = Field(default="hinglish", description="Language of the prose.")
    sections: tuple[Section, ...] = Field(min_length=1, description="Sections in reading order.")
    definitions: tuple[Definition, ...] = Field(
        default=(),
        description="Symbols defined once for the note's sections, claims and its decks' cards.",
    )
    facts: tuple[Fact, ...] = Field(
        default=(),
        description="Given numbers (parameters, dates, counts from the source) its texts and "
        "its decks' cards cite as `{fact:ID}`: a number in the text must be cited or maths.",
    )
    labels: tuple[NonEmpty, ...] = Field(
        default=(),
        description="Words after which a number names a thing, not a quantity: with "
        "`[Limitation]`, `Limitation 3` needs no fact.",
    )

    def section(self, section_id: str) -> Section | None:
        """The section with this id, if any."""
        return next((s for s in self.sections if s.id == section_id), None)


class Card(Strict):
    """A flashcard. `front`/`back` are markdown with LaTeX."""

    id: Ident = Field(description="Stable forever: review history and Anki GUIDs hang on it.")
    kind: CardKind = Field(
        default="basic", description="basic | reversed | cloze | numeric | symbolic"
    )
    front: NonEmpty = Field(description="Question (cloze: text with {{c1::...}}).")
    back: str | None = Field(default=None, description="Answer; optional for cloze and computed.")
    source: Ident | None = Field(default=None, description="Section id in the deck's note.")
    tags: tuple[Ident, ...] = Field(default=(), description="Extra tags for this card.")
    params: dict[str, ParamSpec] = Field(default_factory=dict, description="Computed: parameters.")
    answer: str | None = Field(default=None, description="Computed: safe expression of the answer.")
    tolerance: Tolerance | None = Field(default=None, description="Numeric: accepted error.")
    experiment: ExperimentRef | None = Field(default=None, description="Measured answer, if any.")
    examples: tuple[Example, ...] = Field(
        default=(),
        description="Computed: cases worked by hand, e.g. `- {params: {gamma: 0.95}, value: 90}`.",
    )
    agrees_with: tuple[Agreement, ...] = Field(
        default=(),
        description=(
            "Computed: verified claims of the note the answer reproduces, e.g. "
            "`- {claim: k-star-gamma-095, params: {gamma: 0.95}}`."
        ),
    )
    defines: str | None = Field(
        default=None,
        description=(
            "Symbolic: a safe expression the answer must equal for every value of its names, "
            "e.g. `diff(tanh(z), z)` for `1 - tanh(z)**2`; sympy decides."
        ),
    )

    @model_validator(mode="after")
    def _kind_fields(self) -> Self:
        computed = self.kind in COMPUTED_KINDS
        if computed and not self.answer:
            raise ValueError(f"a `{self.kind}` card needs `answer` (a safe expression)")
        if not computed and (self.answer or self.params or self.tolerance):
            raise ValueError(
                f"`answer`, `params` and `tolerance` belong to numeric/symbolic cards, "
                f"not `{self.kind}`"
            )
        if not computed and (self.examples or self.agrees_with or self.defines is not None):
            raise ValueError(
                f"`examples`, `agrees_with` and `defines` are evidence for a computed answer; "
                f"a `{self.kind}` card has none"
            )
        if self.defines is not None and self.kind != "symbolic":
            raise ValueError(
                "`defines` is for symbolic cards; give a numeric card `examples` instead"
            )
        if self.kind == "numeric" and any(example.expr is not None for example in self.examples):
            raise ValueError("a numeric card's `examples` give a `value`, not an `expr`")
        if self.kind == "cloze" and not CLOZE_PATTERN.search(self.front):
            raise ValueError("a cloze card's front needs at least one {{c1::...}} deletion")
        if (
            self.kind == "cloze"
            and (problem := cloze_number_problem(self.front, "front")) is not None
        ):
            raise ValueError(problem)
        if self.kind in {"basic", "reversed"} and not (self.back and self.back.strip()):
            raise ValueError(f"a `{self.kind}` card needs a non-empty `back`")
        if not self.front.strip():
            raise ValueError("`front` is empty")
        return self

    @property
    def ordinals(self) -> tuple[int, ...]:
        """The card's schedules: 1; 1 and 2 when reversed; a cloze's deletion numbers."""
        return card_ordinals(self.kind, self.front)


class Deck(Strict):
    """A deck: one file under `decks/`, pointing at one note."""

    id: Ident = Field(description="Stable id; scheduling state hangs on deck id + card id.")
    name: NonEmpty = Field(description="Display name; `::` separates sub-decks, as in Anki.")
    note: Ident | None = Field(default=None, description="Note id whose sections cards cite.")
    description: str = Field(default="", description="Shown on the deck list.")
    definitions: tuple[Definition, ...] = Field(
        default=(),
        description="Symbols defined once for the deck's cards (beside its note's definitions).",
    )
    labels: tuple[NonEmpty, ...] = Field(
        default=(),
        description="Words after which a number names a thing (beside its note's labels).",
    )
    tags: tuple[Ident, ...] = Field(default=(), description="Tags every card gets.")
    desired_retention: float | None = Field(default=None, gt=0.7, lt=0.995)
    new_per_day: int | None = Field(default=None, ge=0, le=9999)
    reviews_per_day: int | None = Field(default=None, ge=0, le=99999)
    easy_days: EasyDays | None = Field(
        default=None,
        description=(
            "Easy Days for this deck's cards, e.g. {sat: 0.5, sun: 0}: a weekday's share of a "
            "normal day's reviews (1 normal, 0 as few as possible); replaces config.toml's."
        ),
    )
    bury_new_siblings: bool | None = Field(
        default=None,
        description=(
            "When one ordinal of a card (a cloze deletion, a direction) is answered, its new "
            "siblings wait until tomorrow, as in Anki (default: config.toml's, else true)."
        ),
    )
    bury_review_siblings: bool | None = Field(
        default=None,
        description=("The same for siblings due for review (default: config.toml's, else true)."),
    )
    cards: tuple[Card, ...] = Field(min_length=1, description="The cards.")

    @model_validator(mode="after")
    def _weekdays(self) -> Self:
        days = get_args(Weekday)
        for name in self.easy_days or {}:
            if name not in days:
                raise ValueError(
                    f"`easy_days` names `{name}`, which is no weekday; use {', '.join(days)}"
                )
        return self

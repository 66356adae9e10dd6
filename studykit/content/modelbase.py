"""The content model's building blocks: field types, where things were written, the base class."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, WithJsonSchema

ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
Ident = Annotated[str, Field(pattern=ID_PATTERN, min_length=1, max_length=80)]
NonEmpty = Annotated[str, Field(min_length=1)]
# Experiments name their answers in snake_case (`k_star`, `norm_at_T`), unlike content ids.
AnswerKey = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_]*$", min_length=1, max_length=80)]
ParamValue = str | int | float | bool
Number = int | float

CardKind = Literal["basic", "reversed", "cloze", "numeric", "symbolic"]
Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
Share = Annotated[float, Field(ge=0, le=1)]
_SHARE_SCHEMA = {"type": "number", "minimum": 0, "maximum": 1}
# Written out as properties: editors (and our schema tests) know these, not `propertyNames`.
EasyDays = Annotated[
    dict[str, Share],
    WithJsonSchema(
        {
            "type": "object",
            "properties": {day: _SHARE_SCHEMA for day in get_args(Weekday)},
            "additionalProperties": False,
        }
    ),
]
COMPUTED_KINDS: frozenset[str] = frozenset({"numeric", "symbolic"})


@dataclass(frozen=True, slots=True)
class Origin:
    """Where an object was written: file, 1-based line and column."""

    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class TextOrigin:
    """Where a text field's value starts, and whether its lines are the file's, one for one."""

    line: int
    column: int
    exact: bool  # a `|` block or a one-line scalar: value line k is file line `line + k`

    def line_at(self, text: str, index: int) -> int:
        """The file line of `text[index]` (the field's first line when lines do not map)."""
        return self.line + text.count("\n", 0, index) if self.exact else self.line


class Strict(BaseModel):
    """Base for content models: frozen, unknown fields rejected, origin tracked."""

    # Validators are built on first use, not at import: a cached library never needs them.
    model_config = ConfigDict(
        frozen=True, extra="forbid", str_strip_whitespace=False, defer_build=True
    )
    _origin: Origin | None = PrivateAttr(default=None)
    _texts: dict[str, TextOrigin] = PrivateAttr(default_factory=dict)

    @property
    def origin(self) -> Origin | None:
        """Where this object was written, when it came from a file."""
        return self._origin

    # Where a model was written is private state, not content: the loader and its cache set
    # it on the frozen model through pydantic's private attributes.
    def locate(self, origin: Origin | None) -> None:
        """Say where this object was written."""
        self._origin = origin

    def locate_texts(self, texts: dict[str, TextOrigin]) -> None:
        """Say where each of this object's text fields starts."""
        self._texts = texts

    @property
    def text_origins(self) -> dict[str, TextOrigin]:
        """Where each text field starts, by field name (empty when not from a file)."""
        return self._texts

    def text_origin(self, field: str) -> TextOrigin | None:
        """Where the text field `field` starts in the file, when it came from one."""
        return self._texts.get(field)

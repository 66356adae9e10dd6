"""Reading a pydantic error location against the schema, and naming what it points at."""

from __future__ import annotations

import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from studykit.content.model import (
    Card,
    Claim,
    Deck,
    ExperimentRef,
    Note,
    ParamSpec,
    Section,
    Tolerance,
)

_KIND_NAMES: Mapping[type[BaseModel], str] = {
    Note: "note",
    Section: "section",
    Claim: "claim",
    Deck: "deck",
    Card: "card",
    ParamSpec: "parameter",
    Tolerance: "`tolerance`",
    ExperimentRef: "`experiment`",
}
_UNION_TYPES: tuple[object, ...] = (Union, types.UnionType)


def unwrap(annotation: Any) -> Any:
    """Strip `Annotated[...]` and `X | None` down to the type that validates."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in _UNION_TYPES:
            members = [arg for arg in get_args(annotation) if arg is not type(None)]
            if len(members) != 1:
                return annotation
            annotation = members[0]
        else:
            return annotation


def is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


@dataclass(frozen=True)
class Place:
    """A pydantic error location read against the schema."""

    loc: tuple[str | int, ...]  # the path in the data (union member names removed)
    models: tuple[tuple[int, type[BaseModel]], ...]  # (length of loc prefix, model) outermost first
    leaf: Any  # the annotation at `loc`; None when unknown
    union: bool  # the error is one member's of a union


def read_place(model: type[BaseModel], loc: Sequence[str | int]) -> Place:
    annotation: Any = model
    data: list[str | int] = []
    models: list[tuple[int, type[BaseModel]]] = [(0, model)]
    union = False
    for step in loc:
        current = unwrap(annotation)
        origin = get_origin(current)
        if origin in _UNION_TYPES:
            union, annotation = True, None  # `step` names the member that was tried
            continue
        data.append(step)
        if is_model(current) and isinstance(step, str):
            field = current.model_fields.get(step)
            annotation = field.annotation if field is not None else None
        elif origin in (tuple, list) and get_args(current):
            annotation = get_args(current)[0]
        elif origin is dict and len(get_args(current)) == 2:
            annotation = get_args(current)[1]
        else:
            annotation = None
        if is_model(unwrap(annotation)):
            models.append((len(data), unwrap(annotation)))
    leaf = unwrap(annotation) if annotation is not None else None
    return Place(tuple(data), tuple(models), leaf, union)


def owner_of(place: Place, upto: int, data: object) -> tuple[str, type[BaseModel], int]:
    """How to name the innermost model at or above `loc[:upto]`, its class and loc length."""
    models = [entry for entry in place.models if entry[0] <= upto]
    length, model = models[-1]
    return _model_name(models, place.loc, data), model, length


def _model_name(
    models: Sequence[tuple[int, type[BaseModel]]], loc: Sequence[str | int], data: object
) -> str:
    length, model = models[-1]
    kind = _KIND_NAMES.get(model, model.__name__.lower())
    ident = _value_at(_value_at(data, loc[:length]), ["id"])
    if isinstance(ident, str) and ident:
        return f"{kind} `{ident}`"
    last = loc[length - 1] if length else None
    if model is ParamSpec and isinstance(last, str):
        name = f"parameter `{last}`"
    elif isinstance(last, int):
        name = f"{kind} #{last + 1}"
    else:
        name = kind if length else f"the {kind}"
    if "id" in model.model_fields or len(models) == 1:
        return name
    return f"{name} of {_model_name(models[:-1], loc, data)}"


def label_of(loc: Sequence[str | int]) -> str:
    """`front`, `tags` item 2, `params.gamma`."""
    names = ".".join(str(step) for step in loc if isinstance(step, str))
    label = f"`{names}`" if names else "the value"
    for step in loc:
        if isinstance(step, int):
            label += f" item {step + 1}"
    return label


def _value_at(data: object, loc: Sequence[str | int]) -> object:
    """The converted value along `loc`, or None when the path does not exist."""
    for step in loc:
        if isinstance(data, dict):
            data = data.get(step)
        elif isinstance(data, list) and isinstance(step, int) and 0 <= step < len(data):
            data = data[step]
        else:
            return None
    return data

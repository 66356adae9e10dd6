"""Pydantic validation errors -> problems at the YAML nodes they concern, in plain words."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, get_args

from pydantic import BaseModel, ValidationError
from yaml.nodes import Node, ScalarNode

from studykit.content.loading.naming import Place, is_model, label_of, owner_of, read_place
from studykit.content.loading.positions import locate, lookup
from studykit.content.loading.problems import LoadProblem, problem_at, shorten
from studykit.core.ids import slug
from studykit.core.suggest import closest, did_you_mean

_BACKTICKED = re.compile(r"`([a-z_]+)`")
_MAPPING = "a mapping (`key: value` lines)"
_LIST = "a list (`- item` lines)"
_EXPECTED: Mapping[str, str] = {
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "int_parsing_size": "a whole number of sensible size",
    "string_type": "text",
    "string_unicode": "text",
    "bool_type": "`true`/`false`",
    "bool_parsing": "`true`/`false`",
    "dict_type": _MAPPING,
    "model_type": _MAPPING,
    "model_attributes_type": _MAPPING,
    "tuple_type": _LIST,
    "list_type": _LIST,
    "iterable_type": _LIST,
}
_BOUNDS: Mapping[str, tuple[str, str]] = {
    "greater_than": ("gt", "greater than"),
    "greater_than_equal": ("ge", "at least"),
    "less_than": ("lt", "less than"),
    "less_than_equal": ("le", "at most"),
}


def _got(value: object) -> str:
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if value is None:
        return "nothing"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return repr(shorten(value)) if value else "empty text"
    if isinstance(value, date):
        return f"a date ({value.isoformat()})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__}"


def _join(options: Sequence[str]) -> str:
    if "a number" in options:
        options = [option for option in options if option != "a whole number"]
    unique = list(dict.fromkeys(options))
    return unique[0] if len(unique) == 1 else ", ".join(unique[:-1]) + " or " + unique[-1]


class ErrorMapper:
    """Turns one file's pydantic errors into problems at the YAML nodes they concern."""

    def __init__(self, model: type[BaseModel], data: object, root: Node, rel: str) -> None:
        self.model = model
        self.data = data
        self.root = root
        self.rel = rel

    def at(self, node: Node, message: str, hint: str | None = None) -> LoadProblem:
        return problem_at(self.rel, node.start_mark, message, hint)

    def problems(self, error: ValidationError) -> list[LoadProblem]:
        entries = [(read_place(self.model, e["loc"]), e) for e in error.errors(include_url=False)]
        failed = {place.loc for place, _ in entries}
        groups: dict[tuple[str | int, ...], list[tuple[Place, Any]]] = {}
        for place, entry in entries:
            size = len(place.loc)
            # Items that fail validation are left out, so a list can look too short.
            if entry["type"] == "too_short" and any(
                len(other) > size and other[:size] == place.loc for other in failed
            ):
                continue
            groups.setdefault(place.loc, []).append((place, entry))
        found: list[LoadProblem] = []
        for group in groups.values():
            unions = [entry for place, entry in group if place.union]
            if len(unions) > 1:
                found.append(self.union_problem(group[0][0], unions))
            found.extend(self.problem(place, entry) for place, entry in group if not place.union)
            if len(unions) == 1:
                found.append(self.problem(group[0][0], unions[0]))
        return found

    def union_problem(self, place: Place, entries: list[Any]) -> LoadProblem:
        owner, _, length = owner_of(place, len(place.loc) - 1, self.data)
        expected = _join([_EXPECTED.get(entry["type"], "a valid value") for entry in entries])
        _, node = locate(self.root, place.loc)
        return self.at(
            node,
            f"{label_of(place.loc[length:])} in {owner}: expected {expected}, "
            f"got {_got(entries[0].get('input'))}",
        )

    def problem(self, place: Place, entry: Any) -> LoadProblem:
        kind: str = entry["type"]
        loc = place.loc
        if kind == "extra_forbidden":
            owner, model, _ = owner_of(place, len(loc) - 1, self.data)
            key_node, node = locate(self.root, loc)
            fields = list(model.model_fields)
            hint = did_you_mean(str(loc[-1]), fields, "the fields are")
            return self.at(key_node or node, f"unknown field `{loc[-1]}` in {owner}", hint)
        if kind == "missing":
            owner, _, length = owner_of(place, len(loc) - 1, self.data)
            _, node = locate(self.root, loc[:length])
            return self.at(node, f"{owner} is missing `{loc[-1]}`", f"add `{loc[-1]}:`")
        if place.models[-1][0] == len(loc) and is_model(place.leaf):
            return self.model_problem(place, entry)
        return self.field_problem(place, entry)

    def model_problem(self, place: Place, entry: Any) -> LoadProblem:
        owner, _, _ = owner_of(place, len(place.loc), self.data)
        _, node = locate(self.root, place.loc)
        kind: str = entry["type"]
        if kind in ("value_error", "assertion_error"):
            message = (
                str(entry["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
            )
            # Point at the one field the message names, if it names exactly one that is here.
            named = {name: lookup(node, name) for name in _BACKTICKED.findall(message)}
            present = [found for found in named.values() if found is not None]
            if len(present) == 1:
                node = present[0][1]
            return self.at(node, f"{owner}: {message}")
        if kind in _EXPECTED:
            return self.at(
                node, f"{owner} must be {_EXPECTED[kind]}, got {_got(entry.get('input'))}"
            )
        return self.at(node, f"{owner}: {entry['msg']}")

    def field_problem(self, place: Place, entry: Any) -> LoadProblem:
        loc = place.loc
        owner, _, length = owner_of(place, len(loc) - 1, self.data)
        label = label_of(loc[length:])
        where = f"{label} in {owner}"
        key = next((step for step in reversed(loc) if isinstance(step, str)), "value")
        _, node = locate(self.root, loc)
        kind: str = entry["type"]
        value = entry.get("input")
        ctx: Mapping[str, Any] = entry.get("ctx") or {}
        hint: str | None = None
        if kind in _EXPECTED:
            message = f"{where}: expected {_EXPECTED[kind]}, got {_got(value)}"
            if kind == "string_type" and value is None:
                hint = f"write the text after `{key}:`"
            elif kind == "string_type" and type(node) is ScalarNode and node.value:
                hint = f'put it in quotes: `{key}: "{shorten(node.value)}"`'
        elif kind == "literal_error":
            choices = [str(choice) for choice in get_args(place.leaf)]
            message = f"{where} must be one of {', '.join(choices)}; got {_got(value)}"
            near = closest(str(value), choices)
            hint = f"did you mean `{near}`?" if near else None
        elif kind == "string_pattern_mismatch":
            message = (
                f"{where} must be an id (lowercase letters, digits and `-`, starting with a "
                f"letter or digit); got {_got(value)}"
            )
            suggestion = slug(str(value), fallback="")
            hint = f"try `{suggestion}`" if suggestion and suggestion != value else None
        elif kind == "string_too_short":
            message = f"{where} is empty"
            hint = f"write something after `{key}:`"
        elif kind == "string_too_long":
            message = f"{where} is longer than {ctx.get('max_length')} characters"
        elif kind == "too_short":
            message = f"{where} needs at least {ctx.get('min_length')} item(s)"
            hint = f"add an item under `{key}:`"
        elif kind == "too_long":
            message = f"{where} has more than {ctx.get('max_length')} item(s)"
        elif kind in _BOUNDS:
            name, words = _BOUNDS[kind]
            message = f"{where} must be {words} {ctx.get(name)}; got {_got(value)}"
        else:
            message = f"{where}: {entry['msg']}"
        return self.at(node, message, hint)

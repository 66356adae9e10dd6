"""A small JSON Schema validator for the keywords pydantic emits, for tests only.

The `jsonschema` package is not a dependency, so the tests validate YAML against the committed
schemas with this. It refuses any keyword it does not know, so a schema using more of JSON
Schema makes the tests fail instead of passing by ignoring the new keyword.
"""

from __future__ import annotations

import operator
import re
from typing import Any

ANNOTATIONS = frozenset({"$schema", "$comment", "title", "description", "default", "examples"})
ASSERTIONS = frozenset(
    {
        "$defs",
        "$ref",
        "type",
        "properties",
        "additionalProperties",
        "required",
        "items",
        "anyOf",
        "enum",
        "const",
        "pattern",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
    }
)
TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
    "object": (dict,),
    "array": (list, tuple),
}


class UnknownKeyword(ValueError):
    """The schema uses a keyword this validator does not implement."""


def _is_type(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name not in ("boolean",):
        return False
    return isinstance(value, TYPES[name])


def _resolve(root: dict[str, Any], ref: str) -> dict[str, Any]:
    if not ref.startswith("#/"):
        raise UnknownKeyword(f"only local $ref is supported, not {ref!r}")
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    assert isinstance(node, dict)
    return node


def schema_problems(root: dict[str, Any]) -> list[str]:
    """Every `$ref` in the schema that points nowhere, and every unknown keyword."""
    missing: list[str] = []

    def walk(node: Any, at: str, is_schema: bool) -> None:
        if isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, f"{at}/{i}", is_schema)
            return
        if not isinstance(node, dict):
            return
        for key, value in node.items():
            if is_schema and key not in ANNOTATIONS | ASSERTIONS:
                missing.append(f"{at}: unknown keyword {key!r}")
            if key == "$ref":
                try:
                    _resolve(root, value)
                except (KeyError, UnknownKeyword, AssertionError):
                    missing.append(f"{at}: $ref {value!r} points nowhere")
            elif key in ("properties", "$defs"):
                for name, sub in value.items():
                    walk(sub, f"{at}/{key}/{name}", True)
            elif key in ("items", "additionalProperties", "anyOf"):
                if isinstance(value, bool):
                    continue
                walk(value, f"{at}/{key}", True)

    walk(root, "#", True)
    return missing


def validate(instance: Any, root: dict[str, Any]) -> list[str]:
    """The errors of `instance` against `root`, each with its location (`/cards/0/bakc`)."""
    errors: list[str] = []
    _check(instance, root, root, "", errors)
    return errors


def _check(
    value: Any, schema: dict[str, Any], root: dict[str, Any], at: str, out: list[str]
) -> None:
    unknown = set(schema) - ANNOTATIONS - ASSERTIONS
    if unknown:
        raise UnknownKeyword(f"{at or '/'}: {sorted(unknown)}")
    where = at or "/"
    if "$ref" in schema:
        _check(value, _resolve(root, schema["$ref"]), root, at, out)
    if "anyOf" in schema:
        branches = []
        for branch in schema["anyOf"]:
            found: list[str] = []
            _check(value, branch, root, at, found)
            branches.append(found)
        if all(branches):
            out.append(f"{where}: matches none of anyOf ({'; '.join(b[0] for b in branches)})")
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is_type(value, name) for name in names):
            out.append(f"{where}: {value!r} is not of type {'/'.join(names)}")
            return
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        out.append(f"{where}: {value!r} is not {schema['const']!r}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            out.append(f"{where}: {value!r} is shorter than {schema['minLength']}")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            out.append(f"{where}: {value!r} is longer than {schema['maxLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{where}: {value!r} does not match {schema['pattern']!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        bounds = (
            ("minimum", operator.ge),
            ("maximum", operator.le),
            ("exclusiveMinimum", operator.gt),
            ("exclusiveMaximum", operator.lt),
        )
        for keyword, holds in bounds:
            if keyword in schema and not holds(value, schema[keyword]):
                out.append(f"{where}: {value!r} fails {keyword} {schema[keyword]}")
    if isinstance(value, (list, tuple)):
        if len(value) < schema.get("minItems", 0):
            out.append(f"{where}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            out.append(f"{where}: more than {schema['maxItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                _check(item, schema["items"], root, f"{at}/{i}", out)
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", ()):
            if name not in value:
                out.append(f"{where}: required property {name!r} is missing")
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                _check(item, properties[name], root, f"{at}/{name}", out)
            elif extra is False:
                out.append(f"{at}/{name}: additional property {name!r} is not allowed")
            elif isinstance(extra, dict):
                _check(item, extra, root, f"{at}/{name}", out)

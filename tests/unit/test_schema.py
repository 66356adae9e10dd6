"""`studykit schema`: the committed editor schemas match the models and catch real mistakes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from studykit.cli import cli
from studykit.content.loading import Library
from studykit.content.schemas import (
    FOLDERS,
    KINDS,
    SchemaKind,
    modeline,
    render_schema,
    schema_file,
)
from studykit.core.config import bundled_root
from tests.schema_subset import UnknownKeyword, schema_problems, validate

REPO = Path(__file__).resolve().parents[2]


def committed(kind: SchemaKind) -> dict[str, Any]:
    loaded = json.loads((REPO / schema_file(kind)).read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def bundled_files(kind: SchemaKind) -> list[Path]:
    files = sorted((bundled_root() / FOLDERS[kind]).rglob("*.yaml"))
    assert files, f"no bundled {kind} files"
    return files


@pytest.mark.parametrize("kind", KINDS)
def test_committed_schema_is_what_the_models_give(kind: SchemaKind) -> None:
    path = REPO / schema_file(kind)
    assert path.read_text(encoding="utf-8") == render_schema(kind), (
        f"{schema_file(kind)} is out of date with studykit/content/model.py; regenerate it with "
        f"`make schema` (or `studykit schema {kind} -o {schema_file(kind)}`) and commit it"
    )


@pytest.mark.parametrize("kind", KINDS)
def test_the_command_prints_and_writes_the_schema(kind: SchemaKind, tmp_path: Path) -> None:
    runner = CliRunner()
    printed = runner.invoke(cli, ["schema", kind])
    assert printed.exit_code == 0, printed.output
    assert printed.output == render_schema(kind)
    target = tmp_path / f"{kind}.json"
    written = runner.invoke(cli, ["schema", kind, "-o", str(target)])
    assert written.exit_code == 0 and written.output == ""
    assert target.read_text(encoding="utf-8") == render_schema(kind)


def test_an_unknown_kind_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["schema", "card"])
    assert result.exit_code == 2


@pytest.mark.parametrize("kind", KINDS)
def test_schema_is_well_formed_closed_and_described(kind: SchemaKind) -> None:
    schema = committed(kind)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema_problems(schema) == []
    objects = [schema, *schema["$defs"].values()]
    for node in objects:
        assert node["type"] == "object"
        assert node["additionalProperties"] is False, node["title"]
        assert node["title"] and node["description"], node["title"]
    described = [
        name
        for node in objects
        for name, field in node["properties"].items()
        if "description" in field
    ]
    assert {"id", "cards", "front", "back", "kind"} <= set(described) or kind == "note"
    assert {"id", "title", "sections", "claims", "says", "expr"} <= set(described) or kind == "deck"


def test_the_well_formed_check_can_fail() -> None:
    broken = {"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}, "oneOf": []}
    assert len(schema_problems(broken)) == 2
    with pytest.raises(UnknownKeyword):
        validate({}, broken)


@pytest.mark.parametrize("kind", KINDS)
def test_bundled_files_name_their_schema_on_the_first_line(kind: SchemaKind) -> None:
    for path in bundled_files(kind):
        rel = path.relative_to(bundled_root())
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first == modeline(kind, len(rel.parts) - 1), rel
        target = first.split("$schema=", 1)[1]
        assert (path.parent / target).resolve() == (bundled_root() / schema_file(kind)).resolve()


def test_the_loader_ignores_the_schema_line(bundled_library: Library) -> None:
    library = bundled_library
    assert [str(p) for p in library.problems] == []
    assert library.notes and library.decks


@pytest.mark.parametrize("kind", KINDS)
def test_bundled_files_validate_against_the_committed_schema(kind: SchemaKind) -> None:
    schema = committed(kind)
    for path in bundled_files(kind):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert validate(data, schema) == [], path.name


def plant(data: dict[str, Any], kind: SchemaKind, key: str, value: object) -> dict[str, Any]:
    """A copy of the file's data with `key: value` added to its first card (or section)."""
    planted: dict[str, Any] = json.loads(json.dumps(data))
    planted["cards" if kind == "deck" else "sections"][0][key] = value
    return planted


@pytest.mark.parametrize("kind", KINDS)
def test_planted_mistakes_are_caught_by_the_schema(kind: SchemaKind) -> None:
    schema = committed(kind)
    data = yaml.safe_load(bundled_files(kind)[0].read_text(encoding="utf-8"))
    list_key = "cards" if kind == "deck" else "sections"
    typo = "bakc" if kind == "deck" else "bdoy"
    assert validate(plant(data, kind, typo, "x"), schema) == [
        f"/{list_key}/0/{typo}: additional property {typo!r} is not allowed"
    ]
    assert any("does not match" in e for e in validate(plant(data, kind, "id", "Bad Id"), schema))
    assert validate({**data, "id": 7}, schema) == ["/id: 7 is not of type string"]
    missing = {k: v for k, v in data.items() if k != list_key}
    assert validate(missing, schema) == [f"/: required property {list_key!r} is missing"]


def test_a_card_kind_outside_the_list_is_caught() -> None:
    schema = committed("deck")
    data = yaml.safe_load(bundled_files("deck")[0].read_text(encoding="utf-8"))
    errors = validate(plant(data, "deck", "kind", "essay"), schema)
    assert errors == [
        "/cards/0/kind: 'essay' is not one of "
        + repr(["basic", "reversed", "cloze", "numeric", "symbolic"])
    ]

"""One file -> its model, with origins set, or the problems that stop it loading."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import ValidationError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from studykit.content.loading.citing import note_citation_problems, source_lines
from studykit.content.loading.positions import lookup_all, within
from studykit.content.loading.problems import LoadProblem, problem_at, too_deep
from studykit.content.loading.reading import read, syntax_problem
from studykit.content.loading.references import deck_problems, note_problems
from studykit.content.loading.validation import ErrorMapper
from studykit.content.loading.yamlnodes import Fatal, NodeBuilder, compose
from studykit.content.model import Deck, Note, Origin, Strict, TextOrigin


@dataclass
class LoadedFile:
    """What one file gave: a model (when nothing is wrong with it), its nodes, its problems."""

    rel: str
    model: Note | Deck | None = None
    root: Node | None = None
    raw_id: str | None = None
    lines: list[str] = dataclasses.field(default_factory=list)
    problems: list[LoadProblem] = dataclasses.field(default_factory=list)


def load_file(path: Path, rel: str, model: type[Note] | type[Deck]) -> LoadedFile:
    """Read, compose, convert and validate one file.

    At most `MAX_FILE_BYTES`, UTF-8 (a BOM is fine), composed into a node tree by the safe
    loader (libyaml's when available), converted to plain Python (duplicate keys, non-text
    keys, unsafe tags and alias bombs are refused), then validated by pydantic in one call.
    Pydantic's error locations are mapped back to the YAML nodes only when there is an error,
    so a clean file costs little more than `yaml.load` with `CSafeLoader`. Mapping keys are
    taken as written (`yes:` is the key "yes", not `True`).
    """
    data = read(path, rel)
    if isinstance(data, LoadProblem):
        return LoadedFile(rel, problems=[data])
    file = _examine(data, rel, model)
    if file.problems:
        file.problems = within(file.problems, data)
    return file


def _examine(data: bytes, rel: str, model: type[Note] | type[Deck]) -> LoadedFile:
    file = LoadedFile(rel)
    kind = "note" if model is Note else "deck"
    try:
        root = compose(data)
    except yaml.YAMLError as error:
        file.problems.append(syntax_problem(error, data.decode("utf-8"), rel))
        return file
    except RecursionError:
        file.problems.append(too_deep(rel))
        return file
    if root is None:
        file.problems.append(
            LoadProblem(rel, 1, 1, "the file is empty", f"a {kind} starts with `id:`")
        )
        return file
    file.root = root
    file.lines = source_lines(data.decode("utf-8", errors="replace"))
    mark = root.start_mark
    if type(root) is not MappingNode:
        what = "a list" if type(root) is SequenceNode else "a single value"
        file.problems.append(
            problem_at(
                rel,
                mark,
                f"a {kind} file must be a mapping of fields (`id: ...` and so on), not {what}",
                f"start the file with `id: your-{kind}-id` in the first column",
            )
        )
        return file
    builder = NodeBuilder(rel)
    try:
        raw = builder.value(root)
    except Fatal as fatal:
        file.problems.extend(builder.problems)
        file.problems.append(problem_at(rel, fatal.mark or mark, fatal.message, fatal.hint))
        return file
    except RecursionError:
        file.problems.append(too_deep(rel))
        return file
    file.problems.extend(builder.problems)
    raw_id = raw.get("id") if isinstance(raw, dict) else None
    file.raw_id = raw_id if isinstance(raw_id, str) else None
    try:
        validated = model.model_validate(raw)
    except ValidationError as error:
        taken = {(p.line, p.column) for p in file.problems}
        mapped = ErrorMapper(model, raw, root, rel).problems(error)
        file.problems.extend(p for p in mapped if (p.line, p.column) not in taken)
        return file
    _set_origins(validated, root, rel)
    if isinstance(validated, Note):
        file.problems.extend(note_problems(rel, root, validated))
        file.problems.extend(note_citation_problems(rel, root, validated, file.lines))
    else:
        file.problems.extend(deck_problems(rel, root, validated))
    file.model = validated
    return file


def _node_origin(rel: str, node: Node) -> Origin:
    return Origin(rel, node.start_mark.line + 1, node.start_mark.column + 1)


def _set_origin(obj: Strict, origin: Origin) -> None:
    obj.locate(origin)


_TEXT_FIELDS = frozenset(("title", "body", "front", "back", "says"))
_LISTS = ("definitions", "cards", "examples", "agrees_with", "sections", "claims", "measured")
_KEYS = _TEXT_FIELDS | frozenset(_LISTS)
"""The keys whose nodes give origins: one pass over a mapping finds them all."""


def _set_text_origins(obj: Strict, fields: dict[str, tuple[Node, Node]]) -> None:
    """Where each text field's value starts: a `|` block's lines map to the file's exactly."""
    texts: dict[str, TextOrigin] = {}
    for field, (_, value) in fields.items():
        if field not in _TEXT_FIELDS or type(value) is not ScalarNode:
            continue
        start, end = value.start_mark, value.end_mark
        if value.style == "|":
            texts[field] = TextOrigin(start.line + 2, 1, True)
        else:
            texts[field] = TextOrigin(start.line + 1, start.column + 1, start.line == end.line)
    obj.locate_texts(texts)


def _items(fields: dict[str, tuple[Node, Node]], key: str) -> list[Node]:
    found = fields.get(key)
    return list(found[1].value) if found is not None and type(found[1]) is SequenceNode else []


def _set_origins(model: Note | Deck, root: Node, rel: str) -> None:
    _set_origin(model, _node_origin(rel, root))
    top = lookup_all(root, _KEYS)
    for definition, node in zip(model.definitions, _items(top, "definitions"), strict=False):
        _set_origin(definition, _node_origin(rel, node))
        _set_text_origins(definition, lookup_all(node, _KEYS))
    if isinstance(model, Deck):
        for card, card_node in zip(model.cards, _items(top, "cards"), strict=False):
            _set_origin(card, _node_origin(rel, card_node))
            fields = lookup_all(card_node, _KEYS)
            for evidence, node in [
                *zip(card.examples, _items(fields, "examples"), strict=False),
                *zip(card.agrees_with, _items(fields, "agrees_with"), strict=False),
            ]:
                _set_origin(evidence, _node_origin(rel, node))
            _set_text_origins(card, fields)
        return
    for section, section_node in zip(model.sections, _items(top, "sections"), strict=False):
        _set_origin(section, _node_origin(rel, section_node))
        fields = lookup_all(section_node, _KEYS)
        _set_text_origins(section, fields)
        for claim, claim_node in zip(section.claims, _items(fields, "claims"), strict=False):
            _set_origin(claim, _node_origin(rel, claim_node))
            _set_text_origins(claim, lookup_all(claim_node, _KEYS))
        entries = _items(fields, "measured")
        for measurement, node in zip(section.measured, entries, strict=False):
            _set_origin(measurement, _node_origin(rel, node))

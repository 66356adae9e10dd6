"""YAML text -> node tree -> plain Python, refusing unsafe tags, duplicate keys and alias bombs."""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from studykit.content.loading.problems import LoadProblem, problem_at, shorten
from studykit.core.defaults import MAX_ALIAS_EXPANSION

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CONSTRUCTOR = yaml.constructor.SafeConstructor()

_YAML_TAG = "tag:yaml.org,2002:"
_STR = _YAML_TAG + "str"
_INT = _YAML_TAG + "int"
_MAP = _YAML_TAG + "map"
_SEQ = _YAML_TAG + "seq"
MERGE_TAG = _YAML_TAG + "merge"
_PLAIN_KEY_TAGS = frozenset(
    _YAML_TAG + name for name in ("int", "float", "bool", "null", "timestamp", "value")
)


def compose(data: bytes) -> Node | None:
    """The node tree of one YAML document, by the safe loader (libyaml's when available)."""
    return yaml.compose(data, Loader=_Loader)


class Fatal(Exception):
    """Stops converting a file; `mark` is filled in by the nearest mapping or sequence."""

    def __init__(self, message: str, hint: str | None, mark: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.mark = mark


def _tag_name(tag: str) -> str:
    return "!!" + tag[len(_YAML_TAG) :] if tag.startswith(_YAML_TAG) else tag


def _refuse_tag(node: Node) -> Fatal:
    tag = node.tag
    if tag.startswith(_YAML_TAG + "python/"):
        return Fatal(
            f"the tag `{_tag_name(tag)}` is not allowed: studykit reads plain YAML data "
            "and never builds Python objects from a file",
            "remove the tag",
            node.start_mark,
        )
    return Fatal(f"the tag `{_tag_name(tag)}` is not supported", "remove the tag", node.start_mark)


class NodeBuilder:
    """Turns a composed node tree into dicts, lists and scalars, noting what is wrong."""

    __slots__ = ("active", "count", "extra", "memo", "problems", "rel")

    def __init__(self, rel: str) -> None:
        self.rel = rel
        self.problems: list[LoadProblem] = []
        self.memo: dict[int, tuple[object, int]] = {}
        self.active: set[int] = set()
        self.count = 0  # values built, aliases expanded
        self.extra = 0  # values added by aliases

    def problem(self, mark: Any, message: str, hint: str | None = None) -> None:
        self.problems.append(problem_at(self.rel, mark, message, hint))

    def value(self, node: Node) -> object:
        if type(node) is ScalarNode:
            return node.value if node.tag == _STR else self.scalar(node)
        ident = id(node)
        seen = self.memo.get(ident)
        if seen is not None:
            result, size = seen
            self.count += size
            self.extra += size
            if self.extra > MAX_ALIAS_EXPANSION:
                raise Fatal(
                    f"aliases expand to more than {MAX_ALIAS_EXPANSION:,} values",
                    "write the values out or use fewer nested aliases",
                )
            return result
        if ident in self.active:
            raise Fatal(
                "an alias refers to the list or mapping that contains it",
                "YAML content cannot be recursive; remove the alias",
            )
        self.active.add(ident)
        start = self.count
        result = self.mapping(node) if type(node) is MappingNode else self.sequence(node)
        self.active.discard(ident)
        self.memo[ident] = (result, self.count - start + 1)
        return result

    def scalar(self, node: ScalarNode) -> object:
        tag = node.tag
        text: str = node.value
        if tag == _INT and text.isdecimal() and (len(text) == 1 or text[0] != "0"):
            try:
                return int(text)
            except ValueError:
                pass  # too many digits: the slow path reports it
        converter = _SCALARS.get(tag)
        if converter is None:
            raise _refuse_tag(node) from None
        try:
            return converter(node)
        except Exception:  # PyYAML's converters raise assorted errors on malformed text
            self.problem(
                node.start_mark,
                f"'{shorten(text)}' is not a valid `{_tag_name(tag)}` value",
                "put the text in quotes if it is meant as text",
            )
            return text

    def sequence(self, node: Node) -> list[object]:
        if node.tag != _SEQ:
            raise _refuse_tag(node)
        items: list[Node] = node.value
        self.count += len(items)
        try:
            return [self.value(item) for item in items]
        except Fatal as fatal:
            fatal.mark = fatal.mark or node.start_mark
            raise

    def mapping(self, node: Node) -> dict[str, object]:
        if node.tag != _MAP:
            raise _refuse_tag(node)
        pairs: list[tuple[Node, Node]] = node.value
        self.count += len(pairs)
        result: dict[str, object] = {}
        merges: list[Node] = []
        expected = len(pairs)
        for key_node, value_node in pairs:
            tag = key_node.tag
            if tag != _STR and (type(key_node) is not ScalarNode or tag not in _PLAIN_KEY_TAGS):
                expected -= 1
                if tag == MERGE_TAG:
                    merges.append(value_node)
                elif type(key_node) is ScalarNode:
                    raise _refuse_tag(key_node)
                else:
                    self.problem(
                        key_node.start_mark,
                        "a key must be plain text, not a list or mapping",
                        "write the key as text before the `:`",
                    )
                continue
            try:
                result[key_node.value] = self.value(value_node)
            except Fatal as fatal:
                fatal.mark = fatal.mark or key_node.start_mark
                raise
        if len(result) != expected:
            self.duplicates(pairs)
        if merges:
            result = self.merge(merges, result)
        return result

    def merge(self, merges: list[Node], own: dict[str, object]) -> dict[str, object]:
        """`<<: *base` (or a list of them): own keys win, then earlier merged mappings."""
        merged: dict[str, object] = {}
        for merge_node in reversed(merges):
            sources = merge_node.value if type(merge_node) is SequenceNode else [merge_node]
            for source in reversed(sources):
                if type(source) is not MappingNode:
                    self.problem(
                        merge_node.start_mark,
                        "`<<` merges mappings only",
                        "point `<<:` at a mapping, e.g. `<<: *defaults`",
                    )
                    continue
                try:
                    built = self.value(source)
                except Fatal as fatal:
                    fatal.mark = fatal.mark or merge_node.start_mark
                    raise
                if isinstance(built, dict):
                    merged.update(built)
        merged.update(own)
        return merged

    def duplicates(self, pairs: list[tuple[Node, Node]]) -> None:
        first: dict[str, Node] = {}
        for key_node, _ in pairs:
            if type(key_node) is not ScalarNode or key_node.tag == MERGE_TAG:
                continue
            earlier = first.setdefault(key_node.value, key_node)
            if earlier is not key_node:
                self.problem(
                    key_node.start_mark,
                    f"duplicate key `{key_node.value}`: it is on line "
                    f"{earlier.start_mark.line + 1} and again on line "
                    f"{key_node.start_mark.line + 1}",
                    "keep one of them",
                )


def _yaml_int(node: ScalarNode) -> object:
    return _CONSTRUCTOR.construct_yaml_int(node)


def _yaml_float(node: ScalarNode) -> object:
    return _CONSTRUCTOR.construct_yaml_float(node)


def _yaml_bool(node: ScalarNode) -> object:
    return _CONSTRUCTOR.bool_values[node.value.lower()]


def _yaml_null(node: ScalarNode) -> object:
    return None


def _yaml_timestamp(node: ScalarNode) -> object:
    return _CONSTRUCTOR.construct_yaml_timestamp(node)


def _yaml_binary(node: ScalarNode) -> object:
    return _CONSTRUCTOR.construct_yaml_binary(node)


def _yaml_text(node: ScalarNode) -> object:
    return node.value


_SCALARS = {
    _INT: _yaml_int,
    _YAML_TAG + "float": _yaml_float,
    _YAML_TAG + "bool": _yaml_bool,
    _YAML_TAG + "null": _yaml_null,
    _YAML_TAG + "timestamp": _yaml_timestamp,
    _YAML_TAG + "binary": _yaml_binary,
    MERGE_TAG: _yaml_text,  # a `<<` used as a value, not as a key
    _YAML_TAG + "value": _yaml_text,
}

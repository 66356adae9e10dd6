"""Where things are: character offsets as line:column, and data paths as YAML nodes."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Sequence

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from studykit.content.loading.problems import LoadProblem, problem_at
from studykit.content.loading.yamlnodes import MERGE_TAG

LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def position(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of a character index, counting line breaks as YAML does."""
    breaks = list(LINE_BREAK.finditer(text, 0, index))
    line_start = breaks[-1].end() if breaks else 0
    return len(breaks) + 1, index - line_start + 1


def within(problems: list[LoadProblem], data: bytes) -> list[LoadProblem]:
    """Problems placed past the last line (libyaml's "end of stream") moved to the end."""
    lines = LINE_BREAK.split(data.decode("utf-8", errors="replace"))
    return [
        dataclasses.replace(p, line=len(lines), column=len(lines[-1]) + 1)
        if p.line > len(lines)
        else p
        for p in problems
    ]


def lookup(node: Node, key: str) -> tuple[Node, Node] | None:
    """The (key node, value node) of `key` in a mapping node, following `<<` merges."""
    if type(node) is not MappingNode:
        return None
    merges: list[Node] = []
    for key_node, value_node in reversed(node.value):
        if type(key_node) is not ScalarNode:
            continue
        if key_node.tag == MERGE_TAG:
            merges.append(value_node)
        elif key_node.value == key:
            return key_node, value_node
    for merge_node in reversed(merges):
        sources = merge_node.value if type(merge_node) is SequenceNode else [merge_node]
        for source in sources:
            found = lookup(source, key)
            if found is not None:
                return found
    return None


def lookup_all(node: Node, keys: Collection[str]) -> dict[str, tuple[Node, Node]]:
    """`lookup` of each of `keys` that the mapping has, in one pass over its own keys."""
    if type(node) is not MappingNode:
        return {}
    found: dict[str, tuple[Node, Node]] = {}
    merged = False
    for key_node, value_node in node.value:  # the last of a repeated key wins, as in lookup
        if type(key_node) is not ScalarNode:
            continue
        if key_node.tag == MERGE_TAG:
            merged = True
        elif key_node.value in keys:
            found[key_node.value] = (key_node, value_node)
    if merged:
        for key in keys:
            if key not in found and (pair := lookup(node, key)) is not None:
                found[key] = pair
    return found


def locate(root: Node, loc: Sequence[str | int]) -> tuple[Node | None, Node]:
    """The key node (if the last step was a mapping key) and the deepest node along `loc`."""
    node, key_node = root, None
    for step in loc:
        if type(node) is MappingNode and isinstance(step, str):
            found = lookup(node, step)
            if found is None:
                break
            key_node, node = found
        elif type(node) is SequenceNode and isinstance(step, int) and 0 <= step < len(node.value):
            key_node, node = None, node.value[step]
        else:
            break
    return key_node, node


def problem_along(
    rel: str, root: Node, loc: Sequence[str | int], message: str, hint: str
) -> LoadProblem:
    """A problem at the deepest node along `loc` in the file `rel`."""
    _, node = locate(root, loc)
    return problem_at(rel, node.start_mark, message, hint)

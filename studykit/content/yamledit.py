"""Setting a few top-level number keys of a YAML file while every other byte stays as written.

There is no round-trip YAML library here, so this edits the text: the safe composer's marks
say where each top-level key's value is, only that value's token is replaced (a trailing
comment stays), and a missing key gets a line of its own, with the mapping's indentation,
after the key that comes before it in `order`. A value this cannot rewrite in place (quoted,
a block, an anchor or alias, a merge key at the top) is refused with a message instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode

from studykit.core.errors import StudykitError

__all__ = ["EditRefused", "number_values", "set_numbers"]

# A plain number (or null) token: what may be replaced, and what may replace it.
_TOKEN = re.compile(r"[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|~|null")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class EditRefused(StudykitError):
    """The file cannot be edited in place: the message says why and what to do."""


def _root(text: str) -> MappingNode:
    """The top-level block mapping (the pure-Python composer: its marks index into `text`)."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        raise EditRefused(f"this editor cannot read the file ({error}); edit it by hand") from error
    if not isinstance(root, MappingNode) or root.flow_style:
        raise EditRefused("the file's top level is not a block mapping; edit it by hand")
    if any(isinstance(k, ScalarNode) and k.tag.endswith(":merge") for k, _ in root.value):
        raise EditRefused("the file merges keys (`<<:`) at the top; edit it by hand")
    return root


def _pairs(root: MappingNode) -> dict[str, tuple[ScalarNode, Node]]:
    return {k.value: (k, v) for k, v in root.value if isinstance(k, ScalarNode)}


def _plain_value(text: str, key: ScalarNode, value: Node) -> ScalarNode:
    """The value node of `key` when it is a plain number or null on the key's own line."""
    if (
        isinstance(value, ScalarNode)
        and value.style is None
        and value.start_mark.line == key.start_mark.line == value.end_mark.line
        and value.start_mark.index > key.end_mark.index
    ):
        token = text[value.start_mark.index : value.end_mark.index]
        if token == "" or _TOKEN.fullmatch(token):
            return value
    raise EditRefused(
        f"line {key.start_mark.line + 1}: `{key.value}` is not a plain number on its own "
        "line (quoted, a block, an anchor or an alias); edit it by hand"
    )


def number_values(text: str, keys: Sequence[str]) -> dict[str, str]:
    """The value tokens of those of `keys` that the top-level mapping has ('' for null)."""
    pairs = _pairs(_root(text))
    found = {}
    for name in keys:
        if name in pairs:
            key, value = pairs[name]
            node = _plain_value(text, key, value)
            token = text[node.start_mark.index : node.end_mark.index]
            found[name] = "" if token in ("~", "null") else token
    return found


def set_numbers(text: str, values: Mapping[str, str], *, order: Sequence[str]) -> str:
    """`text` with each top-level key of `values` set to its token, every other byte kept.

    `order` lists the top-level keys in the order the format documents them; a missing key
    is added on a new line after the last one-line key before it in that order.
    """
    for token in values.values():
        if not _TOKEN.fullmatch(token):
            raise EditRefused(f"`{token}` is not a plain number")
    root = _root(text)
    pairs = _pairs(root)
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement), applied from the end
    missing = [name for name in order if name in values and name not in pairs]
    for name, token in values.items():
        if name in pairs:
            key, value = pairs[name]
            node = _plain_value(text, key, value)
            start, end = node.start_mark.index, node.end_mark.index
            if start == end:  # `key:` with nothing after it: the token goes after the colon
                colon = text.index(":", key.end_mark.index)
                start = end = colon + 1
                token = " " + token
            edits.append((start, end, token))
    if missing:
        edits.append(_insertion(text, root, pairs, missing, values, order))
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _insertion(
    text: str,
    root: MappingNode,
    pairs: dict[str, tuple[ScalarNode, Node]],
    missing: list[str],
    values: Mapping[str, str],
    order: Sequence[str],
) -> tuple[int, int, str]:
    """Lines for the missing keys, after the last one-line key that comes before them."""
    before = set(order[: order.index(missing[0])])
    one_line = [
        (key, value)
        for key, value in root.value
        if isinstance(key, ScalarNode)
        and key.value in before
        and key.start_mark.line == value.end_mark.line
        and value.end_mark.index > key.end_mark.index
    ]
    if not one_line:
        raise EditRefused(f"no one-line key to add `{missing[0]}` after; edit the file by hand")
    key, value = one_line[-1]
    found = _LINE_BREAK.search(text, value.end_mark.index)
    first = _LINE_BREAK.search(text)
    newline = found.group() if found else first.group() if first else "\n"
    indent = " " * key.start_mark.column
    lines = "".join(f"{indent}{name}: {values[name]}{newline}" for name in missing)
    if found is None:  # the key is on the file's last line, with no line break after it
        return len(text), len(text), newline + lines
    return found.end(), found.end(), lines

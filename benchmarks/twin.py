"""A bare Textual twin of a screen: its widgets written out as JSON and built back.

Each widget becomes the nearest class Textual itself defines, with the same id, classes,
text and children, so that a bare app can show what a studykit screen shows without any of
studykit's code (`bench_screens.py`, `first_screen.py`). Light on imports: the twin's side
of a benchmark pays for nothing but Textual.
"""

from __future__ import annotations

import importlib
from typing import Any

_CONTAINERS = {
    "Widget", "Container", "Horizontal", "Vertical", "VerticalScroll", "HorizontalScroll",
    "ScrollableContainer", "Grid", "Center", "Middle", "Right", "VerticalGroup",
    "HorizontalGroup", "ItemGrid",
}  # fmt: skip
"""Textual classes whose children are ours to clone; any other composes its own."""


# -- the widget tree, written out and built back ------------------------------------------


def _textual_class(widget: Any) -> type[Any]:
    """The nearest class of `widget` that Textual itself defines."""
    return next(c for c in type(widget).__mro__ if c.__module__.startswith("textual."))


def _text(content: Any) -> str:
    return content.plain if hasattr(content, "plain") else str(content)


def _static(widget: Any) -> dict[str, Any]:
    from rich.markdown import Markdown

    content = widget.content
    content = getattr(content, "markdown", content)  # studykit's DrawnMarkdown holds Rich's
    if isinstance(content, Markdown):
        return {"markdown": content.markup}
    if isinstance(content, str) or hasattr(content, "plain"):
        return {"text": _text(content)}
    # Another Rich renderable (a chart, a table): its text as drawn.
    lines = widget.render_lines(widget.region.reset_offset)
    return {"text": "\n".join(line.text.rstrip() for line in lines)}


def _tree_nodes(node: Any) -> list[Any]:
    return [[_text(child.label), _tree_nodes(child)] for child in node.children]


def _args(widget: Any, name: str) -> dict[str, Any]:
    """What the bare twin of `widget` needs to show the same thing."""
    if name in {"Static", "Label"}:
        return _static(widget)
    if name == "OptionList":
        prompts = [widget.get_option_at_index(i).prompt for i in range(widget.option_count)]
        return {"options": [_text(prompt) for prompt in prompts]}
    if name == "Button":
        return {"label": _text(widget.label), "variant": widget.variant}
    if name == "ProgressBar":
        return {"total": widget.total}
    if name == "Input":
        return {"value": widget.value, "placeholder": widget.placeholder}
    if name == "Select":
        options = [(_text(prompt), str(value)) for prompt, value in widget._options]
        return {
            "options": [o for o in options if o[1] != str(widget.BLANK)],
            "value": str(widget.value),
        }
    if name == "Tree":
        return {"label": _text(widget.root.label), "nodes": _tree_nodes(widget.root)}
    if name == "DataTable":
        columns = [_text(column.label) for column in widget.ordered_columns]
        rows = [[_text(cell) for cell in widget.get_row_at(i)] for i in range(widget.row_count)]
        return {"columns": columns, "rows": rows}
    return {}


def own(widgets: Any) -> list[Any]:
    """The screen's widgets, less those Textual mounts on every screen (toasts, tooltips)."""
    return [widget for widget in widgets if not (widget.id or "").startswith("textual-")]


def describe(widget: Any) -> dict[str, Any]:
    """`widget` and what it holds, as JSON: class, id, classes, content, children."""
    cls = _textual_class(widget)
    children = []
    if cls.__name__ in _CONTAINERS:
        children = [describe(child) for child in own(widget.children)]
    return {
        "module": cls.__module__,
        "type": cls.__name__,
        "id": widget.id,
        "classes": sorted(widget.classes),
        "display": widget.display,
        "args": _args(widget, cls.__name__),
        "children": children,
    }


def build(spec: dict[str, Any]) -> Any:
    """The bare Textual widget for one entry of `describe`, its children in it."""
    cls = getattr(importlib.import_module(spec["module"]), spec["type"])
    name, args = spec["type"], spec["args"]
    common = {"id": spec["id"], "classes": " ".join(spec["classes"]) or None}
    children = [build(child) for child in spec["children"]]
    if name in {"Static", "Label"}:
        if "markdown" in args:
            from rich.markdown import Markdown

            widget = cls(Markdown(args["markdown"], hyperlinks=False), **common)
        else:
            widget = cls(args.get("text", ""), markup=False, **common)
    elif name == "OptionList":
        widget = cls(*args["options"], **common)
    elif name == "Button":
        widget = cls(args["label"], variant=args["variant"], **common)
    elif name == "ProgressBar":
        widget = cls(total=args["total"], **common)
    elif name == "Input":
        widget = cls(value=args["value"], placeholder=args["placeholder"], **common)
    elif name == "Select":
        options = [tuple(o) for o in args["options"]]
        values = {value for _, value in options}
        value = args["value"] if args["value"] in values else cls.BLANK
        widget = cls(options, value=value, **common)
    elif name == "Tree":
        widget = cls(args["label"], **common)
        widget.show_root = False

        def grow(node: Any, nodes: list[Any]) -> None:
            for label, below in nodes:
                grow(node.add(label, expand=True), below)

        grow(widget.root, args["nodes"])
    elif name == "DataTable":
        widget = cls(**common)
        widget.add_columns(*args["columns"])
        widget.add_rows(args["rows"])
    elif name in _CONTAINERS:
        widget = cls(*children, **common)
    else:
        widget = cls(**common)
    widget.display = spec["display"]
    return widget

"""The one name for a JSON document: built for output (`--json`, a JSON Schema, an Anki
column) or read back before a model checks it. Values that cross module boundaries with a
known shape get a TypedDict or a model instead."""

from __future__ import annotations

from typing import Any, TypeAlias

JsonObject: TypeAlias = dict[str, Any]

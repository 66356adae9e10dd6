"""Rendered field HTML by field text, kept in the export ledger between exports.

Rendering markdown and maths is most of an export's time; a field that has not changed since
the last export is taken from the cache instead. The key is the text itself, marked as a
cloze field or not (hashing it cost more than the text takes to store); the cache is kept
under a version of the renderer (the source of the modules that render, and the markdown
libraries' versions), so a changed renderer can never serve HTML rendered the old way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, KeysView, Mapping
from functools import lru_cache
from importlib import metadata, resources

from studykit.export.html import markdown_html

# How keys are made: a cache of other keys is of another version, so it is never read.
_KEYS = "keys: cloze flag + text"
# The code that decides a field's HTML: the exporter's HTML module and the whole text package.
_RENDERER_MODULES = (("studykit.export", "html.py"),)
_RENDERER_PACKAGES = ("studykit.text",)


@lru_cache(maxsize=1)
def renderer_version() -> str:
    """A hash of everything that decides how a field renders."""
    digest = hashlib.blake2b(_KEYS.encode(), digest_size=8)
    for package, name in _RENDERER_MODULES:
        digest.update(resources.files(package).joinpath(name).read_bytes())
    for package in _RENDERER_PACKAGES:
        modules = sorted(
            (entry for entry in resources.files(package).iterdir() if entry.name.endswith(".py")),
            key=lambda entry: entry.name,
        )
        for module in modules:
            digest.update(module.name.encode() + b"\0" + module.read_bytes())
    for library in ("markdown-it-py", "cmarkgfm"):
        try:
            digest.update(f"{library} {metadata.version(library)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{library} absent".encode())
    return digest.hexdigest()


class FieldCache:
    """`markdown_html` through a cache: `known` entries (key -> HTML) and those made now.

    Renders through `for_deck` are remembered by deck (`used`), so that the ledger keeps for
    each deck just the fields of its latest export; `stored` says which keys it kept before.
    """

    def __init__(self, known: Mapping[str, str] | None = None) -> None:
        self.version = renderer_version()
        self.known = dict(known or {})
        self.new: dict[str, str] = {}
        self.hits = 0
        self.used: dict[str, dict[str, str]] = {}
        self.stored: dict[str, KeysView[str]] = {}

    @staticmethod
    def key(text: str, cloze: bool) -> str:
        """The field's key: its text after "c" for a cloze field, else "t"."""
        return ("c" if cloze else "t") + text

    def render(self, text: str, cloze: bool = False) -> str:
        """The field's HTML: from the cache, else rendered (and remembered)."""
        return self._lookup(text, cloze)[1]

    def for_deck(self, deck_id: str) -> Callable[[str, bool], str]:
        """`render`, remembering each field as one of `deck_id`'s."""
        used = self.used.setdefault(deck_id, {})

        def render(text: str, cloze: bool) -> str:
            key, html = self._lookup(text, cloze)
            used[key] = html
            return html

        return render

    def _lookup(self, text: str, cloze: bool) -> tuple[str, str]:
        key = self.key(text, cloze)
        cached = self.known.get(key)
        if cached is not None:
            self.hits += 1
            return key, cached
        rendered = markdown_html(text, cloze=cloze)
        self.known[key] = self.new[key] = rendered
        return key, rendered

"""`load_library`: the one way in, from the cache when it is fresh, else from the YAML."""

from __future__ import annotations

from pathlib import Path

from studykit.content.loading.gcpause import gc_paused
from studykit.content.loading.library import Library


def load_library(root: Path, *, cache_dir: Path | None = None) -> Library:
    """Load `root/content/**/*.yaml` (notes) and `root/decks/**/*.yaml` (decks).

    How it copes with problems, so that what a student sees is predictable:

    - Every problem is a `LoadProblem` (path relative to the root, 1-based line and
      column, what is wrong, how to fix it). Nothing raises for bad content.
    - A file with any problem is dropped as a whole, and every other file still
      loads. That includes the checks that look across files: a deck whose `note:`
      names no loaded note, or with a card whose `source:` names no section of that
      note, or whose `agrees_with` names no claim of it (or whose `examples` name values
      that are not the card's parameters), is dropped whole (not just the card). So are
      duplicate ids inside a file
      (cards in a deck; sections, and claims across sections, in a note), and so are
      files whose markdown shows a local image that is missing, not a regular file, too
      large, or outside the root (`studykit.content.images`).
    - When two files use the same note or deck id, the first in path order keeps
      it and the later file is dropped with a problem naming both.

    With `cache_dir`, an unchanged root is read back from the cache there (see
    `studykit.content.loading.cache`), which the YAML, its checks and their imports never touch.
    """
    with gc_paused():
        if cache_dir is None:
            return _build(Path(root))
        from studykit.content.loading.cache import load_cached

        return load_cached(Path(root), cache_dir, _build)


def _build(root: Path) -> Library:
    # Imported here: a cache hit never needs the YAML parser or the checks.
    from studykit.content.loading.building import build_library

    return build_library(root)

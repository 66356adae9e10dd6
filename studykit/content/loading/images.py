"""Load checks: every local image a card or section shows is a small image file in the root."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from yaml.nodes import Node, ScalarNode

from studykit.content.images import (
    MAX_IMAGE_BYTES,
    MAX_IMAGES_PER_FILE,
    ImageRef,
    find_images,
    resolve_image,
)
from studykit.content.loading.citing import scalar_place
from studykit.content.loading.positions import locate, problem_along
from studykit.content.loading.problems import LoadProblem
from studykit.content.model import Deck, Note
from studykit.core.files import special_kind

Loc = tuple[str | int, ...]


def _texts(model: Note | Deck) -> Iterator[tuple[Loc, str]]:
    """The markdown fields that may show images, with their place in the file."""
    if isinstance(model, Note):
        for index, section in enumerate(model.sections):
            yield ("sections", index, "body"), section.body
        return
    for index, card in enumerate(model.cards):
        for field in ("front", "back"):
            text = getattr(card, field)
            if text:
                yield ("cards", index, field), text


def image_fault(
    image: ImageRef, folder: Path, root: Path, watched: set[Path] | None = None
) -> tuple[str, str] | None:
    """What is wrong with a local image (message, hint), or None when it can be packed.

    Each file looked at, found or not, goes into `watched` (the library cache's key).
    """
    found = resolve_image(image.src, folder, root)
    if isinstance(found, str):
        return found, "put the image beside the YAML file (or below it) and name it relatively"
    if watched is not None:
        watched.add(found)
    shown = found.relative_to(root.resolve()).as_posix()
    try:
        status = os.stat(found)
    except OSError:
        return f"image `{image.src}` not found (looked for {shown})", "add the file or fix the path"
    if not stat.S_ISREG(status.st_mode):
        kind = special_kind(found) or "not a regular file"
        return f"image `{image.src}` is {kind}, not an image file", "point at an image file"
    if status.st_size > MAX_IMAGE_BYTES:
        return (
            f"image `{image.src}` is {status.st_size / 1_048_576:.1f} MB, over the "
            f"{MAX_IMAGE_BYTES / 1_048_576:g} MB limit",
            "shrink it (a PNG or SVG of a few hundred KB shows well in Anki)",
        )
    return None


def image_problems(
    rel: str,
    root: Node,
    model: Note | Deck,
    path: Path,
    content_root: Path,
    lines: Sequence[str],
    watched: set[Path] | None = None,
) -> list[LoadProblem]:
    """A problem at file:line for each local image that is missing, outside, odd or too big."""
    problems: list[LoadProblem] = []
    folder = path.parent
    count = 0
    for loc, text in _texts(model):
        for image in find_images(text):
            count += 1
            if count == MAX_IMAGES_PER_FILE + 1:
                fault: tuple[str, str] | None = (
                    f"more than {MAX_IMAGES_PER_FILE} images in one file",
                    "split the deck or note into smaller files",
                )
            elif image.remote or count > MAX_IMAGES_PER_FILE:
                continue
            else:
                fault = image_fault(image, folder, content_root, watched)
            if fault is None:
                continue
            _, node = locate(root, loc)
            if isinstance(node, ScalarNode):
                line, column = scalar_place(node, image.start, lines)
                problems.append(LoadProblem(rel, line, column, *fault))
            else:
                problems.append(problem_along(rel, root, loc, *fault))
    return problems

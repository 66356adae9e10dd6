"""Images in card and note markdown: `![alt](path)`, found outside code and maths.

One scanner serves the loader (every local image must exist inside the content root), the
terminal (an image shows as `[image: alt]`) and the Anki export (each file is packed once
under a content-hashed name and the reference rewritten to it).

Paths are relative to the YAML file that holds the text. Remote `http(s)://` images are never
fetched: the terminal shows the placeholder and the export turns them into plain links.
Absolute paths, other URL schemes (`file:`, `data:`, ...) and paths that leave the content
root are load problems. Reference-style images (`![alt][ref]`) are not looked at.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from studykit.text.mathscan import placed_pieces

MAX_IMAGE_BYTES = 2 * 1024 * 1024
"""An image over this is refused: cards are read on phones, and Anki syncs every byte."""

MAX_IMAGES_PER_FILE = 200
"""More image references than this in one YAML file is a load problem."""

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp"})
"""What Anki shows in a card on desktop and phones."""

_IMAGE = re.compile(
    r"!\[(?P<alt>(?:[^\[\]\\\n]|\\.)*)\]"
    r"\(\s*(?P<src><[^<>\n]*>|[^\s()<>]+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_TICKS = re.compile(r"`+")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_REMOTE = re.compile(r"^https?://", re.IGNORECASE)
_UNESCAPE = re.compile(r"\\(.)")


@dataclass(frozen=True, slots=True)
class ImageRef:
    """One `![alt](src)` in a text: where it is, its alt text and its target as written."""

    start: int
    end: int
    alt: str
    src: str

    @property
    def remote(self) -> bool:
        """An `http(s)://` image: never fetched, shown as a link."""
        return bool(_REMOTE.match(self.src))

    @property
    def label(self) -> str:
        """What a reader sees in place of the image: the alt text, else the file name."""
        alt = " ".join(_UNESCAPE.sub(r"\1", self.alt).split())
        return alt or PurePosixPath(self.src).name or self.src


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Where the inline code spans of a prose run are (text inside them is not markdown)."""
    spans: list[tuple[int, int]] = []
    i = 0
    while (ticks := _TICKS.search(text, i)) is not None:
        if ticks.start() > 0 and text[ticks.start() - 1] == "\\":
            i = ticks.end()
            continue
        run = ticks.group()
        close = re.compile(rf"(?<!`){run}(?!`)").search(text, ticks.end())
        if close is None:
            i = ticks.end()
            continue
        spans.append((ticks.start(), close.end()))
        i = close.end()
    return spans


def _escaped(text: str, index: int) -> bool:
    """Whether the character at `index` follows an odd number of backslashes."""
    count = 0
    while index - count - 1 >= 0 and text[index - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _prose_runs(text: str) -> Iterator[tuple[int, str]]:
    """(offset, run) of the text outside fenced code and maths."""
    for start, _, piece in placed_pieces(text):
        if isinstance(piece, str):
            yield start, piece


def find_images(text: str) -> list[ImageRef]:
    """Every inline image of `text`, in order, outside code and maths."""
    found: list[ImageRef] = []
    if "![" not in text:  # most texts: skip the scan (the loader calls this on every field)
        return found
    for offset, run in _prose_runs(text):
        if "![" not in run:
            continue
        spans = _code_spans(run)
        for match in _IMAGE.finditer(run):
            start, end = match.span()
            if _escaped(run, start) or any(a < end and start < b for a, b in spans):
                continue
            src = match.group("src")
            if src.startswith("<"):
                src = src[1:-1]
            found.append(ImageRef(offset + start, offset + end, match.group("alt"), src.strip()))
    return found


def replace_images(text: str, replace: Callable[[ImageRef], str]) -> str:
    """`text` with each image's markdown replaced by `replace(image)`."""
    images = find_images(text)
    if not images:
        return text
    out: list[str] = []
    last = 0
    for image in images:
        out += [text[last : image.start], replace(image)]
        last = image.end
    out.append(text[last:])
    return "".join(out)


def _escape(label: str) -> str:
    return re.sub(r"([\\`*_\[\]<>#!|~])", r"\\\1", label)


def placeholder(image: ImageRef) -> str:
    """`[image: alt]` as markdown that shows those very characters."""
    return f"\\[image: {_escape(image.label)}\\]"


def image_placeholders(text: str) -> str:
    """Markdown for the terminal: every image a readable `[image: alt]`."""
    return replace_images(text, placeholder)


def resolve_image(src: str, folder: Path, root: Path) -> Path | str:
    """The file a local image names (relative to `folder`, inside `root`), or why not.

    The path is resolved (links followed), so a link out of the root is refused too.
    """
    if _SCHEME.match(src) or src.startswith("//"):
        return (
            "only images inside the content root (a path relative to this file) or "
            "http(s):// links can be used"
        )
    path = unquote(src)
    if not path or os.path.isabs(path) or path.startswith(("/", "\\")) or "\x00" in path:
        return "an image path must be relative to this YAML file, not absolute"
    if PurePosixPath(path).suffix.lower() not in IMAGE_SUFFIXES:
        shown = ", ".join(sorted(IMAGE_SUFFIXES))
        return f"`{src}` is not an image file Anki shows ({shown})"
    target = Path(folder, path)
    try:
        resolved = target.resolve()
        inside = root.resolve()
    except (OSError, RuntimeError):
        return f"cannot resolve `{src}`"
    if not resolved.is_relative_to(inside):
        return f"`{src}` leads outside the content root"
    return resolved

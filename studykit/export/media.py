"""The files an Anki package carries: card images and experiment plots, each packed once.

Images are read with `read_regular` (regular files only, `MAX_IMAGE_BYTES` each) and packed
as `studykit-<hash of the bytes>.<ext>`: two files with the same name in different folders
do not collide, the same bytes are packed once, and an unchanged file keeps its name on every
export (so Anki's update sees no change). Remote images become links; nothing is fetched.

A card (or the note section it cites) linked to an experiment gets the plot of the cached
result, as `studykit-plot-<hash of the plot data>.svg`. Nothing is run here: a link without
a cached result is reported (`runs.py` runs those first for `export anki --run-experiments`).
Plots are drawn after planning (`draw_missing`), into the plot folder of the data dir when
there is one, so a later export draws only the plots it has not drawn before.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from studykit.content.images import MAX_IMAGE_BYTES, ImageRef, replace_images, resolve_image
from studykit.content.model import ExperimentRef
from studykit.core.errors import StudykitError
from studykit.core.files import FileRefused, read_regular
from studykit.experiments.base import DEFAULT_SEED, ExperimentError, Plot
from studykit.experiments.cache import ExperimentCache, lookup
from studykit.experiments.cards import resolved_params

MAX_MEDIA_FILES = 2000
"""Images and plots in one package, at most."""

MAX_MEDIA_BYTES = 256 * 1024 * 1024
"""Bytes of images in one package, at most (plots are a few tens of KB each)."""

PlotProgress = Callable[[int], AbstractContextManager[Callable[[int], None]]]
"""Given how many plots must be drawn, a context that yields `advance(n)`."""

_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
_ALT_UNSAFE = re.compile(r"([\\`*_\[\]<>#!|~$])")
_DEVICES = ("cpu", "cuda")


class MediaError(StudykitError):
    """An image could not be packed, or the package would carry too much."""


@dataclass(frozen=True)
class MissingRun:
    """An experiment link without a cached result: what to run to give its cards a plot."""

    experiment: str
    params: tuple[tuple[str, object], ...]


@dataclass
class MediaReport:
    """What the packing did, for the command to tell the user."""

    images: int = 0
    plots: int = 0
    drawn: int = 0
    skipped_plots: int = 0
    """Plots not drawn because matplotlib is not installed."""
    missing: dict[MissingRun, None] = field(default_factory=dict)
    refused: dict[str, None] = field(default_factory=dict)
    """Experiment links whose parameters the experiment refuses."""


def _alt(text: str) -> str:
    return _ALT_UNSAFE.sub(r"\\\1", " ".join(text.split()))


class MediaPack:
    """Collects a package's media while the notes are planned; `files()` lists them to zip."""

    def __init__(
        self,
        root: Path,
        staging: Path,
        *,
        cache: ExperimentCache | None = None,
        plot_dir: Path | None = None,
    ) -> None:
        self.root = root
        self.staging = staging
        self.cache = cache
        self.plot_dir = plot_dir
        self.report = MediaReport()
        self._images: dict[Path, str] = {}  # resolved file -> packed name
        self._files: dict[str, Path] = {}  # packed name -> file to zip
        self._plots: dict[str, Plot] = {}  # packed name -> plot to draw
        self._bytes = 0
        self._plots_ok: bool | None = None
        self._seen: dict[tuple[str, str], str] = {}  # (experiment, params) -> markdown

    # -- images ----------------------------------------------------------------------------

    def images(self, text: str, folder: Path) -> str:
        """`text` with each local image packed and renamed, and remote images made links."""
        if "![" not in text:  # no image can start (most fields)
            return text
        return replace_images(text, lambda image: self._image(image, folder))

    def _image(self, image: ImageRef, folder: Path) -> str:
        if image.remote:
            return f"[{_alt(image.label)}]({image.src})"
        found = resolve_image(image.src, folder, self.root)
        if isinstance(found, str):
            raise MediaError(f"image `{image.src}`: {found}")
        name = self._images.get(found)
        if name is None:
            name = self._pack_image(image, found)
            self._images[found] = name
        return f"![{image.alt}]({name})"

    def _pack_image(self, image: ImageRef, path: Path) -> str:
        try:
            data = read_regular(path, MAX_IMAGE_BYTES)
        except FileRefused as error:
            raise MediaError(f"image `{image.src}` ({path}): {error}") from error
        suffix = PurePosixPath(path.name).suffix.lower()
        name = f"studykit-{hashlib.sha256(data).hexdigest()[:20]}{suffix}"
        if name not in self._files:
            self._count(len(data))
            target = self.staging / name
            target.write_bytes(data)
            self._files[name] = target
            self.report.images += 1
        return name

    def _count(self, size: int) -> None:
        self._bytes += size
        if len(self._files) + len(self._plots) + 1 > MAX_MEDIA_FILES:
            raise MediaError(
                f"more than {MAX_MEDIA_FILES} images and plots in one package; "
                "export fewer decks at a time (--deck)"
            )
        if self._bytes > MAX_MEDIA_BYTES:
            raise MediaError(
                f"the images come to more than {MAX_MEDIA_BYTES // 1_048_576} MB; "
                "shrink them or export fewer decks at a time (--deck)"
            )

    # -- plots -----------------------------------------------------------------------------

    def plot(self, ref: ExperimentRef | None, values: Mapping[str, object] | None = None) -> str:
        """Markdown showing the linked experiment's cached plot, or "" (why is in the report)."""
        if ref is None or self.cache is None:
            return ""
        params = resolved_params(ref, values or {})
        if any(isinstance(v, str) and _PLACEHOLDER.fullmatch(v) for v in params.values()):
            return ""  # a computed card exported as its formula: no values, no one plot
        key = (ref.name, json.dumps(params, sort_keys=True, default=str))
        if key not in self._seen:  # each run looked up, drawn and reported once
            self._seen[key] = self._plot_markdown(ref.name, params)
        return self._seen[key]

    def _plot_markdown(self, experiment: str, params: Mapping[str, object]) -> str:
        found = self._cached_plot(experiment, params)
        if found is None:
            return ""
        if self._plots_ok is None:
            from studykit.experiments.plotimage import plots_available

            self._plots_ok = plots_available()
        if not self._plots_ok:
            self.report.skipped_plots += 1
            return ""
        from studykit.experiments.plotimage import plot_key

        name = f"studykit-plot-{plot_key(found)}.svg"
        if name not in self._plots:
            self._count(0)
            self._plots[name] = found
            self.report.plots += 1
        return f"![Plot: {_alt(found.title)}]({name})"

    def _cached_plot(self, experiment: str, params: Mapping[str, object]) -> Plot | None:
        assert self.cache is not None
        for device in _DEVICES:
            try:
                result = lookup(self.cache, experiment, params, device=device, seed=DEFAULT_SEED)
            except ExperimentError as error:
                if device == _DEVICES[0]:  # bad parameters: no run can give them a plot
                    self.report.refused.setdefault(f"{experiment}: {error}", None)
                    return None
                continue  # no CUDA here: a result run on it cannot be looked up
            if result is not None:
                return result.outcome.plot
        shown = tuple((key, value) for key, value in params.items())
        self.report.missing.setdefault(MissingRun(experiment, shown), None)
        return None

    def draw_missing(self, progress: PlotProgress | None = None) -> None:
        """Draw the plots that are not in the plot folder yet (with `progress` when given)."""
        folder = self.plot_dir or self.staging
        todo = [name for name in self._plots if not (folder / name).is_file()]
        for name in self._plots:
            self._files[name] = folder / name
        if not todo:
            return
        from studykit.experiments.plotimage import render_svg

        folder.mkdir(parents=True, exist_ok=True)
        bar = progress(len(todo)) if progress is not None else None
        with bar if bar is not None else _Quiet() as advance:
            for name in todo:
                plot = self._plots[name]
                try:
                    drawn = render_svg(plot)
                except (ValueError, TypeError, OverflowError) as error:
                    raise MediaError(f"the plot {plot.title!r} cannot be drawn: {error}") from error
                partial = folder / f".{name}.partial"
                partial.write_bytes(drawn)
                partial.replace(folder / name)
                self.report.drawn += 1
                advance(1)

    def files(self) -> list[Path]:
        """The files to zip, in a stable order (the package's media names are their names)."""
        return [self._files[name] for name in sorted(self._files)]


class _Quiet(AbstractContextManager[Callable[[int], None]]):
    """A progress context that shows nothing."""

    def __enter__(self) -> Callable[[int], None]:
        return lambda _n: None

    def __exit__(self, *_exc: object) -> None:
        return None

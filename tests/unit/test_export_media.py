"""Images and experiment plots: load problems at file:line, packed media read back by Anki."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from anki.collection import Collection
from click.testing import CliRunner

from studykit.cli import cli
from studykit.content.images import MAX_IMAGE_BYTES, find_images
from studykit.content.loading import load_library
from studykit.core.config import bundled_root
from studykit.experiments.base import Answer, Outcome, Plot, Result, Series
from studykit.experiments.device import torch_version
from studykit.experiments.runner import prepare
from studykit.export import export_anki
from studykit.export.ledger import ExportLedger
from studykit.srs.store import Store
from studykit.study.cardtext import cited_markdown, plain_text
from studykit.study.session import StudySession
from tests.unit.test_export_anki import import_package

# A 1x1 PNG, and another with one byte changed in its pixel data (a different file).
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000000000500010d0a2db40000000049454e44ae426082"
)
OTHER_PNG = PNG.replace(bytes.fromhex("0d0a2db4"), bytes.fromhex("0d0a2db5"))

NOTE = """id: media-note
title: Media note
sections:
  - id: decay
    title: Decay
    body: |
      The gradient fades: ![fading](figs/decay.png)
    experiment: {name: rnn-gradient-decay, params: {rho: 0.9}}
"""

DECK = """id: media
name: "Media deck"
note: media-note
cards:
  - id: with-image
    source: decay
    front: "What does this show? ![decay plot](decay.png)"
    back: |
      Exponential decay.
      ![same name, other folder](other/decay.png) and `![code](not-an-image.png)`
  - id: remote
    front: "![logo](https://example.com/logo.png)"
    back: A remote image stays a link.
  - id: linked
    front: How fast does the gradient fade at rho 0.8?
    back: Like $0.8^k$.
    experiment: {name: rnn-gradient-decay, params: {rho: 0.8}}
"""


def write_root(root: Path) -> Path:
    (root / "content" / "figs").mkdir(parents=True)
    (root / "decks" / "other").mkdir(parents=True)
    (root / "content" / "note.yaml").write_text(NOTE, encoding="utf-8")
    (root / "content" / "figs" / "decay.png").write_bytes(PNG)
    (root / "decks" / "media.yaml").write_text(DECK, encoding="utf-8")
    (root / "decks" / "decay.png").write_bytes(PNG)
    (root / "decks" / "other" / "decay.png").write_bytes(OTHER_PNG)
    return root


def cached_result(rho: float) -> Result:
    """A result of rnn-gradient-decay as the cache keys it (validated params, cpu)."""
    _, values = prepare("rnn-gradient-decay", {"rho": rho}, "cpu")
    steps = tuple(float(k) for k in range(0, 50, 5))
    plot = Plot(
        f"Gradient norm, rho = {rho}",
        "steps back k",
        "norm",
        (Series("measured", steps, tuple(rho**k for k in steps)),),
        log_y=True,
    )
    answers = (Answer("norm_at_T", "norm", rho**50, ""),)
    return Result(
        "rnn-gradient-decay",
        dict(values),
        0,
        "cpu",
        torch_version(),
        0.1,
        Outcome(answers, "", plot),
    )


def store_results(data_dir: Path, *results: Result) -> Path:
    """Results in the study database's cache, as the app and `experiment run` store them."""
    data_dir.mkdir(parents=True, exist_ok=True)
    database = data_dir / "studykit.sqlite3"
    with Store.open(database) as store:
        for result in results:
            data = result.to_json()
            store.put_experiment_result(
                name=result.name,
                params=data["params"],
                seed=result.seed,
                device=result.device,
                torch_version=result.torch_version,
                result=data,
                created_at=datetime(2026, 1, 1, tzinfo=UTC),
            )
    return database


class StoreCache:
    """The experiment cache of a study database, for `export_anki(cache=...)`."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def cached_experiment(self, **key: object) -> dict[str, object] | None:
        return self.store.experiment_result(**key)  # type: ignore[arg-type]

    def store_experiment(self, result: dict[str, object]) -> None:
        raise AssertionError("an export never runs or stores an experiment")


@pytest.fixture
def bundled_copy(tmp_path: Path) -> Path:
    root = tmp_path / "bundled"
    for folder in ("content", "decks", "schema"):
        shutil.copytree(bundled_root() / folder, root / folder)
    return root


def plant(path: Path, after: str, line: str) -> int:
    """Insert `line` after the first line containing `after`; return its 1-based number."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    index = next(i for i, text in enumerate(lines) if after in text) + 1
    lines.insert(index, line + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return index + 1


# -- load problems ---------------------------------------------------------------------------


def test_a_missing_image_in_a_bundled_deck_is_a_load_problem_at_its_line(
    bundled_copy: Path,
) -> None:
    deck = bundled_copy / "decks" / "ai-ml" / "rnn-limitations.yaml"
    line = plant(deck, "back: |-", "      See ![decay plot](decay.png) here.")
    library = load_library(bundled_copy)
    assert "rnn-limitations" not in library.decks
    assert "rnn-limitations-computed" in library.decks  # the other deck still loads
    [problem] = library.problems
    assert (problem.path, problem.line, problem.column) == (
        "decks/ai-ml/rnn-limitations.yaml",
        line,
        11,
    )
    assert "image `decay.png` not found (looked for decks/ai-ml/decay.png)" in problem.message

    (deck.parent / "decay.png").write_bytes(PNG)  # the file appears: the deck loads again
    assert not load_library(bundled_copy).problems


@pytest.mark.parametrize(
    ("src", "message"),
    [
        ("../../../../etc/passwd.png", "leads outside the content root"),
        ("/etc/decay.png", "not absolute"),
        ("file:///etc/decay.png", "only images inside the content root"),
        ("data:image/png;base64,AAAA", "only images inside the content root"),
        ("notes.txt", "not an image file"),
        ("folder.png", "is a folder"),
        ("huge.png", "over the 2 MB limit"),
        ("outside-link.png", "leads outside the content root"),
    ],
)
def test_images_that_cannot_be_packed_are_load_problems(
    tmp_path: Path, src: str, message: str
) -> None:
    root = write_root(tmp_path / "root")
    (root / "decks" / "folder.png").mkdir()
    with (root / "decks" / "huge.png").open("wb") as huge:
        huge.truncate(MAX_IMAGE_BYTES + 1)
    (tmp_path / "elsewhere.png").write_bytes(PNG)
    os.symlink(tmp_path / "elsewhere.png", root / "decks" / "outside-link.png")
    deck = root / "decks" / "media.yaml"
    deck.write_text(DECK.replace("](decay.png)", f"]({src})"), encoding="utf-8")
    library = load_library(root)
    [problem] = library.problems
    assert (problem.path, problem.line, problem.column) == ("decks/media.yaml", 7, 34)
    assert message in problem.message, problem.message
    assert "media-note" in library.notes


def test_images_in_note_sections_are_checked_and_code_is_not_an_image(tmp_path: Path) -> None:
    root = write_root(tmp_path / "root")
    assert not load_library(root).problems  # `![code](not-an-image.png)` is code: not checked
    (root / "content" / "figs" / "decay.png").unlink()
    library = load_library(root)
    assert [(p.path, p.line, p.column) for p in library.problems] == [
        ("content/note.yaml", 7, 27),
        ("decks/media.yaml", 3, 7),  # the deck names a note that did not load
    ]


def test_find_images_skips_code_maths_and_escapes() -> None:
    text = "a ![x](a.png) `![y](b.png)` $![z](c.png)$ \\![w](d.png)\n```\n![v](e.png)\n```\n"
    assert [image.src for image in find_images(text)] == ["a.png"]
    assert find_images("![sp](<my file.png> 'title')")[0].src == "my file.png"


def test_the_app_shows_an_image_as_a_readable_placeholder(tmp_path: Path) -> None:
    library = load_library(write_root(tmp_path / "root"))
    card = library.decks["media"].cards[0]
    shown = plain_text(cited_markdown(card.front, None))
    assert shown == "What does this show? [image: decay plot]"
    section = library.notes["media-note"].sections[0]
    assert "[image: fading]" in plain_text(cited_markdown(section.body, None))
    assert plain_text(cited_markdown("![](figs/a_b.png)", None)) == "[image: a_b.png]"


# -- export ----------------------------------------------------------------------------------


def _note_of(col: Collection, search: str) -> list[str]:
    [note_id] = col.find_notes(search)
    return list(col.get_note(note_id).fields)


def test_images_and_plots_are_packed_and_read_back_by_anki(
    tmp_path: Path, collection: Collection
) -> None:
    root = write_root(tmp_path / "root")
    library = load_library(root)
    assert not library.problems
    database = store_results(tmp_path / "data", cached_result(0.8), cached_result(0.9))
    ledger = ExportLedger.in_data_dir(tmp_path / "data")
    with Store.open(database) as store:
        first = export_anki(
            library,
            tmp_path / "one.apkg",
            ledger=ledger,
            cache=StoreCache(store),
            plot_dir=tmp_path / "data" / "plots",
        )
    assert first.media is not None
    assert (first.media.images, first.media.plots, first.media.drawn) == (2, 2, 2)
    assert not first.media.missing and not first.media.skipped_plots

    log = import_package(collection, first.path)
    assert len(log.new) == first.notes
    media_dir = Path(collection.media.dir())
    front, back, source = _note_of(collection, "card:1 What*show*")
    [img_front] = re.findall(r'<img src="([^"]+)"', front)
    [img_back, plot_section] = re.findall(r'<img src="([^"]+)"', back + source)
    assert img_front != img_back  # same file name, different folders and bytes: no collision
    assert (media_dir / img_front).read_bytes() == PNG
    assert (media_dir / img_back).read_bytes() == OTHER_PNG
    assert "not-an-image.png" in back and "<code>" in back  # code stays code
    assert plot_section.endswith(".svg")
    assert (media_dir / plot_section).read_bytes().startswith(b"<?xml")
    assert "Gradient norm, rho = 0.9" in source

    _, linked_back, _ = _note_of(collection, "How fast*")
    [plot_card] = re.findall(r'<img src="([^"]+)"', linked_back)
    assert plot_card != plot_section and (media_dir / plot_card).is_file()
    assert b"<svg" in (media_dir / plot_card).read_bytes()

    remote_front, *_ = _note_of(collection, "card:1 logo")
    assert '<a href="https://example.com/logo.png">logo</a>' in remote_front
    assert "<img" not in remote_front  # never fetched, not even by Anki

    # Unchanged content exports the same names and bytes; Anki sees nothing to update.
    with Store.open(database) as store:
        second = export_anki(
            load_library(root),
            tmp_path / "two.apkg",
            ledger=ledger,
            cache=StoreCache(store),
            plot_dir=tmp_path / "data" / "plots",
        )
    assert second.media is not None and second.media.drawn == 0  # drawn before
    again = import_package(collection, second.path)
    assert (len(again.new), len(again.updated)) == (0, 0)
    assert _note_of(collection, "card:1 What*show*")[0] == front


def test_without_matplotlib_the_export_works_and_says_plots_were_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, collection: Collection
) -> None:
    for name in [m for m in sys.modules if m.split(".")[0] == "matplotlib"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` fails
    root = write_root(tmp_path / "root")
    store_results(tmp_path / "data", cached_result(0.8), cached_result(0.9))
    args = ["--root", str(root), "--data-dir", str(tmp_path / "data"), "export", "anki"]
    out = tmp_path / "out.apkg"
    result = CliRunner().invoke(cli, [*args, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 plot(s) skipped: matplotlib is not installed" in result.stderr
    assert "pip install 'studykit[plots]'" in result.stderr
    import_package(collection, out)
    names = sorted(os.listdir(collection.media.dir()))
    assert len(names) == 2 and not any(name.endswith(".svg") for name in names)


def test_a_plot_draws_to_the_same_svg_bytes_every_time() -> None:
    from studykit.experiments.plotimage import plot_key, render_svg

    plot = cached_result(0.9).outcome.plot
    assert plot is not None
    first = render_svg(plot)
    assert first == render_svg(plot) and b"<svg" in first and len(first) < 100_000
    other = cached_result(0.8).outcome.plot
    assert other is not None and plot_key(other) != plot_key(plot)


def test_run_experiments_runs_the_missing_ones_first_and_says_so_in_one_line_without(
    tmp_path: Path,
) -> None:
    root = write_root(tmp_path / "root")
    deck = root / "decks" / "media.yaml"
    linked = "experiment: {name: rnn-gradient-decay, params: {rho: 0.8}}"
    deck.write_text(
        DECK.replace(linked, "experiment: {name: effective-context, params: {gamma: 0.9}}"),
        encoding="utf-8",
    )
    store_results(tmp_path / "data", cached_result(0.9))  # the note section's link only
    base = ["--root", str(root), "--data-dir", str(tmp_path / "data")]
    export = [*base, "export", "anki", "-o", str(tmp_path / "out.apkg")]
    first = CliRunner().invoke(cli, export)
    assert first.exit_code == 0, first.output
    assert "Media: 2 image(s), 1 plot(s) (1 drawn now)." in first.stdout
    [line] = first.stderr.splitlines()  # one line, however many runs are missing
    assert line.startswith("studykit: 1 linked experiment run(s) have no cached result")
    assert "--run-experiments" in line
    ran = CliRunner().invoke(cli, [*export, "--run-experiments"])
    assert ran.exit_code == 0, ran.output
    assert "Running 1 experiment(s)" in ran.stderr and "no cached result" not in ran.stderr
    assert "Media: 2 image(s), 2 plot(s) (1 drawn now)." in ran.stdout  # one drawn before
    again = CliRunner().invoke(cli, [*export, "--run-experiments"])  # nothing left to run
    assert again.exit_code == 0 and "Running" not in again.stderr, again.output


def test_a_run_its_budget_refuses_is_said_and_the_export_still_goes_out(tmp_path: Path) -> None:
    root = write_root(tmp_path / "root")
    data = tmp_path / "data"
    store_results(data, cached_result(0.9))  # the section's run; the card's is missing
    (data / "config.toml").write_text('experiment_budget = "64MiB,1s"\n', encoding="utf-8")
    out = tmp_path / "out.apkg"
    args = ["--root", str(root), "--data-dir", str(data), "export", "anki", "-o", str(out)]
    result = CliRunner().invoke(cli, [*args, "--run-experiments"])
    assert result.exit_code == 1, result.output
    [refused] = [line for line in result.stderr.splitlines() if "did not run" in line]
    assert refused.startswith("studykit: rnn-gradient-decay (rho=0.8) did not run: ")
    assert "1 linked experiment run(s) have no cached result" in result.stderr
    assert out.is_file()


async def test_the_apps_export_packs_plots_and_says_which_runs_are_missing(
    make_session: Callable[..., StudySession], tmp_path: Path
) -> None:
    from textual.widgets import Tree

    from studykit.tui.app import make_app
    from tests.tui.helpers import at_home, settle
    from tests.unit.test_export_app import _exported

    session = make_session(load_library(write_root(tmp_path / "root")))
    session.store_experiment(cached_result(0.9).to_json())  # the section's run; not the card's
    app = make_app(session.settings, session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: at_home(app))
        tree: Tree[object] = app.screen.query_one(Tree)
        tree.move_cursor(next(n for n in tree.root.children if "Media" in str(n.label)))
        await pilot.press("x")
        await settle(pilot, lambda: _exported(app) is not None, steps=1000)
        message = _exported(app)
    assert message is not None
    assert "1 linked experiment run(s) not run yet, so no plot (rnn-gradient-decay)" in message
    package = session.settings.data_dir / "exports" / "media.apkg"
    with zipfile.ZipFile(package) as packed:
        names = sorted(json.loads(packed.read("media")).values())
    assert len(names) == 3 and sum(name.endswith(".svg") for name in names) == 1
    assert (session.settings.data_dir / "plots" / names[-1]).is_file()


async def test_review_and_notes_screens_show_image_placeholders(
    make_session: Callable[..., StudySession], tmp_path: Path
) -> None:
    from studykit.core.config import Settings
    from studykit.tui.app import make_app
    from studykit.tui.messages import NotesRequested
    from studykit.tui.screens.notes import NotesScreen
    from studykit.tui.screens.review import ReviewScreen
    from tests.tui.helpers import screen_text, settle

    settings = Settings(root=write_root(tmp_path / "root"), data_dir=tmp_path / "data")
    session = make_session(load_library(settings.root), settings=settings)
    app = make_app(settings, session=session, start="review", deck_id="media")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await settle(pilot, lambda: screen.card is not None)
        while "What does this show?" not in screen_text(app):  # the order of new cards
            await pilot.press("space")
            await settle(pilot, lambda: screen.revealed)
            await pilot.press("3")
            await pilot.pause()
        await pilot.press("space")
        await settle(pilot, lambda: screen.revealed)
        await pilot.pause()
        shown = screen_text(app)
        assert "What does this show? [image: decay plot]" in shown
        # The back's second line stays a line of its own (a card side's newline is a break).
        lines = shown.splitlines()
        first = next(k for k, line in enumerate(lines) if "Exponential decay." in line)
        assert "[image: same name, other folder] and" in lines[first + 1]
        assert "](decay.png)" not in shown and "](other/decay.png)" not in shown
        app.post_message(NotesRequested("media-note", "decay"))
        await settle(pilot, lambda: isinstance(app.screen, NotesScreen))
        await pilot.pause()
        shown = screen_text(app)
        assert "The gradient fades: [image: fading]" in shown and "](figs/" not in shown


def test_image_counts_and_bytes_are_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from studykit.content.images import MAX_IMAGES_PER_FILE
    from studykit.core.errors import StudykitError
    from studykit.export import media

    root = write_root(tmp_path / "root")
    deck = root / "decks" / "media.yaml"
    many = " ".join(["![d](decay.png)"] * (MAX_IMAGES_PER_FILE + 1))
    deck.write_text(DECK.replace("A remote image stays a link.", f'"{many}"'), encoding="utf-8")
    [problem] = load_library(root).problems
    assert problem.message == f"more than {MAX_IMAGES_PER_FILE} images in one file"
    # Three images come before this back; the problem sits at the first one over the limit.
    assert (problem.line, problem.column) == (13, 12 + 16 * (MAX_IMAGES_PER_FILE - 3))

    library = load_library(write_root(tmp_path / "again"))
    monkeypatch.setattr(media, "MAX_MEDIA_FILES", 1)
    with pytest.raises(StudykitError, match="more than 1 images and plots in one package"):
        export_anki(library, tmp_path / "one.apkg")
    monkeypatch.setattr(media, "MAX_MEDIA_FILES", 100)
    monkeypatch.setattr(media, "MAX_MEDIA_BYTES", len(PNG) + 1)
    with pytest.raises(StudykitError, match="the images come to more than"):
        export_anki(library, tmp_path / "two.apkg")
    assert not (tmp_path / "two.apkg").exists()


def test_a_plot_that_cannot_be_drawn_stops_the_export_with_a_message(tmp_path: Path) -> None:
    from studykit.core.errors import StudykitError

    good = cached_result(0.9)
    assert good.outcome.plot is not None
    broken = Plot("broken", "x", "y", (Series("a", (1.0, 2.0, 3.0), (1.0, 2.0)),))
    bad = Result(good.name, good.params, 0, "cpu", good.torch_version, 0.1, Outcome((), "", broken))
    database = store_results(tmp_path / "data", bad)
    library = load_library(write_root(tmp_path / "root"))
    with (
        Store.open(database) as store,
        pytest.raises(StudykitError, match="the plot 'broken' cannot be drawn"),
    ):
        export_anki(library, tmp_path / "out.apkg", cache=StoreCache(store))
    assert not (tmp_path / "out.apkg").exists()

"""Obsidian import: parsing a generated 5 MB note, and a 200-note vault through the CLI."""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import PYTHON, fmt_seconds, report, time_call, time_command

from studykit.importers.notescan import parse_obsidian

STUDYKIT = str(Path(PYTHON).parent / "studykit")
_CHUNK = (
    "#flashcards/p/q\n"
    "What is `std::vector` :: a $a::b$ container <!--SR:!2026-01-02,5,250-->\n"
    "Front line\n?\nBack line with $x^2$\n\n"
    "The ==wavelength== is ==crests== with $a == b$ and ==$E = mc^2$==.\n\n"
    "Plain prose paragraph with some words, a [link](x) and `code` here.\n"
    "%% a comment :: %%\n\n```\ncode::x\n```\n\n    indented::code\n\nTitle\n=====\n\n"
)
SIZE = 5_000_000


def generated_note(size: int = SIZE) -> str:
    """Every form the parser knows, repeated to `size` characters."""
    return _CHUNK * (size // len(_CHUNK))


def main() -> None:
    text = generated_note()
    shapes = {
        "notes": text,
        "one long line": "a `b` $c$ == :: " * (SIZE // 16),
        "unclosed maths and code": "$ ` " * (SIZE // 4),
    }
    for name, body in shapes.items():

        def parse(text: str = body) -> object:
            return parse_obsidian(text, "n")

        seconds = time_call(parse, repeat=3)
        report(f"obsidian parse 5 MB ({name})", seconds, goal="≤ 2 s")
        started = time.process_time()  # CPU time: what a loaded machine does not inflate
        parse_obsidian(body, "n")
        print(f"{'':<46} {'cpu ' + fmt_seconds(time.process_time() - started):>10}", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="studykit-bench-obsidian-"))
    try:
        vault = tmp / "vault"
        for i in range(200):
            folder = vault / f"topic-{i % 10}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"note-{i}.md").write_text(_CHUNK * 5, encoding="utf-8")
        argv = [STUDYKIT, "import", "obsidian", str(vault), "-o", f"{tmp}/decks/"]
        (tmp / "decks").mkdir()  # the import writes only in the working folder or the root
        env = {"STUDYKIT_DATA_DIR": str(tmp / "data"), "STUDYKIT_ROOT": str(tmp)}
        report("import obsidian, 200-note vault (re-run)", time_command(argv, repeat=3, env=env))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

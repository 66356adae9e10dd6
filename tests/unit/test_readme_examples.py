"""The README's authoring example is a deck that loads against the bundled note, as shown."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from studykit.content.loading import load_library
from studykit.core.config import bundled_root

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_deck_example_loads_without_problems(tmp_path: Path) -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    deck_yaml = next(block for block in blocks if block.startswith("id: "))
    shutil.copytree(bundled_root() / "content", tmp_path / "content")
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "example.yaml").write_text(deck_yaml, encoding="utf-8")
    library = load_library(tmp_path)
    assert [str(p) for p in library.problems] == []
    deck = library.decks["rnn-limitations"]
    assert [card.kind for card in deck.cards] == ["basic", "cloze"]

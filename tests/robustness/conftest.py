"""Shared helpers for the robustness tests: a small study root and the reviewer child."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REVIEWER = Path(__file__).with_name("reviewer.py")
REPO = Path(__file__).resolve().parents[2]


def deck_yaml(deck_id: str, cards: int) -> str:
    """A deck of basic cards, no note."""
    lines = [f"id: {deck_id}", f'name: "Robust::{deck_id}"', "cards:"]
    for i in range(1, cards + 1):
        lines += [f"  - id: c{i}", f"    front: Question {i}?", f"    back: Answer {i}."]
    return "\n".join(lines) + "\n"


@pytest.fixture
def study_root(tmp_path: Path) -> Path:
    """A root with two decks, `alpha` and `beta`, of 20 cards each."""
    root = tmp_path / "root"
    (root / "decks").mkdir(parents=True)
    (root / "content").mkdir()
    for deck_id in ("alpha", "beta"):
        (root / "decks" / f"{deck_id}.yaml").write_text(deck_yaml(deck_id, 20), encoding="utf-8")
    return root


def child_env() -> dict[str, str]:
    """The environment for a child: the repository importable, no config from the user."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYKIT_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    return env


def start_reviewer(
    root: Path, data_dir: Path, deck: str, count: int, seed: int
) -> subprocess.Popen[str]:
    """Start the reviewer child with pipes for stdout and stderr."""
    return subprocess.Popen(
        [sys.executable, str(REVIEWER), str(root), str(data_dir), deck, str(count), str(seed)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
    )

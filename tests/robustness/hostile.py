"""The hostile corpus (tests/data/hostile): what `studykit check` must say about each file."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

HOSTILE = Path(__file__).resolve().parents[1] / "data" / "hostile"
GOOD = Path(__file__).resolve().parents[1] / "data" / "broken" / "good"


@dataclass(frozen=True)
class Case:
    """One hostile file: exit status, the line reported, and words the message must hold."""

    rel: str
    code: int  # 2: the file does not load; 1: it loads, and check finds a content problem
    line: int | None
    words: str


CASES = (
    Case("decks/malformed-yaml.yaml", 2, 6, "YAML syntax error"),
    Case("decks/tab-indent.yaml", 2, 5, "tab"),
    Case("decks/duplicate-key.yaml", 2, 6, "duplicate key `front`"),
    Case("decks/duplicate-card-id.yaml", 2, 7, "duplicate card id `one`"),
    Case("content/duplicate-section-id.yaml", 2, 7, "duplicate section id `s`"),
    Case("decks/unknown-field.yaml", 2, 7, "unknown field `hint_text`"),
    Case("decks/wrong-type.yaml", 2, 3, "expected a whole number"),
    Case("decks/not-utf8.yaml", 2, 5, "not valid UTF-8"),
    Case("decks/bom.yaml", 0, None, ""),  # the control: a BOM is fine
    Case("decks/deep-nesting.yaml", 2, 3, "nesting depth"),
    Case("decks/alias-bomb.yaml", 2, None, "aliases expand to more than"),
    Case("decks/python-object.yaml", 2, 5, "!!python/object/apply:os.system` is not allowed"),
    # The expressions load as text; check parses them (safely) and reports the content problem.
    Case("content/code-in-claim.yaml", 1, 8, "attribute access not allowed"),
    Case("decks/code-in-answer.yaml", 1, 4, "attribute access not allowed"),
    Case("content/nan-approx.yaml", 1, 8, "`approx` must be a finite number"),
    Case("content/inf-tolerance.yaml", 1, 8, "`rel_tol` must be a finite number"),
    # The schema refuses a NaN tolerance on a card (it is not >= 0): a load problem.
    Case("decks/nan-tolerance.yaml", 2, 8, "must be at least 0"),
    Case("decks/inf-params.yaml", 1, 4, "must be finite"),
    Case("content/experiment-out-of-range.yaml", 1, 4, "`gamma` must be"),
    Case("decks/experiment-out-of-range.yaml", 1, 4, "`gamma` must be"),
)


def root_with(tmp_path: Path, source: Path, rel: str) -> Path:
    """A root holding the good note and deck plus `source` at `rel`."""
    root = tmp_path / "root"
    shutil.copytree(GOOD, root)
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return root


def listing(root: Path) -> dict[str, tuple[int, float]]:
    """Every path under `root` with its size and modification time."""
    return {
        path.relative_to(root).as_posix(): (path.lstat().st_size, path.lstat().st_mtime)
        for path in sorted(root.rglob("*"))
    }

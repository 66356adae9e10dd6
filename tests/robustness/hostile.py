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
    status: str  # "load": it does not load; "content": check finds a problem; "clean"
    line: int | None
    words: str

    @property
    def exit_code(self) -> int:
        """What `studykit check` exits with: 1 for either kind of problem, 0 when clean."""
        return 0 if self.status == "clean" else 1


CASES = (
    Case("decks/malformed-yaml.yaml", "load", 6, "YAML syntax error"),
    Case("decks/tab-indent.yaml", "load", 5, "tab"),
    Case("decks/duplicate-key.yaml", "load", 6, "duplicate key `front`"),
    Case("decks/duplicate-card-id.yaml", "load", 7, "duplicate card id `one`"),
    Case("content/duplicate-section-id.yaml", "load", 7, "duplicate section id `s`"),
    Case("decks/unknown-field.yaml", "load", 7, "unknown field `hint_text`"),
    Case("decks/wrong-type.yaml", "load", 3, "expected a whole number"),
    Case("decks/not-utf8.yaml", "load", 5, "not valid UTF-8"),
    Case("decks/bom.yaml", "clean", None, ""),  # the control: a BOM is fine
    Case("decks/deep-nesting.yaml", "load", 3, "nesting depth"),
    Case("decks/alias-bomb.yaml", "load", None, "aliases expand to more than"),
    Case("decks/python-object.yaml", "load", 5, "!!python/object/apply:os.system` is not allowed"),
    # The expressions load as text; check parses them (safely) and reports the content problem.
    Case("content/code-in-claim.yaml", "content", 8, "attribute access not allowed"),
    Case("decks/code-in-answer.yaml", "content", 4, "attribute access not allowed"),
    Case("content/nan-approx.yaml", "content", 8, "`approx` must be a finite number"),
    Case("content/inf-tolerance.yaml", "content", 8, "`rel_tol` must be a finite number"),
    # The schema refuses a NaN tolerance on a card (it is not >= 0): a load problem.
    Case("decks/nan-tolerance.yaml", "load", 8, "must be at least 0"),
    Case("decks/inf-params.yaml", "content", 4, "must be finite"),
    Case("content/experiment-out-of-range.yaml", "content", 4, "`gamma` must be"),
    Case("decks/experiment-out-of-range.yaml", "content", 4, "`gamma` must be"),
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

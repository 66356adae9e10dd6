"""Why an equation was skipped, as a named category (`check --verbose` lists them).

Most skips get their category where the checker decides to skip (a definition, a condition).
An equation the checker could not read is classified here from how it is written: a
definition of a symbol, notation with nothing to compute, or a formula the text itself quotes
as wrong. What fits none of these stays `unclassified`, and a test keeps the bundled content
free of those.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Final


class SkipCategory(StrEnum):
    DEFINITION = "definition"
    HYPOTHESIS = "hypothesis"
    NOTATION = "notation"
    APPROXIMATION = "approximation"
    QUOTED_AS_WRONG = "quoted as wrong"
    CARD_PARAMETER = "card parameter"
    NEEDS_TORCH = "needs torch"
    BUDGET = "over budget"
    UNCLASSIFIED = "unclassified"


# A symbol alone: `h_t`, `e_{ij}`, `\alpha_{21,2}`, `h_{t-1}`, `c_i`, `k^*`.
_SYMBOL: Final = re.compile(r"\\?[A-Za-z]+(?:_(?:\{[^{}=]*\}|\w))?(?:\^(?:\{[^{}=]*\}|[\w*]))?")
# Notation that states a shape, a range, an elementwise or indexed form: nothing to compute.
_NOTATION: Final = re.compile(r"\\in\b|\\to\b|\\odot|\\sum|\\prod|\\dots|\\ldots|\\sin\^|\\cos\^")
# Words by which the text marks a formula it quotes as wrong.
_QUOTED_WRONG: Final = re.compile(r"heuristic|galat|\bwrong\b|incorrect", re.IGNORECASE)


def classify(tex: str, text: str = "", index: int = -1) -> SkipCategory:
    """The category of an equation skipped because it could not be read or decided."""
    if index >= 0 and text and _quoted_as_wrong(text, index):
        return SkipCategory.QUOTED_AS_WRONG
    left, equals, right = tex.partition("=")
    if "\\dots" in right:
        return SkipCategory.NOTATION  # a range: `i = 0, 1, \dots, d/2 - 1`
    if equals and not right.startswith("=") and _SYMBOL.fullmatch(left.strip()):
        return SkipCategory.DEFINITION
    if _NOTATION.search(tex):
        return SkipCategory.NOTATION
    return SkipCategory.UNCLASSIFIED


def _quoted_as_wrong(text: str, index: int) -> bool:
    """The span is in quotation marks, or its paragraph calls it a heuristic or wrong."""
    before = text[:index].rstrip("$")
    after_end = text.find("$", index)
    after = text[after_end:].lstrip("$") if after_end >= 0 else ""
    if before.endswith(('"', "“")) and after.startswith(('"', "”")):
        return True
    start = text.rfind("\n\n", 0, index)
    end = text.find("\n\n", index)
    paragraph = text[start + 1 if start >= 0 else 0 : end if end >= 0 else len(text)]
    return bool(_QUOTED_WRONG.search(paragraph))

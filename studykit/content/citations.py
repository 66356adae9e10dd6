"""`{claim:ID}`, `{measured:ID}` and `{fact:ID}` in prose: the one renderer that turns them
into numbers.

A fact (a parameter, a date, a count from the source) is cited by the value the note
declares once, with its unit. A claim is cited by its computed value (the same expression
`studykit check` verifies), to the significant figures it declares (`digits`) or that its
`approx` is written with. A measurement is cited by its recorded value and unit; one that
is not deterministic (a timing) also names the machine, device and torch it was measured
on: inline in a card, and in a note's section (`footnotes`) once, as a footnote its values
point to (`17.5 ms†`, then `† Measured on …` under the section). The notes screen,
`studykit show`, the review and quiz screens and the Anki export all call `render_citations`
before their own markdown and maths rendering, so a number can never read differently in two
places, nor drift from the check.

Claim values are computed once per process and kept by expression in `CLAIM_VALUES`, which
every renderer shares; the notes screen renders with `pending=True` (a `…` for a value not
computed yet) and computes the rest in a thread worker.
"""

from __future__ import annotations

import math
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final, Literal

from studykit.content.model import Claim, Fact, Measurement, Note
from studykit.text.linebreaks import hard_breaks
from studykit.text.mathscan import Maths, split_code_fences, split_maths

CitationKind = Literal["claim", "measured", "fact"]
CITATION: Final = re.compile(r"\{(claim|measured|fact):([^{}\s]*)\}")
_KINDS: Final[dict[str, CitationKind]] = {"claim": "claim", "measured": "measured", "fact": "fact"}
# Per kind: the note's key its entries go under, and how a "did you mean" names them.
_ENTRIES: Final[dict[CitationKind, tuple[str, str]]] = {
    "claim": ("claims", "its claims are"),
    "measured": ("measured", "its measurements are"),
    "fact": ("facts", "its facts are"),
}
# Outside these decimal exponents a number is written as `m \times 10^{e}`.
_FIXED_EXPONENTS: Final = range(-3, 7)
PENDING: Final = "…"
"""Shown for a claim whose value is still being computed."""
_PENDING_TEX: Final = rf"\text{{{PENDING}}}"
# Footnote marks, in a terminal's common fonts (superscript digits would read as powers).
_MARKS: Final = ("†", "‡", "§", "¶")


@dataclass(frozen=True, slots=True)
class Citation:
    """One `{kind:id}` in a text, and where it is (character offsets)."""

    kind: CitationKind
    id: str
    start: int
    end: int


def citations(text: str) -> Iterator[Citation]:
    """Every citation in `text`, in order."""
    for match in CITATION.finditer(text):
        yield Citation(_KINDS[match.group(1)], match.group(2), match.start(), match.end())


Citable = Claim | Measurement | Fact


def citable(note: Note) -> dict[str, Citable]:
    """`kind:id` -> the claim, measurement or fact it names, across the note."""
    found: dict[str, Citable] = {f"fact:{fact.id}": fact for fact in reversed(note.facts)}
    for section in note.sections:
        for claim in section.claims:
            found.setdefault(f"claim:{claim.id}", claim)
        for measurement in section.measured:
            found.setdefault(f"measured:{measurement.id}", measurement)
    return found


def citation_problem(citation: Citation, note: Note | None) -> tuple[str, str] | None:
    """(what is wrong, how to fix it) when `citation` cannot be rendered from `note`."""
    from studykit.core.suggest import did_you_mean

    written = f"{{{citation.kind}:{citation.id}}}"
    if note is None:
        return f"`{written}` cites a {citation.kind}, but no note is named", "add `note:`"
    targets = citable(note)
    target = targets.get(f"{citation.kind}:{citation.id}")
    if target is None:
        ids = [key.split(":", 1)[1] for key in targets if key.startswith(citation.kind + ":")]
        entries, listing = _ENTRIES[citation.kind]
        hint = did_you_mean(citation.id, ids, listing) or (f"add a `{entries}:` entry with that id")
        return f"`{written}` names no {citation.kind} of note `{note.id}`", hint
    if isinstance(target, Claim) and target.order is not None:
        return (
            f"`{written}` cites a complexity claim, which has no value to show",
            f"write `$O(…)$` with its order ({target.order}) in the maths: check ties it to "
            "the claim",
        )
    if isinstance(target, Claim) and target.approx is None and target.equals is None:
        return (
            f"`{written}` cites an identity, which has no value to show",
            "cite a claim with `approx` or `equals`, or write the identity out",
        )
    return None


def written_digits(value: float) -> int:
    """Significant figures `value` is written with (`2.68e-07` -> 3, `62832.0` -> 5)."""
    text = repr(abs(value)).lower().split("e")[0]
    if text.endswith(".0"):
        text = text[:-2]
    digits = text.replace(".", "").lstrip("0")
    return max(len(digits), 1)


def _grouped(whole: str) -> str:
    """`16384` -> `16{,}384`; four digits and fewer stay as they are."""
    sign, digits = ("-", whole[1:]) if whole.startswith("-") else ("", whole)
    if len(digits) <= 4:
        return whole
    head = len(digits) % 3 or 3
    groups = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
    return sign + "{,}".join(groups)


def number_tex(value: float, digits: int | None) -> str:
    """LaTeX of a number to `digits` significant figures (None: whole integers exact, else 6)."""
    if not math.isfinite(value):
        return str(value)
    if digits is None:
        if value.is_integer() and abs(value) < 1e15:
            return _grouped(str(int(value)))
        text = f"{value:.6g}"
        if "e" not in text:
            return text
        mantissa, power = text.split("e")
        return rf"{mantissa} \times 10^{{{int(power)}}}"
    if value == 0:
        return "0"
    mantissa, power = f"{value:.{digits - 1}e}".split("e")
    exponent = int(power)
    if exponent not in _FIXED_EXPONENTS:
        return rf"{mantissa} \times 10^{{{exponent}}}"
    places = digits - 1 - exponent
    if places > 0:
        return f"{value:.{places}f}"
    return _grouped(str(int(round(value, places))))


def _evaluate(expr: str) -> float | None:
    from studykit.expressions import ExpressionError, parse

    try:
        return parse(expr).evaluate()
    except ExpressionError:
        return None


class ClaimValues:
    """Claim values by expression, each computed once and shared by every renderer
    (`studykit show`, the notes, review and quiz screens, the export, the check); safe to
    use from several threads. None is the value of an expression that has none."""

    def __init__(self, limit: int = 4096) -> None:
        self._values: OrderedDict[str, float | None] = OrderedDict()
        self._lock = threading.Lock()
        self._limit = limit

    def known(self, expr: str) -> bool:
        """Whether `expr` was computed already (reading it costs nothing)."""
        with self._lock:
            return expr in self._values

    def value(self, expr: str) -> float | None:
        """`expr`'s value, computed on this thread the first time (up to its time limit)."""
        with self._lock:
            if expr in self._values:
                self._values.move_to_end(expr)
                return self._values[expr]
        value = _evaluate(expr)  # unlocked: two threads may compute it at once, both right
        with self._lock:
            self._values[expr] = value
            while len(self._values) > self._limit:
                self._values.popitem(last=False)
        return value

    def clear(self) -> None:
        """Forget every value."""
        with self._lock:
            self._values.clear()


CLAIM_VALUES: Final = ClaimValues()


def cited_claims(texts: Iterable[str], note: Note | None) -> list[Claim]:
    """The claims of `note` that `texts` cite, each once, in the order they are cited."""
    targets = citable(note) if note is not None else {}
    found: dict[str, Claim] = {}
    for text in texts:
        for citation in citations(text):
            target = targets.get(f"{citation.kind}:{citation.id}")
            if isinstance(target, Claim):
                found.setdefault(target.id, target)
    return list(found.values())


def uncomputed_claims(texts: Iterable[str], note: Note | None) -> list[str]:
    """The expressions of the claims `texts` cite that are not computed yet (rendered with
    `pending`, each shows as `…`), each once, in the order they are cited."""
    return [c.expr for c in cited_claims(texts, note) if not CLAIM_VALUES.known(c.expr)]


def claim_tex(claim: Claim, *, pending: bool = False) -> str:
    """The claim's computed value as LaTeX (a visible marker if it cannot be computed).

    With `pending`, a value not computed yet is `…` instead of being computed here.
    """
    if pending and not CLAIM_VALUES.known(claim.expr):
        return _PENDING_TEX
    value = CLAIM_VALUES.value(claim.expr)
    if value is None:
        return rf"\text{{[claim {claim.id}: no value]}}"
    digits = claim.digits
    if digits is None and claim.approx is not None:
        digits = written_digits(claim.approx)
    return number_tex(value, digits)


def provenance(measurement: Measurement) -> str:
    """`on 2-core CPU (x86_64), cpu, torch 2.13.0`: where a machine-dependent number came from."""
    return f"on {measurement.machine}, {measurement.device}, torch {measurement.torch}"


def _mark(measurement: Measurement, marks: dict[str, str]) -> str:
    """The footnote mark of the measurement's provenance, a new one the first time."""
    where = provenance(measurement)
    if where not in marks:
        n = len(marks)
        marks[where] = _MARKS[n] if n < len(_MARKS) else f"{_MARKS[0]}{n + 1}"
    return marks[where]


def _measured(
    measurement: Measurement, *, in_maths: bool, marks: dict[str, str] | None = None
) -> str:
    number = number_tex(measurement.value, measurement.digits)
    timing = not measurement.deterministic
    if in_maths:
        unit = rf"\ \text{{{measurement.unit}}}" if measurement.unit else ""
        if timing and marks is not None:
            return number + unit + rf"\text{{{_mark(measurement, marks)}}}"
        where = rf"\ \text{{({provenance(measurement)})}}" if timing else ""
        return number + unit + where
    shown = _prose_number(number)
    unit = f" {measurement.unit}" if measurement.unit else ""
    if timing and marks is not None:
        return shown + unit + _mark(measurement, marks)
    where = f" ({provenance(measurement)})" if timing else ""
    return shown + unit + where


def fact_text(fact: Fact, *, in_maths: bool) -> str:
    """A fact as it reads: `512`, `10000`, `0.95`, `1 MiB` (LaTeX inside maths). A whole
    number is not grouped: a given number reads as its source writes it (`base 10000`)."""
    whole = fact.value.is_integer() and abs(fact.value) < 1e15
    number = str(int(fact.value)) if whole else number_tex(fact.value, None)
    if in_maths:
        if fact.unit == "%":
            return number + r"\%"
        return number + (rf"\ \text{{{fact.unit}}}" if fact.unit else "")
    spacer = "" if fact.unit in ("", "%") else " "
    return _prose_number(number) + spacer + fact.unit


def _prose_number(tex: str) -> str:
    """A number's LaTeX as prose: plain when it can be, else `$…$`."""
    return f"${tex}$" if "\\" in tex else tex.replace("{,}", ",")


def _rendered(
    citation: Citation,
    note: Note | None,
    *,
    in_maths: bool,
    pending: bool,
    marks: dict[str, str] | None,
) -> str:
    target = citable(note).get(f"{citation.kind}:{citation.id}") if note is not None else None
    if isinstance(target, Claim):
        tex = claim_tex(target, pending=pending)
        if in_maths:
            return tex
        return PENDING if tex == _PENDING_TEX else _prose_number(tex)
    if isinstance(target, Measurement):
        return _measured(target, in_maths=in_maths, marks=marks)
    if isinstance(target, Fact):
        return fact_text(target, in_maths=in_maths)
    missing = f"[{citation.kind} {citation.id}: not found]"
    return rf"\text{{{missing}}}" if in_maths else missing


def _substitute(
    text: str,
    note: Note | None,
    *,
    in_maths: bool,
    pending: bool,
    marks: dict[str, str] | None,
) -> str:
    parts: list[str] = []
    last = 0
    for citation in citations(text):
        shown = _rendered(citation, note, in_maths=in_maths, pending=pending, marks=marks)
        parts += [text[last : citation.start], shown]
        last = citation.end
    parts.append(text[last:])
    return "".join(parts)


def _render_prose(
    prose: str, note: Note | None, *, pending: bool, marks: dict[str, str] | None
) -> str:
    parts: list[str] = []
    for piece in split_maths(prose):
        if isinstance(piece, Maths):
            fence = "$$" if piece.display else "$"
            tex = _substitute(piece.tex, note, in_maths=True, pending=pending, marks=marks)
            parts.append(fence + tex + fence)
        else:
            parts.append(_substitute(piece, note, in_maths=False, pending=pending, marks=marks))
    return "".join(parts)


def render_citations(
    text: str, note: Note | None, *, pending: bool = False, footnotes: bool = False
) -> str:
    """`text` with every `{claim:ID}`, `{measured:ID}` and `{fact:ID}` replaced by its value.

    Inside `$…$` the value is LaTeX; in prose it is plain text, or `$…$` when it needs maths
    (`2.68 \\times 10^{-7}`). Fenced code is left as written. With `pending`, a claim not
    computed yet shows `…` (nothing is computed here): the UI thread renders that way. With
    `footnotes` (a note's section), a timing's machine, device and torch are said once, in a
    footnote after the text, instead of after each value.
    """
    if "{claim:" not in text and "{measured:" not in text and "{fact:" not in text:
        return text
    marks: dict[str, str] | None = {} if footnotes else None
    rendered = "".join(
        chunk if code else _render_prose(chunk, note, pending=pending, marks=marks)
        for code, chunk in split_code_fences(text)
    )
    if not marks:
        return rendered
    notes = "\n\n".join(f"{mark} Measured {where}." for where, mark in marks.items())
    return f"{rendered.rstrip()}\n\n{notes}\n"


def card_side(text: str, note: Note | None) -> str:
    """A card side (front or back, any kind) as every renderer takes it, the Anki export and
    the screens alike: each line a line, citations as their values."""
    return render_citations(hard_breaks(text), note)

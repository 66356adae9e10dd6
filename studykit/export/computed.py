"""Computed (numeric/symbolic) cards for Anki: the variants their one note carries, or formula."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from studykit.content.model import Card, ParamSpec, Tolerance

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class TypeInVariant:
    """One type-in note's content: markdown front and back, the plain answer to type."""

    seed: int | None
    front: str
    answer: str
    back: str
    values: tuple[tuple[str, int | float], ...] = ()
    """The drawn parameter values (none for the formula): a linked experiment's inputs."""
    check: str = ""
    """What the back template's script checks the typed answer against (`typein_check`)."""


def typein_check(
    kind: str,
    *,
    value: float | None = None,
    tolerance: Tolerance | None = None,
    forms: Sequence[str] = (),
) -> str:
    """The hidden check field: `numeric <value> <abs|rel|sig> <amount>`, or `symbolic` + forms."""
    if kind == "numeric":
        assert value is not None and tolerance is not None
        if tolerance.abs is not None:
            rule = f"abs {tolerance.abs!r}"
        elif tolerance.rel is not None:
            rule = f"rel {tolerance.rel!r}"
        else:
            rule = f"sig {tolerance.sig_figs}"
        return f"numeric {value!r} {rule}"
    return "\n".join(["symbolic", *(" ".join(form.split()) for form in forms)])


def symbolic_accepted(forms: Sequence[str], defines: str | None) -> str:
    """The back's line on what a symbolic answer accepts (Anki's own check compares text)."""
    shown = " or ".join(f"`{form}`" for form in forms)
    text = f"Accepted: {shown}, or any expression equal to it (`^` may stand for `**`)"
    if defines:
        text += f"; it is `{defines}`"
    return text + "."


def _param_latex(name: str) -> str:
    from studykit.expressions import ExpressionError, parse

    try:
        return parse(name, names=(name,)).latex()
    except ExpressionError:
        escaped = name.replace("_", r"\_")
        return rf"\mathit{{{escaped}}}"


def _range_text(spec: ParamSpec) -> str:
    if spec.choices is not None:
        values = ", ".join(str(value) for value in spec.choices)
        return rf"\in \{{{values}\}}"
    step = f", step {spec.step:g}" if spec.step is not None else ""
    return rf"\in [{spec.min:g}, {spec.max:g}]" + (rf"\text{{{step}}}" if step else "")


def formula_variant(card: Card) -> TypeInVariant:
    """The card without drawn values: placeholders named, the answer shown as its formula."""
    from studykit.expressions import ExpressionError, parse

    names = {name: _param_latex(name) for name in card.params}

    def placeholder(match: re.Match[str]) -> str:
        name = match.group(1)
        return f"⟨{name}⟩" if name in names else match.group()

    front = _PLACEHOLDER.sub(placeholder, card.front)
    if card.params:
        ranges = ", ".join(f"${names[n]} {_range_text(s)}$" for n, s in card.params.items())
        front += f"\n\nWith {ranges}."
    answer = card.answer or ""
    try:
        shown = f"$${parse(answer, names=tuple(card.params)).latex()}$$"
    except ExpressionError:
        shown = f"`{answer}`"
    back = f"Answer: {shown}"
    check = ""
    if card.kind == "symbolic" and not card.params:
        check = typein_check("symbolic", forms=[answer])
        back += "\n\n" + symbolic_accepted([answer], card.defines)
    if card.back and card.back.strip():
        back += f"\n\n{card.back}"
    return TypeInVariant(seed=None, front=front, answer=answer, back=back, check=check)

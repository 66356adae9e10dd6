"""Which Anki notes an export writes: fields as HTML, tags, decks and stable GUID keys."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from studykit.content.citations import card_side
from studykit.content.loading import Library
from studykit.content.model import COMPUTED_KINDS, Card, Deck, Note
from studykit.core.errors import StudykitError
from studykit.export.computed import TypeInVariant, formula_variant
from studykit.export.html import inline_html, markdown_html
from studykit.text.clozes import cloze_numbers

if TYPE_CHECKING:
    from studykit.export.media import MediaPack

ModelKind = Literal["basic", "reversed", "cloze", "type-in", "computed"]
"""Our notetypes; "type-in" (a note per baked variant) is only written for notes exported
before computed cards became one note each, sent once more as removed."""
Progress = Callable[[int], None]
VariantSource = Callable[[Deck, Card, int], Sequence[TypeInVariant] | None]
FieldRender = Callable[[str, bool], str]
"""(markdown, is a cloze field) -> HTML: `markdown_html`, or a cache in front of it."""


def render_field(text: str, cloze: bool) -> str:
    """The uncached `FieldRender`."""
    return markdown_html(text, cloze=cloze)


_TAG_UNSAFE = re.compile(r"\s+")


class PlannedNote(NamedTuple):  # a tuple: an export builds one per card, and fast
    """One Anki note: its model, deck and card, fields (HTML), tags, and what its GUID hangs on."""

    model: ModelKind
    deck_id: str
    card_id: str
    guid_key: tuple[str, ...]
    fields: tuple[str, ...]
    tags: tuple[str, ...]
    removed: bool = False
    """Exported before, gone from the decks now: sent once more, tagged as removed."""


@dataclass(frozen=True)
class PlannedDeck:
    """An Anki deck: our deck id (for its stable Anki id), full `A::B::C` name, description."""

    id: str
    name: str
    description: str


@dataclass(frozen=True)
class ExportPlan:
    """Everything to write, plus the computed cards exported as a formula rather than values."""

    decks: tuple[PlannedDeck, ...]
    notes: tuple[PlannedNote, ...]
    unbaked: tuple[str, ...]
    removed: tuple[str, ...] = ()
    """`deck/card` (`deck/card (variant N)`) of removed cards (dropped variants) sent once more."""


def _tags(deck: Deck, card: Card) -> tuple[str, ...]:
    return _anki_tags((*deck.tags, *card.tags))


@lru_cache(maxsize=4096)  # cards share a few tag sets; an export asks for each many times
def _anki_tags(tags: tuple[str, ...]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for tag in tags:
        seen.setdefault(_TAG_UNSAFE.sub("_", tag.strip()), None)
    return tuple(tag for tag in seen if tag)


def _source(note: Note | None, card: Card, media: MediaPack | None) -> str:
    """The cited section's title, and the plot of the experiment the section links to."""
    section = note.section(card.source) if note is not None and card.source else None
    if section is None:
        return ""
    plot = media.plot(section.experiment) if media is not None else ""
    title = inline_html(section.title)
    return f"{title}<br>{markdown_html(plot)}" if plot else title


def _card_notes(
    deck: Deck,
    note: Note | None,
    card: Card,
    where: str,
    variants: int,
    source: VariantSource | None,
    render: FieldRender,
    media: MediaPack | None = None,
    folder: Path | None = None,
) -> tuple[list[PlannedNote], bool]:
    """The notes for one card, and whether a computed card went out without drawn values.

    `where` is the card's source field (`_source`). With `media`, images are packed (paths
    relative to `folder`, the deck file's) and the plot of the card's linked experiment goes
    at the end of its back.
    """
    tags = _tags(deck, card)
    key = ("studykit", deck.id, card.id)

    def field(text: str, *, cloze: bool = False, plot: str = "") -> str:
        text = card_side(text, note)
        if media is not None and folder is not None:
            text = media.images(text, folder)
        if plot:  # after the images: the plot is packed already
            text = f"{text}\n\n{plot}" if text.strip() else plot
        return render(text, cloze)

    def plot(values: dict[str, object] | None = None) -> str:
        return media.plot(card.experiment, values) if media is not None else ""

    back = field(card.back or "", plot=plot() if card.kind not in COMPUTED_KINDS else "")
    if card.kind == "cloze":
        fields = (field(card.front, cloze=True), back, where)
        _same_ordinals(deck, card, tuple(cloze_numbers(fields[0])) or (1,))
        return [PlannedNote("cloze", deck.id, card.id, key, fields, tags)], False
    if card.kind not in COMPUTED_KINDS:
        kind: ModelKind = "reversed" if card.kind == "reversed" else "basic"
        fields = (field(card.front), back, where)
        return [PlannedNote(kind, deck.id, card.id, key, fields, tags)], False
    drawn = source(deck, card, variants) if source is not None and variants > 0 else None
    baked = bool(drawn)
    shown = []  # (front, back) HTML and (answer, check) text of each variant
    for variant in drawn or [formula_variant(card)]:
        back = field(variant.back, plot=plot(dict(variant.values)))
        shown.append((field(variant.front), back, variant.answer, variant.check))
    front, back, answer, check = shown[0]
    data = f"<div id=sk-check-data hidden>{html.escape(check, quote=False)}</div>" if check else ""
    typed = html.escape(answer, quote=False)
    computed = (front, typed, back + data, where, variants_field(f"{deck.id}/{card.id}", shown))
    # Its own GUID: the notes of the type-in notetype (one per variant) were keyed without
    # "computed", and Anki updates no note into another notetype.
    guid = (*key, "computed")
    return [PlannedNote("computed", deck.id, card.id, guid, computed, tags)], not baked


def variants_field(card: str, variants: Sequence[tuple[str, str, str, str]]) -> str:
    """A computed note's Variants field: each baked variant's front and back (HTML), and the
    answer to type and its type-in check (`typein_check`) as attributes.

    The templates' script shows one of them per showing (`variants.js`); where scripts do
    not run, the note's own fields (the first variant) show.
    """
    blocks = [f"<div class=sk-card data-sk-card={card}></div>"]
    for front, back, answer, check in variants:
        blocks.append(
            f'<div class=sk-variant data-sk-answer="{html.escape(answer)}" '
            f'data-sk-check="{html.escape(check)}" hidden><div class=sk-v-front>{front}</div>'
            f"<div class=sk-v-back>{back}</div></div>"
        )
    return "".join(blocks)


class OrdinalsDiffer(StudykitError):
    """A cloze whose HTML would give Anki other cards than the deletions studykit schedules."""


def _same_ordinals(deck: Deck, card: Card, made: tuple[int, ...]) -> None:
    """Refuse a cloze field Anki would make other cards of: each studykit schedule is one
    Anki card, so their state and history would land on the wrong cards."""
    if made == card.ordinals:
        return
    where = f"{card.origin}: " if card.origin is not None else ""
    ours = ", ".join(f"c{n}" for n in card.ordinals)
    theirs = ", ".join(f"c{n}" for n in made)
    raise OrdinalsDiffer(
        f"{where}{deck.id}/{card.id}: Anki would make cards {theirs} of this cloze, but "
        f"studykit schedules {ours}; write each deletion as a plain {{{{cN::text}}}}"
    )


def selected_decks(library: Library, deck_ids: Sequence[str] = ()) -> list[Deck]:
    """The decks to export, in library order; all of them when `deck_ids` is empty."""
    wanted = set(deck_ids)
    return [deck for deck in library.decks.values() if not wanted or deck.id in wanted]


def plan_export(
    library: Library,
    decks: Sequence[Deck],
    *,
    variants: int = 3,
    variant_source: VariantSource | None = None,
    progress: Progress | None = None,
    render: FieldRender = render_field,
    media: MediaPack | None = None,
) -> ExportPlan:
    """Build the notes of `decks`, fields through `render`; `progress(n)` after every n cards.

    With `media`, card images and linked experiments' plots are collected into it.
    """
    planned: list[PlannedNote] = []
    unbaked: list[str] = []
    for deck in decks:
        note = library.note_for(deck)
        origin = deck.origin
        folder = (library.root / origin.path).parent if origin is not None else library.root
        sources: dict[str | None, str] = {}  # a deck's cards cite a few sections, many times
        for card in deck.cards:
            where = sources.get(card.source)
            if where is None:
                where = sources[card.source] = _source(note, card, media)
            notes, formula_only = _card_notes(
                deck, note, card, where, variants, variant_source, render, media, folder
            )
            planned += notes
            if formula_only:
                unbaked.append(f"{deck.id}/{card.id}")
            if progress is not None:
                progress(1)
    return ExportPlan(
        decks=tuple(PlannedDeck(d.id, d.name, markdown_html(d.description)) for d in decks),
        notes=tuple(planned),
        unbaked=tuple(unbaked),
    )

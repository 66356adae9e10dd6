"""Experiment links: the parameters a note or card passes must fit the experiment's specs."""

from __future__ import annotations

import re

from studykit.checking.findings import Finding
from studykit.content.model import ExperimentRef, ParamValue

# `{gamma}` in a card's link is the card's drawn parameter; it is checked per variant, not here.
_TEMPLATE = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


def literal_params(link: ExperimentRef) -> dict[str, ParamValue]:
    """The parameters written as values (templated ones left out)."""
    return {
        key: value
        for key, value in link.params.items()
        if not (isinstance(value, str) and _TEMPLATE.search(value))
    }


def check_link(link: ExperimentRef) -> Finding | None:
    """None when a registered experiment takes these values; otherwise what is wrong."""
    from studykit.experiments.base import ExperimentError
    from studykit.experiments.params import validate
    from studykit.experiments.registry import get, names

    if link.name not in names():
        return None  # unknown names are `--run-experiments`' finding (checking/experiments.py)
    try:
        validate(get(link.name), literal_params(link))
    except ExperimentError as error:
        return Finding(str(error))
    return None

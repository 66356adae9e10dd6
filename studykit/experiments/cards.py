"""What a card's `experiment:` link shows: its cached result, with a drawn variant's values."""

from __future__ import annotations

import re
from collections.abc import Mapping

from studykit.content.model import ExperimentRef
from studykit.experiments.base import DEFAULT_SEED, Result
from studykit.experiments.cache import ExperimentCache, lookup

_PLACEHOLDER = re.compile(r"^\{([A-Za-z_][A-Za-z0-9_]*)\}$")


def resolved_params(ref: ExperimentRef, values: Mapping[str, object]) -> dict[str, object]:
    """The link's params with each `"{name}"` replaced by the card's drawn value for `name`."""
    out: dict[str, object] = {}
    for key, value in ref.params.items():
        match = _PLACEHOLDER.match(value) if isinstance(value, str) else None
        out[key] = values.get(match.group(1), value) if match else value
    return out


def answer_for(
    ref: ExperimentRef,
    values: Mapping[str, object],
    *,
    cache: ExperimentCache,
    device: str = "cpu",
    seed: int = DEFAULT_SEED,
) -> Result | None:
    """The cached result of the linked experiment for these values, or None if never run.

    Never runs an experiment (that is the Experiments screen's job, in a worker); bad
    parameters raise ParamError naming the parameter.
    """
    return lookup(cache, ref.name, resolved_params(ref, values), device=device, seed=seed)

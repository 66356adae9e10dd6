"""Pilot tests start hundreds of apps in one process; each would parse the same CSS again."""

from __future__ import annotations

from typing import Any

from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet

_PARSED: dict[tuple[Any, ...], list[RuleSet]] = {}
_parse_rules = Stylesheet._parse_rules


def _shared_parse_rules(
    self: Stylesheet,
    css: str,
    read_from: Any,
    is_default_rules: bool = False,
    tie_breaker: int = 0,
    scope: str = "",
) -> list[RuleSet]:
    """Textual's own per-stylesheet cache, kept for the whole test process: the same CSS with
    the same theme variables parses to the same rules, which Textual only ever reads."""
    variables = tuple(sorted(self._variables.items()))
    key = (css, read_from, is_default_rules, tie_breaker, scope, variables)
    rules = _PARSED.get(key)
    if rules is None:
        rules = _PARSED[key] = _parse_rules(
            self, css, read_from, is_default_rules, tie_breaker, scope
        )
    return rules


Stylesheet._parse_rules = _shared_parse_rules  # type: ignore[method-assign]

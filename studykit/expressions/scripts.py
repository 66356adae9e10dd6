"""Names in expressions: NFKC-normalised, and a warning when they mix writing systems."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_IDENTIFIER = r"[^\W\d]\w*"  # a pattern string: this package calls no `compile`
# Greek letters are ordinary maths names beside Latin ones (γ, ρ); only other mixes are odd.
_MATHS_COMPANION = "Greek"


def nfkc(text: str) -> str:
    """`text` in NFKC form, as Python reads names: full-width `ｘ` is `x`."""
    return unicodedata.normalize("NFKC", text)


def _script(char: str) -> str | None:
    """The writing system of a letter (`Latin`, `Greek`, `Cyrillic`, ...); None otherwise."""
    if not char.isalpha():
        return None
    return unicodedata.name(char, "UNKNOWN").split(" ")[0].title()


def scripts_of(name: str) -> list[str]:
    """The writing systems of the letters in `name`, in order of first use."""
    found: list[str] = []
    for char in name:
        script = _script(char)
        if script is not None and script not in found:
            found.append(script)
    return found


def names_in(text: str) -> list[str]:
    """The identifiers in an expression's text (NFKC), in order, without repeats."""
    return list(dict.fromkeys(re.findall(_IDENTIFIER, nfkc(text))))


def mixed_scripts(names: Iterable[str]) -> str | None:
    """A warning when the names mix writing systems (Latin with Greek is fine); else None."""
    by_script: dict[str, str] = {}
    for name in names:
        scripts = scripts_of(name)
        if len(scripts) > 1:
            return (
                f"`{name}` mixes {' and '.join(scripts)} letters; "
                "look-alike letters make a different name, so retype it in one script"
            )
        if scripts and scripts[0] != _MATHS_COMPANION:
            by_script.setdefault(scripts[0], name)
    if len(by_script) < 2:
        return None
    shown = ", ".join(f"`{name}` ({script})" for script, name in by_script.items())
    return f"names in different scripts: {shown}; look-alike letters are different names"


def script_note(name: str) -> str:
    """` (`name` has Cyrillic letters)` for a name not written in Latin letters; else ``."""
    scripts = [script for script in scripts_of(name) if script != "Latin"]
    if not scripts:
        return ""
    return f" (`{name}` has {' and '.join(scripts)} letters)"

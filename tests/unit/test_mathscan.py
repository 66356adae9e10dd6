"""The one-pattern path of `split_maths` against the scanner it stands in for."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from studykit.text.mathscan import Maths, replace_maths, replace_tex, scan_maths, split_maths

# Everything that decides where maths starts and ends, and characters that do not.
_PROSE = st.text(alphabet="$\\ \n\t>x1a{}_^.\r\u00a0\u2003`", max_size=24)


@settings(max_examples=3000, deadline=None)
@given(_PROSE)
def test_split_maths_finds_what_the_scanner_finds(prose: str) -> None:
    assert split_maths(prose) == scan_maths(prose)


@settings(max_examples=1000, deadline=None)
@given(_PROSE)
def test_replace_maths_replaces_exactly_the_maths_the_scanner_finds(prose: str) -> None:
    def shown(maths: Maths) -> str:
        return f"<{maths.tex}|{maths.display}|{maths.end}>"

    expected = "".join(p if isinstance(p, str) else shown(p) for p in scan_maths(prose))
    assert replace_maths(prose, shown) == expected


@settings(max_examples=1000, deadline=None)
@given(_PROSE)
def test_replace_tex_replaces_exactly_the_maths_the_scanner_finds(prose: str) -> None:
    def shown(tex: str, display: bool) -> str:
        return f"<{tex}|{display}>"

    pieces = scan_maths(prose)
    expected = "".join(p if isinstance(p, str) else shown(p.tex, p.display) for p in pieces)
    assert replace_tex(prose, shown) == expected


def test_inline_maths_closes_at_the_first_dollar_that_hugs_it() -> None:
    # `$b` after a space does not close; `$5` before a digit does not either.
    assert split_maths("p $a $b$ and $x$5 $y$.") == [
        "p ",
        Maths("a $b", False, 8),
        " and ",
        Maths("x$5 $y", False, 21),
        ".",
    ]


def test_a_paragraph_break_or_an_escape_keeps_a_dollar_as_text() -> None:
    assert split_maths("$a\n\n b$") == ["$a\n\n b$"]
    assert split_maths("\\$a$ and $\\$ b$") == ["\\$a$ and ", Maths("\\$ b", False, 15)]

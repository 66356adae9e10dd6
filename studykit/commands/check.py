"""`studykit check`: verify every claim and computed card in the content."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import click

from studykit.commands.support import EXIT_OK, EXIT_USAGE, fail, settings_from
from studykit.core.terminal import json_text


@click.command()
@click.argument(
    "paths", nargs=-1, type=click.Path(path_type=Path, exists=False), metavar="[PATH]..."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.option(
    "--run-experiments",
    is_flag=True,
    help=(
        "Also run each linked experiment that has a closed form and compare; compare each "
        "computed card with the answer its experiment measures; re-run every measured entry "
        "(non-deterministic ones against their band)."
    ),
)
@click.option(
    "--watch",
    is_flag=True,
    help="Check again after each save of a .yaml file, until Ctrl-C (not with --json).",
)
@click.option(
    "--verbose",
    "-v",
    is_flag=True,
    help="Also list each equation in the prose that was skipped, with file:line and why.",
)
@click.pass_context
def check(
    ctx: click.Context,
    paths: tuple[Path, ...],
    as_json: bool,
    run_experiments: bool,
    watch: bool,
    verbose: bool,
) -> None:
    """Check the content: schema, references, every claim and every computed card.

    PATH is a root folder (holding content/ and decks/), or a file or folder inside one;
    the default is the settings root. Numbers in claims are checked with `rel_tol`/`abs_tol`
    (rel_tol 1e-6 when neither is given), `equals` exactly, identities by sympy, and a
    complexity claim's cost against its `order`; every `O(…)` in the maths must be the order
    of one of its note's complexity claims. Each computed card's answer must be a finite
    real for every parameter choice (ranges: the endpoints and grid points) and needs
    evidence: `examples` worked by hand, `agrees_with` a claim of its note, `defines`
    (symbolic) or an experiment `answer`; each is compared with the answer, and a card with
    none is a problem. An experiment answer is compared only with --run-experiments (at a
    card's low, middle and high parameter choices); plain `check` counts it and says so in
    the `evidence:` line.

    A `measured:` entry is compared with a run of its experiment: plain check uses the run
    recorded in the cache folder while the experiment's code, parameters and torch version
    are unchanged (and runs it otherwise); --run-experiments re-runs every entry, and a
    non-deterministic one (`deterministic: false`) must land in its `band`.

    Every `$…$`/`$$…$$` equation in note bodies, card fronts and backs (cloze answers filled
    in) and claims' `says` is parsed: numeric sides are checked (`=` exactly, `\\approx` to
    half a unit in the last written digit, a range `\\in (a, b]` at both ends), sides with
    variables as identities at sample points; `$T = 512$` defines T for the equations after
    it in the same text, unless the note or deck declares T (`definitions:`): then it is
    checked against the declaration. A complexity claim's `growth` names a measured
    exponent its order must match. What cannot be read is skipped with a reason
    (`--verbose` lists them).

    Every other number a section's title or body, or a card's side, shows must be cited
    (`{fact:ID}`, a given number the note declares once under `facts:` with its source;
    `{claim:ID}`; `{measured:ID}`), or stated in maths in a relation, or follow a word the
    note lists under `labels:` (`Limitation 3`); a bare number is a problem at its line
    (`numbers:` line; decks with no note are not searched and are named there).

    Prints one line per problem (`file:line: claim ID: expected X, computed Y`) and a
    summary (`N claims, M cards checked, E equations (V verified, S skipped, W wrong),
    K problems`, M = computed cards). Exit 0 clean, 1 problems found (a file that did not
    load is one), 2 a PATH that cannot be checked.
    """
    from studykit.checking import CheckInputError, run_check

    settings = settings_from(ctx)
    if watch:
        _watch(
            list(paths),
            settings.root,
            as_json=as_json,
            run_experiments=run_experiments,
            recorded=settings.cache_dir,
        )
    try:
        report = run_check(
            list(paths),
            settings.root,
            run_experiments=run_experiments,
            recorded=settings.cache_dir,
        )
    except CheckInputError as error:
        fail(str(error), EXIT_USAGE)
    if as_json:
        click.echo(json_text(report.to_json(verbose=verbose)))
    else:
        for line in report.text_lines(verbose=verbose, ran_experiments=run_experiments):
            click.echo(line)
    raise SystemExit(report.exit_code)


def _watch(
    paths: list[Path], root: Path, *, as_json: bool, run_experiments: bool, recorded: Path
) -> NoReturn:
    """`--watch`: report after each save until Ctrl-C, then exit 0."""
    from studykit.checking import CheckInputError
    from studykit.checking.watch import watch_check

    if as_json:
        fail("--watch prints a report per save for people; use --json without --watch", EXIT_USAGE)
    try:
        watch_check(
            paths, root, run_experiments=run_experiments, echo=click.echo, recorded=recorded
        )
    except CheckInputError as error:
        fail(str(error), EXIT_USAGE)
    raise SystemExit(EXIT_OK)

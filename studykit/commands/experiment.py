"""`studykit experiment list|run`: the live PyTorch experiments from the command line."""

from __future__ import annotations

import shutil
import textwrap
from typing import TYPE_CHECKING

import click

from studykit.commands.support import EXIT_INTERRUPTED, EXIT_PROBLEM, EXIT_USAGE, fail
from studykit.core.jsontypes import JsonObject
from studykit.core.terminal import json_text

if TYPE_CHECKING:
    from pathlib import Path

    from studykit.experiments.base import Experiment, Result


@click.group()
def experiment() -> None:
    """List and run the live PyTorch experiments."""


def _param_json(experiment: Experiment) -> list[JsonObject]:
    return [
        {
            "name": p.name,
            "type": p.kind,
            "default": p.default,
            "range": p.describe_range(),
            "low": p.low,
            "high": p.high,
            "choices": list(p.choices),
            "aliases": list(p.aliases),
            "help": p.help,
        }
        for p in experiment.params
    ]


@experiment.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
def list_experiments(as_json: bool) -> None:
    """List the experiments and their parameters."""
    from studykit.experiments.registry import experiments

    found = experiments()
    if as_json:
        document = {
            "experiments": [
                {"name": e.name, "title": e.title, "summary": e.summary, "params": _param_json(e)}
                for e in found.values()
            ]
        }
        click.echo(json_text(document))
        return
    for line in listing_lines(list(found.values()), shutil.get_terminal_size().columns):
        click.echo(line)


def listing_lines(found: list[Experiment], width: int) -> list[str]:
    """Each experiment's name and summary, then its parameters as `name=default`, with every
    description in one column and wrapped under itself to `width`."""
    rows: list[tuple[str, str]] = []
    for e in found:
        rows.append((e.name, e.summary))
        for p in e.params:
            also = f" (also: {', '.join(p.aliases)})" if p.aliases else ""
            rows.append((f"  {p.name}={p.default!s}", f"{p.describe_range()}{also} — {p.help}"))
    column = max((len(left) for left, _ in rows), default=0) + 2
    room = max(width - column - 1, 30)  # a narrow terminal still gets readable lines
    lines = []
    for left, text in rows:
        wrapped = textwrap.wrap(text, room, break_on_hyphens=False) or [""]
        lines.append(left.ljust(column) + wrapped[0])
        lines.extend(" " * column + rest for rest in wrapped[1:])
    return lines


@experiment.command("run")
@click.argument("name")
@click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE", help="A parameter.")
@click.option(
    "--device",
    type=click.Choice(["auto", "cpu", "cuda"]),
    default="auto",
    show_default=True,
    help="auto: cuda when available.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed, 0 to 2**64-1.")
@click.option(
    "--budget",
    metavar="SPEC",
    help="Memory and/or time for this run, e.g. 8GiB or 8GiB,300s "
    "(default 2GiB,60s, or experiment_budget in config.toml).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.option(
    "--cache",
    "cache",
    is_flag=True,
    help="Store the result in the study database, as the app does, so the app and "
    "`export anki` (which packs its plot into linked cards) use it.",
)
@click.pass_context
def run(
    ctx: click.Context,
    name: str,
    assignments: tuple[str, ...],
    device: str,
    seed: int,
    budget: str | None,
    as_json: bool,
    cache: bool,
) -> None:
    """Run experiment NAME in its own process and show its answers, table, plot and explanation.

    A run whose estimate does not fit the budget is refused before it starts (exit 2).
    """
    from studykit.commands.support import settings_from
    from studykit.experiments.base import (
        DeviceUnavailable,
        ExperimentError,
        ParamError,
        UnknownExperiment,
    )
    from studykit.experiments.budget import OverBudget, parse_budget
    from studykit.experiments.params import check_seed, parse_assignments
    from studykit.experiments.runner import prepare, run_experiment

    try:
        check_seed(seed)
    except ParamError as error:
        fail(f"--{error}", EXIT_USAGE)
    try:
        params = parse_assignments(assignments)
        found, _ = prepare(name, params, device)
        settings = settings_from(ctx)
        limits = settings.experiment_budget
        if budget is not None:
            limits = parse_budget(budget, base=limits)
        result = run_experiment(found, params, device=device, seed=seed, budget=limits)
    except DeviceUnavailable as error:
        fail(f"--device {device}: {error} (--device cpu)", EXIT_USAGE)
    except (ParamError, UnknownExperiment, OverBudget) as error:
        fail(str(error), EXIT_USAGE)
    except ExperimentError as error:
        fail(str(error), EXIT_PROBLEM)
    except KeyboardInterrupt:
        fail(f"interrupted; the run of {name} was stopped", EXIT_INTERRUPTED)
    if cache:
        _cache(settings.database_path, result)
    if as_json:
        click.echo(json_text(result.to_json()))
    else:
        click.echo(human_report(result))


def _cache(database: Path, result: Result) -> None:
    """Store the result in the study database's experiment cache; a failure is only told."""
    from datetime import UTC, datetime

    from studykit.core.errors import USER_ERRORS, describe_error
    from studykit.srs.store import Store

    data = result.to_json()
    try:
        with Store.open(database) as store:
            store.put_experiment_result(
                name=result.name,
                params=data["params"],
                seed=result.seed,
                device=result.device,
                torch_version=result.torch_version,
                result=data,
                created_at=datetime.now(UTC),
            )
    except USER_ERRORS as error:
        click.echo(f"studykit: the result was not cached: {describe_error(error)}", err=True)


def human_report(result: Result, *, width: int = 80) -> str:
    """Answers, table, plot and explanation as terminal text."""
    from studykit.experiments.budget import describe_bytes
    from studykit.experiments.plotting import render_text
    from studykit.experiments.registry import get

    experiment = get(result.name)
    out = result.outcome
    params = ", ".join(f"{k}={v}" for k, v in result.params.items())
    lines = [
        f"{experiment.title} ({result.name})",
        f"params: {params}",
        f"seed {result.seed} · device {result.device} · {result.machine} · "
        f"torch {result.torch_version} · {result.elapsed_s:.2f} s"
        + (f" · peak {describe_bytes(result.peak_bytes)}" if result.peak_bytes else ""),
        "",
    ]
    label_width = max(len(a.label) for a in out.answers)
    lines += [f"  {a.label:<{label_width}}  {a.text()}" for a in out.answers]
    if out.table is not None:
        lines += ["", *_table_lines(out.table.headers, out.table.rows)]
    if out.plot is not None:
        text = render_text(out.plot, width=width, height=18)
        lines += ["", text if text is not None else "(install 'studykit[plots]' for a plot)"]
    lines += ["", out.explanation]
    return "\n".join(lines)


def _table_lines(headers: tuple[str, ...], rows: tuple[tuple[str, ...], ...]) -> list[str]:
    cells = [headers, *rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    return ["  " + "  ".join(f"{r[i]:>{widths[i]}}" for i in range(len(r))) for r in cells]

"""`studykit optimize`, `simulate` and `workload`: your own memory model.

Heavy imports (torch, numpy, the optimizer) happen inside the commands, never at start-up.
"""

from __future__ import annotations

import json
import math
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import click

from studykit.commands.support import EXIT_PROBLEM, EXIT_USAGE, fail, settings_from
from studykit.core.jsontypes import JsonObject

if TYPE_CHECKING:
    from studykit.memory.optimize import Fit
    from studykit.study.session import StudySession

_EXTRA = "pip install 'studykit[torch]'"


class _Bar:
    """A progress bar on stderr when it is a terminal and the output is not JSON; else silent.

    Called as `bar(done, total)` from the work loop; the bar is drawn from the first call.
    """

    def __init__(self, label: str, *, quiet: bool) -> None:
        self._label = label
        self._shown = not quiet and sys.stderr.isatty()
        self._bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if not self._shown:
            return
        if self._bar is None:
            self._bar = click.progressbar(length=total, label=self._label, file=sys.stderr)
            self._bar.__enter__()
        self._bar.update(done - self._bar.pos)

    def __enter__(self) -> _Bar:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.__exit__(kind, error, trace)


def _need_numpy(command: str) -> None:
    """Exit 2 naming the extra to install when numpy is missing."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        fail(f"`studykit {command}` needs numpy: install the torch extra ({_EXTRA})", EXIT_USAGE)


def _need_engine(command: str) -> None:
    """Exit 2 saying how to install fsrs-rs-python when it is missing."""
    from studykit.memory.engine import EngineMissing, available

    if not available():
        fail(str(EngineMissing(f"`studykit {command}`")), EXIT_USAGE)


def _open(ctx: click.Context, deck_id: str | None) -> StudySession:
    from studykit.study.session import StudySession

    session = StudySession.open(settings_from(ctx))
    if deck_id is not None and deck_id not in session.library.decks:
        session.close()
        from studykit.commands.support import check_deck

        check_deck(session.library, deck_id)
    return session


def _num(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 6)


def _fit_document(fit: Fit, *, deck_id: str | None, applied: bool, moved: int | None) -> JsonObject:
    return {
        "deck": deck_id,
        "parameters": [round(w, 6) for w in fit.parameters],
        "current_parameters": [round(w, 6) for w in fit.current],
        "log_loss_before": _num(fit.before.log_loss),
        "log_loss_after": _num(fit.after.log_loss),
        "rmse_before": _num(fit.before.rmse),
        "rmse_after": _num(fit.after.rmse),
        "reviews": fit.reviews,
        "cards": fit.cards,
        "train_reviews": fit.train_reviews,
        "test_reviews": fit.test_reviews,
        "split_at": fit.split_at.isoformat(),
        "train_cards": fit.train_cards,
        "fit_cards": fit.fit_cards,
        "applied": applied,
        "rescheduled": moved,
    }


@click.command()
@click.option("--deck", "deck_id", metavar="ID", help="Fit one deck and its sub-decks.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.option("--apply", "apply", is_flag=True, help="Schedule with the fitted parameters.")
@click.option(
    "--reschedule", is_flag=True, help="With --apply: recompute due dates of answered cards."
)
@click.pass_context
def optimize(
    ctx: click.Context, deck_id: str | None, as_json: bool, apply: bool, reschedule: bool
) -> None:
    """Fit FSRS parameters to your review log; compare them with the current ones.

    fsrs-rs-python, the optimizer Anki uses, fits on the earlier 80 % of your reviews
    (converted as Anki converts its review log) and scores both parameter sets on the
    later 20 % (log loss and RMSE in bins, lower is better). `--apply` stores the fitted
    parameters (for --deck and its sub-decks, or for everything) when they predict the
    later reviews at least as well; the next answer uses them.
    """
    if reschedule and not apply:
        fail("--reschedule needs --apply", EXIT_USAGE)
    _need_engine("optimize")
    from studykit.memory.optimize import NotEnoughReviews, fit

    session = _open(ctx, deck_id)
    try:
        answers, forgets, next_day_at = session.training_log(deck_id)
        model = session.memory_model(deck_id)
        current = None if model is None else model["parameters"]
        try:
            result = fit(
                answers,
                next_day_at=next_day_at,
                forgets=forgets,
                current=current,
                relearning_steps=len(session.settings.relearning_steps),
            )
        except NotEnoughReviews as error:
            fail(str(error), EXIT_PROBLEM)
        better = not result.after.log_loss > result.before.log_loss
        applied = apply and better
        moved = None
        if applied:
            session.set_memory_model(
                deck_id,
                result.parameters,
                reviews=result.reviews,
                cards=result.cards,
                log_loss=_num(result.after.log_loss),
                rmse=_num(result.after.rmse),
            )
            if reschedule:
                moved = session.reschedule(deck_id)
    finally:
        session.close()
    if as_json:
        document = _fit_document(result, deck_id=deck_id, applied=applied, moved=moved)
        click.echo(json.dumps(document, indent=2))
        return
    where = f"deck {deck_id} and its sub-decks" if deck_id else "all decks"
    click.echo(
        f"Fitted on {result.train_reviews} reviews of {where}; checked on the "
        f"{result.test_reviews} reviews since {result.split_at:%Y-%m-%d}."
    )
    click.echo(f"Used {result.reviews} answers of {result.cards} cards.")
    if result.fit_cards < result.train_cards:
        click.echo(
            f"That is a sample of {result.fit_cards} of the {result.train_cards} earlier "
            "cards, to keep the fit within seconds."
        )
    click.echo(f"{'':10}{'current':>10}{'fitted':>10}")
    click.echo(f"{'log loss':10}{result.before.log_loss:>10.4f}{result.after.log_loss:>10.4f}")
    click.echo(f"{'RMSE':10}{result.before.rmse:>10.4f}{result.after.rmse:>10.4f}")
    click.echo("parameters: " + ", ".join(f"{w:.4f}" for w in result.parameters))
    if applied:
        click.echo("Applied: the next answers are scheduled with the fitted parameters.")
        if moved is not None:
            click.echo(f"Rescheduled {moved} cards from their history.")
    elif apply:
        click.echo("Not applied: the fitted parameters predict the later reviews worse.")


@click.command()
@click.option("--days", type=click.IntRange(1, 3650), default=90, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--learner",
    default="default",
    metavar="default|FILE",
    help="The student's memory model: `default` or a YAML/JSON learner file.",
)
@click.option("--deck", "deck_id", metavar="ID", help="Study only this deck.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.pass_context
def simulate(
    ctx: click.Context, days: int, seed: int, learner: str, deck_id: str | None, as_json: bool
) -> None:
    """A synthetic student studies your decks for N days, ending yesterday.

    Every answer goes through the real session (limits, scheduler, review log), so the
    data dir then holds a history to try `optimize` and `workload` on. Refuses a data dir
    that already holds reviews. The same seed gives the same history.
    """
    from studykit.memory.simulate import (
        DEFAULT_LEARNER,
        DataDirInUse,
        LearnerError,
        load_learner,
    )
    from studykit.memory.simulate import (
        simulate as run,
    )

    try:
        student = DEFAULT_LEARNER if learner == "default" else load_learner(Path(learner))
    except LearnerError as error:
        fail(str(error), EXIT_USAGE)
    settings = settings_from(ctx)
    if deck_id is not None:
        _open(ctx, deck_id).close()
    now = datetime.now(UTC)
    end = now.replace(hour=9, minute=0, second=0, microsecond=0)  # days of study at 09:00 UTC
    if end > now:
        end -= timedelta(days=1)
    start = end - timedelta(days=days)
    with _Bar("Simulating", quiet=as_json) as bar:
        try:
            result = run(
                settings,
                days=days,
                seed=seed,
                learner=student,
                deck_id=deck_id,
                start=start,
                progress=bar,
            )
        except DataDirInUse as error:
            fail(str(error), EXIT_USAGE)
    retention = result.recalled / result.reviews if result.reviews else None
    if as_json:
        document = {
            "days": result.days,
            "seed": seed,
            "answers": result.answers,
            "cards": result.cards,
            "reviews": result.reviews,
            "true_retention": None if retention is None else round(retention, 4),
            "minutes": round(result.minutes, 1),
            "start": result.start.isoformat(),
            "end": result.end.isoformat(),
        }
        click.echo(json.dumps(document, indent=2))
        return
    shown = "-" if retention is None else f"{retention:.1%}"
    click.echo(
        f"Simulated {days} days from {result.start:%Y-%m-%d}: {result.answers} answers to "
        f"{result.cards} cards, {result.minutes:.0f} minutes, true retention {shown}."
    )


@click.command()
@click.option("--days", type=click.IntRange(1, 3650), default=365, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.pass_context
def workload(ctx: click.Context, days: int, as_json: bool) -> None:
    """Reviews and minutes per day, and cards remembered, for desired retention 0.70-0.97.

    Simulates your cards (their current memory state, then the new ones at your daily
    limit) with your parameters, fitted or default, scheduled as studykit schedules them
    (load balancer, Easy Days). Once you have your own fitted model it marks the desired
    retention fsrs-rs-python (Anki's optimizer) recommends.
    """
    _need_numpy("workload")
    from studykit.core.easydays import WEEKDAYS
    from studykit.memory.advice import readiness, recommend
    from studykit.memory.engine import EngineMissing
    from studykit.memory.workload import (
        RETENTIONS,
        curve,
        normal_days,
        plot_lines,
        week_lines,
        with_current,
    )
    from studykit.srs.balance import spread

    session = _open(ctx, None)
    try:
        ready = readiness(session)
        model = session.memory_model(None) if ready.enough else None
        inputs = session.workload_inputs()
        if inputs["new"] + len(inputs["stability"]) == 0:
            fail("no cards to simulate: the library has no decks", EXIT_PROBLEM)
        best, advice = None, ready.waiting()
        if model is not None:
            try:
                best = recommend(session, model["parameters"])
            except EngineMissing as error:
                advice = str(error)
            except ValueError as error:
                advice = f"No recommendation: {error}."
    finally:
        session.close()
    if model is not None:
        parameters, source = model["parameters"], f"fitted on {model['reviews']} reviews"
    else:
        from fsrs.scheduler import DEFAULT_PARAMETERS

        parameters, source = list(DEFAULT_PARAMETERS), "fsrs defaults"
    settings = settings_from(ctx)
    current = settings.desired_retention
    shown = with_current(RETENTIONS, current)
    rows = curve(
        parameters,
        inputs,
        settings,
        days=days,
        retentions=shown if best is None else with_current(shown, best),
    )
    (mine,) = [row for row in rows if row.retention == round(current, 3)]
    (plain,) = curve(parameters, inputs, settings, days=days, retentions=[current], balance=False)
    weekday, easy = inputs["weekday"], settings.easy_days
    if as_json:
        document = {
            "parameters": source,
            "days": days,
            "rows": [
                {
                    "retention": r.retention,
                    "reviews_per_day": round(r.reviews_per_day, 3),
                    "minutes_per_day": round(r.minutes_per_day, 3),
                    "remembered": round(r.remembered, 2),
                    "minutes_per_remembered": round(r.minutes_per_remembered, 4),
                }
                for r in rows
            ],
            "recommended": best,
            "advice": advice or None,
            "reviews_counted": ready.have,
            "reviews_needed": ready.need,
            "current": current,
            "load_balancer": settings.load_balancer,
            "easy_days": dict(zip(WEEKDAYS, settings.easy_days, strict=True)),
            "reviews_per_weekday": dict(
                zip(WEEKDAYS, [round(v, 2) for v in mine.per_weekday(weekday)], strict=True)
            ),
            # on the weekdays Easy Days leave normal
            "day_to_day_change": round(spread(normal_days(mine, easy, weekday)), 3),
            "day_to_day_change_plain": round(spread(normal_days(plain, easy, weekday)), 3),
        }
        click.echo(json.dumps(document, indent=2))
        return
    click.echo(
        f"{days} days, parameters {source}; {inputs['new']} new cards at "
        f"{settings.new_per_day} a day."
    )
    click.echo(f"{'retention':>9} {'reviews/day':>12} {'min/day':>8} {'remembered':>11}")
    for r in rows:
        click.echo(
            f"{r.retention:>9.2f} {r.reviews_per_day:>12.1f} {r.minutes_per_day:>8.1f} "
            f"{r.remembered:>11.0f}"
        )
    click.echo("")
    click.echo("\n".join(week_lines(mine, plain, settings, weekday)))
    click.echo("")
    click.echo("\n".join(plot_lines(rows, best, current=current)))
    if best is not None:
        click.echo(f"Recommended desired retention: {best:.2f} (fsrs-rs; yours: {current:.2f})")
    else:
        click.echo(advice)

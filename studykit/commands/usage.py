"""Click's own errors (a mistyped option, a bad value) said as every other error is.

`studykit: error: …` on one line of stderr, exit 2 for usage, instead of Click's usage block
and `Error: …`, so that scripts and people read one format.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from studykit.commands.support import EXIT_INTERRUPTED, EXIT_PROBLEM, EXIT_USAGE, fail

_CAPITAL = re.compile(r"[A-Z](?=[a-z])")
_GLOBAL = ("--data-dir", "--root")


def usage_line(error: click.UsageError) -> str:
    """One line for a usage error: Click's message, then where the help is."""
    context = error.ctx
    if isinstance(error, click.exceptions.NoArgsIsHelpError) and context is not None:
        command = context.command
        names = command.list_commands(context) if isinstance(command, click.Group) else []
        message = f"'{context.command_path}' needs a command: {', '.join(names)}"
    else:
        message = error.format_message().strip()
        message = _CAPITAL.sub(lambda capital: capital.group().lower(), message, count=1)
        message = message.removesuffix(".")
        if isinstance(error, click.NoSuchOption) and error.option_name in _GLOBAL and context:
            # `studykit review --data-dir D`: the global options go before the command.
            program, _, words = context.command_path.partition(" ")
            before = f"{program} {error.option_name} DIR {words} ..."
            message += f"; it goes before the command: {before}"
    if context is None:
        return message
    return f"{message} (see '{context.command_path} --help')"


class StudykitGroup(click.Group):
    """The top-level group: runs the command line, saying Click's errors in our format."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as error:
            fail(usage_line(error), EXIT_USAGE)
        except click.ClickException as error:
            fail(error.format_message(), error.exit_code)
        except click.Abort as error:
            _aborted(error)
        if not standalone_mode:
            return code
        # Click returns an exit code (`--help`: 0) or what the command returned (None).
        raise SystemExit(code if isinstance(code, int) else 0)


def _aborted(error: click.Abort) -> NoReturn:
    """Ctrl-C (130) or end of input at a prompt (1)."""
    if isinstance(error.__cause__, KeyboardInterrupt):
        fail("interrupted", EXIT_INTERRUPTED)
    fail("aborted: no answer was given", EXIT_PROBLEM)

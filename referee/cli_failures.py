"""Click's side of ``referee.failures``: a ``Failure`` as Click's exception, the library called with its errors
turned into them, and a usage error found by the quick path shown by Click (its usage line) without running the
command again."""
from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click

from dictionaries.i18n import _, say
from referee.failures import ERROR, PARAMETER, REFUSED, Failure, failure_of
from referee.render import refusal_lines
from referee.terminal import EXIT_REFUSED, Style, shown, use_color

T = TypeVar("T")


class Refused(click.ClickException):
    """The rules refuse the action (exit status 1); nothing was changed."""

    exit_code = EXIT_REFUSED

    def __init__(self, message: str, codes: tuple[str, ...] = (), mode: str = "command", action: str = "",
                 changed: bool = False) -> None:
        super().__init__(message)
        self.codes, self.mode, self.action = codes, mode, action
        #: The game moved on since the table saw it (another device acted first): the table looks again.
        self.changed = changed

    def format_message(self) -> str:
        return self.message

    def show(self, file: Any = None) -> None:
        stream = file if file is not None else sys.stderr
        for line in refusal_lines(self.message, self.codes, Style(use_color(stream)), self.mode, self.action):
            click.echo(line, file=stream)


def click_exception(failure: Failure, mode: str = "command", action: str = "") -> click.ClickException:
    """``failure`` as Click shows it: a refusal (with how to overrule it, for ``action``, in ``mode``), an error
    line, or a usage error."""
    if failure.kind == REFUSED:
        return Refused(failure.message, failure.codes, mode, action, failure.changed)
    if failure.kind == ERROR:
        return click.ClickException(shown(say(failure.message)))
    if failure.kind == PARAMETER:
        return click.BadParameter(say(failure.message), param_hint=failure.param)
    return click.UsageError(say(failure.message))


def run_store(call: Callable[[], T], *, mode: str = "command", action: str = "") -> T:
    """Call the library, turning its errors into Click's (``failure_of``); a bad word is WORD's."""
    try:
        return call()
    except Exception as exc:
        failure = failure_of(exc, _("WORD"))
        if failure is None:
            raise
        raise click_exception(failure, mode, action) from None


def raise_for(exc: BaseException, param: str | None = None) -> NoReturn:
    """Raise ``exc`` as Click's exception when it is a failure a user meets (else as it is)."""
    failure = failure_of(exc, param)
    if failure is None:
        raise exc
    raise click_exception(failure) from None


def show_usage(cli: click.Group, name: str, args: list[str], failure: Failure) -> int:
    """Show a usage error the quick path found in the command ``name`` of ``cli`` given ``args`` as that Click
    command would (its usage line, then the error), without running it; returns the exit status."""
    from dictionaries.i18n import language

    exc = click_exception(failure)
    # The root's --lang callback chooses the language again when none is given: the one in use is given.
    with cli.make_context("uw-referee", ["--lang", language()], resilient_parsing=True) as root:
        command = cli.get_command(root, name)
        if isinstance(exc, click.UsageError) and command is not None:
            exc.ctx = command.make_context(name, list(args), parent=root, resilient_parsing=True)
    exc.show()
    return exc.exit_code


__all__ = ["Refused", "click_exception", "raise_for", "run_store", "show_usage"]

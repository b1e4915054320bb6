"""The ``uw-referee`` program: the commands a table types most, answered without loading Click.

Click and its imports cost more than the rest of a command (about twice Python's own start). The
most common exact forms (``check WORD...``, ``status``, ``status --json``, ``games``, ``play WORD --roll N``,
each after optional leading ``--db PATH`` and ``--game ID``) are answered here through the same
library and the same renderers as the Click commands, so they print the same bytes
(tests/test_quick.py runs both on the same inputs). Anything else, any option this module does not
know, and every usage error go to the Click CLI, which parses and explains. ``main`` is the
console entry point.
"""
from __future__ import annotations

import sys

from referee.terminal import EXIT_OK, EXIT_REFUSED, Style, disable_color, json_text, shown, use_color, write

#: ``--game`` accepts what SQLite's integer ids can hold (as the Click option does).
MAX_GAME_ID = 2**63 - 1
#: Not handled here: the Click CLI answers (a usage error, a form this module does not know).
HAND_OVER = None


def main() -> None:
    """Entry point: answer quickly when the form is known, else run the Click CLI.

    The language is chosen first (``--lang`` anywhere before ``--``, else ``UW_LANG``, else the
    locale), so that even the Click CLI's help texts, built when its modules are imported, speak it."""
    from dictionaries.i18n import choose_language, set_language

    chosen, args = take_lang(sys.argv[1:])
    set_language(choose_language(chosen))
    try:
        code = run(args) if chosen != "" else HAND_OVER
    except BrokenPipeError:  # output piped into a program that stopped reading (head): say nothing more
        sys.stderr.close()
        sys.exit(EXIT_REFUSED)
    if code is HAND_OVER:
        from dictionaries.i18n import language
        from referee.cli_common import speak

        speak(language())  # before the commands are built: Click's decorators translate some help texts then
        from referee.cli import main as click_main

        if chosen:  # --lang after the subcommand: said first, so the root command does not choose again
            sys.argv[1:] = ["--lang", chosen, *args]

        click_main()
        return
    sys.exit(code)


def take_lang(args: list[str]) -> tuple[str | None, list[str]]:
    """``--lang X`` or ``--lang=X`` found before any ``--``: (X, the other arguments); ("", args) when the value
    is not a language on offer (the Click CLI explains); (None, args) when there is none."""
    from dictionaries.i18n import LANGUAGES

    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--lang" or arg.startswith("--lang="):
            value, end = (args[i + 1], i + 2) if arg == "--lang" and i + 1 < len(args) else (arg[7:], i + 1)
            if value not in LANGUAGES:
                return "", args
            return value, args[:i] + args[end:]
    return None, args


def run(args: list[str]) -> int | None:
    """Answer ``args`` and return the exit status, or None to hand over to the Click CLI."""
    db: str | None = None
    game: int | None = None
    while args and args[0] == "--no-color" or len(args) >= 2 and args[0] in ("--db", "--game"):
        if args[0] == "--no-color":
            disable_color()
            args = args[1:]
            continue
        if args[0] == "--db":
            db = args[1]
        elif args[1].isascii() and args[1].isdigit() and 1 <= int(args[1]) <= MAX_GAME_ID:
            game = int(args[1])
        else:
            return HAND_OVER
        args = args[2:]
    if not args or db == "":
        return HAND_OVER
    command, rest = args[0], args[1:]
    given = args  # the command and what follows it, for Click to show a usage error
    if command == "check" and rest and not any(word.startswith("-") for word in rest):
        return check(rest, given)
    if command == "games" and not rest:
        return games(db, given)
    if command == "stats" and rest in ([], ["--json"]) and game is None:  # the table's history, over every game
        from referee.history.report import quick_stats

        return quick_stats(db, bool(rest))
    if command == "status" and rest in ([], ["--json"]):
        return status(db, game, bool(rest), given)
    if (command == "play" and len(rest) == 3 and not rest[0].startswith("-") and rest[1] == "--roll"
            and rest[2].isascii() and rest[2].isdigit() and 1 <= int(rest[2]) <= 20):
        return play(db, game, rest[0], int(rest[2]), given)
    return HAND_OVER


def _style() -> Style:
    return Style(use_color(sys.stdout))


def _failed(exc: BaseException, args: list[str], action: str = "") -> int:
    """``exc`` said as the Click command says it (``referee.failures``, one mapping for both): a refusal or an
    error line here; a usage error through Click (its usage line), without judging anything again."""
    from referee.failures import ERROR, REFUSED, failure_of

    failure = failure_of(exc, _word_hint())
    if failure is None:
        raise exc
    if failure.kind == REFUSED:
        from referee.render import refusal_lines

        write(refusal_lines(failure.message, failure.codes, Style(use_color(sys.stderr)), "command", action),
              sys.stderr)
    elif failure.kind == ERROR:
        from dictionaries.i18n import _, say

        write([_("Error: {message}").format(message=shown(say(failure.message)))], sys.stderr)
    else:
        from dictionaries.i18n import language
        from referee.cli_common import speak

        speak(language())  # before the commands are built, as for a hand-over (``main``)
        from referee.cli import cli
        from referee.cli_failures import show_usage

        return show_usage(cli, args[0], args[1:], failure)
    return failure.exit_code


def _word_hint() -> str:
    from dictionaries.i18n import _

    return _("WORD")


def check(words: list[str], args: list[str]) -> int:
    """``uw-referee check WORD...`` at the default level with the standard deck."""
    from dictionaries import DEFAULT_LEVEL
    from dictionaries.deck import STANDARD
    from dictionaries.dictionary import open_for_command
    from dictionaries.verdict import judge
    from referee.render import check_lines

    try:
        dictionary = open_for_command()
        verdicts = [judge(dictionary, word, DEFAULT_LEVEL, STANDARD) for word in words]
    except Exception as exc:
        return _failed(exc, args)
    write(check_lines(verdicts, _style()))
    return EXIT_OK if all(v.legal for v in verdicts) else EXIT_REFUSED


def status(db: str | None, game_id: int | None, as_json: bool, args: list[str]) -> int:
    """``uw-referee status [--json]``."""
    from referee.render import status_lines
    from referee.store_pg import open_store

    try:
        gid, view, damage = open_store(db, read_only=True).checked_view(game_id)
    except Exception as exc:
        return _failed(exc, args)
    if as_json:
        write([json_text({"game": gid, "version": view.get("version"), **view["state"]})])
    else:
        write(status_lines(gid, view, _style()))
    if damage is not None:
        from referee.store import Damaged

        return _failed(Damaged(damage), args)
    return EXIT_OK


def games(db: str | None, args: list[str]) -> int:
    """``uw-referee games``."""
    from referee.render import games_lines
    from referee.store_pg import open_store

    try:
        store = open_store(db, read_only=True)
        write(games_lines(store.games(), store.path))
    except Exception as exc:
        return _failed(exc, args)
    return EXIT_OK


def play(db: str | None, game_id: int | None, word: str, roll: int, args: list[str]) -> int:
    """``uw-referee play WORD --roll N``."""
    from dictionaries.dictionary import open_for_command
    from referee.actions import Referee
    from referee.render import play_verdict_lines, result_lines
    from referee.store_pg import open_store

    try:
        referee = Referee(open_store(db), open_for_command)
        prepared = referee.prepare(game_id, word)
        referee.check_roll_given(prepared.setup, roll)
    except Exception as exc:
        return _failed(exc, args)
    write(play_verdict_lines(prepared.verdict))
    try:
        result = referee.play(prepared, roll=roll)
    except Exception as exc:
        return _failed(exc, args, "play")
    write(result_lines(result, _style()))
    return EXIT_OK

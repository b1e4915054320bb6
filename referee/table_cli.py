"""``uw-referee table``: the game run turn by turn at the table. The referee asks, the table answers at a prompt
(a word, a roll, or one of the table's commands in its own language); every answer goes through the library
(``referee.actions``) with what the table saw, so another device's action meanwhile is refused and said."""
from __future__ import annotations

import sys

import click

from dictionaries.i18n import _, say
from dictionaries.rules import DIE
from referee.actions import Referee
from referee.cli_common import CONTEXT, Obj
from referee.cli_failures import Refused, run_store
from referee.engine import Game, Phase
from referee.game_cli import game_options, say_result, style
from referee.paths import suggested, suggested_quoted
from referee.render import (
    after_the_end_lines,
    amend_lines,
    correction_lines,
    describe_game,
    play_verdict_lines,
    status_lines,
)
from referee.terminal import shown, write


def table_help() -> str:
    """What the table may type at any prompt."""
    return _("Type a word to play it, 'discard LETTERS', 'status', 'undo', 'redo', 'amend N' (the latest roll was "
             "N), 'leave NAME', 'help' or 'quit'. A command that is also a word (UNDO, STATUS...) asks which one you "
             "mean; with a slash ('/undo') it is always the command. Add '!' after a word or a discard's letters to "
             "overrule the dictionary or the card count (e.g. 'cthulhu!'); an overrule is recorded only when one was "
             "needed.")


def table_command(typed: str) -> str:
    """The command meant by a word typed at a prompt (its English name), or the word itself.

    The English word always works; its translation (the catalog's entry) works too, so a Spanish
    table types 'descartar'."""
    word = typed.lower()
    names = {"discard": _("discard"), "status": _("status"), "undo": _("undo"), "redo": _("redo"),
             "amend": _("amend"), "leave": _("leave"), "help": _("help"), "quit": _("quit"), "pass": _("pass"),
             "done": _("done"), "roll": _("roll")}
    if word in ("exit", "q"):
        return "quit"
    for english, translated in names.items():
        if word in (english, translated.lower()):
            return english
    return word


#: The commands that may be typed at the word prompt; each is an English word too (RULES.txt 6, every
#: word is playable): typed alone, one that is a legal word asks which is meant.
WORD_PROMPT_COMMANDS = ("discard", "status", "undo", "redo", "amend", "leave", "help", "quit")


class QuitTable(Exception):
    """The table typed 'quit': the loop stops, the game stays saved."""


def command_doing(command: str) -> str:
    """What ``command`` does, to follow "play the word, or ...?"."""
    return {"discard": _("discard the hand"), "status": _("show the scores"), "undo": _("undo the last action"),
            "redo": _("redo the last undone action"), "amend": _("amend a roll"), "leave": _("have a player leave"),
            "help": _("show the help"), "quit": _("stop here (the game is saved)")}[command]


def word_or_command(word: str, command: str) -> bool | None:
    """Ask whether ``word``, typed alone at the word prompt, is the word or the command: True for the word,
    False for the command, None at the end of input."""
    question = _("{word}: play the word, or {doing}? Type 'w' for the word or 'c' for the command").format(
        word=word.upper(), doing=command_doing(command))
    words = {"w", "word", _("w"), _("word")}
    commands = {"c", "command", _("c"), _("command")}
    while True:
        try:
            answer = click.prompt(question, prompt_suffix=": ").strip().lower()
        except click.Abort:
            click.echo()
            return None
        if answer in words:
            return True
        if answer in commands:
            return False


def line_editing() -> None:
    """Line editing and history at the prompts, as in a shell (arrow keys move, up recalls an earlier answer):
    Python's ``input()``, which Click's prompt calls, uses GNU readline (or libedit) once it is imported. Only on
    a terminal: piped answers stay as they are typed."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return
    try:
        import readline
    except ImportError:  # a Python without it (Windows): the console edits the line itself
        return
    if "libedit" not in (readline.__doc__ or ""):
        # A pasted word arrives as typed, and the prompt's line carries no bracketed-paste codes.
        readline.parse_and_bind("set enable-bracketed-paste off")


def not_understood(exc: click.UsageError) -> str:
    """An answer the table cannot use, said in the table's words: what was wrong, never Click's developer
    wording (a bad word is not "Invalid value for WORD")."""
    problem = exc.message.strip()
    return _("Not understood: {problem}").format(problem=problem[:1].upper() + problem[1:] if problem else problem)


def is_number(text: str) -> bool:
    """ASCII digits 0-9 only (``int()`` also reads other scripts' digits, such as '٣')."""
    return text.isascii() and text.isdigit()


@click.command(context_settings=CONTEXT, help=_(
    "Run the current game turn by turn: the referee asks, the table answers.\n"
    "\n"
    "It announces each turn, asks for the word or a discard, asks for the roll, and says what\n"
    "happened, the scores and what to do. At any prompt: status, undo, redo, amend N, leave NAME,\n"
    "help, quit. End of input or 'quit' leaves the game saved. A command that is also a word (UNDO,\n"
    "STATUS...) typed alone at the word prompt asks which one is meant; '/undo' is always the command.\n"
    "Every answer is for the player the prompt names: if another device changed the game meanwhile, the\n"
    "answer is refused with what happened, and the table is asked again.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee new Cindi Paul Sue --first Sue && uw-referee table"))
@game_options
@click.pass_obj
def table(obj: Obj) -> None:
    gid, game = run_store(lambda: obj.store.load(obj.game))
    if game.state.is_over():
        click.echo(style().bold(say(game.state.waiting_for())))
    else:
        click.echo(style().bold(describe_game(gid, game)))
        click.echo(table_help())
        click.echo(style().bold(say(game.state.waiting_for())))
    line_editing()
    told_the_end = False
    while True:
        state = game.state
        name = state.current.name if state.current else ""
        if not state.is_over():
            told_the_end = False
        elif not told_the_end:  # what the table can still do: correct a mistake, or start the next game
            write(after_the_end_lines(gid, game.setup, obj.db))
            told_the_end = True
        try:
            if state.is_over():
                answer = click.prompt(_("The game is over: 'undo', 'amend N', 'status' or 'quit'"),
                                      prompt_suffix=": ").strip()
            elif state.phase is Phase.SANITY and game.setup.dice == "physical":
                answer = click.prompt(_("{player}, roll the d20").format(player=name), prompt_suffix=": ").strip()
            elif state.phase is Phase.SANITY:
                answer = "roll"
            elif state.phase is Phase.PSYCHOTHERAPY:
                answer = click.prompt(_("{player}, your Psychotherapy roll (or 'pass')").format(player=name),
                                      prompt_suffix=": ").strip()
            elif state.phase is Phase.SPELL_BINDING:
                answer = click.prompt(_("Name a word as 'NAME WORD', or 'done'"), prompt_suffix=": ").strip()
            else:
                answer = click.prompt(_("{player}, your word (or 'discard LETTERS')").format(player=name),
                                      prompt_suffix=": ").strip()
        except click.Abort:
            click.echo()
            break
        try:
            game = table_step(obj, gid, game, answer)
        except QuitTable:
            break
        except Refused as exc:
            exc.show()
            if exc.changed:  # another device acted first: look again, and ask the player whose turn it now is
                game = run_store(lambda: obj.store.load(gid), mode="table")[1]
                click.echo(style().bold(say(game.state.waiting_for())))
        except click.UsageError as exc:  # in the table's words, never Click's ("Invalid value for WORD: ...")
            click.echo(not_understood(exc), err=True)
        except click.ClickException as exc:
            exc.show()
        except click.exceptions.Exit:
            pass
    if not game.state.is_over():
        click.echo(_("The game is saved. Continue with: {command}").format(
            command=shown(suggested("table", obj.db, gid))))


def table_step(obj: Obj, gid: int, game: Game, answer: str) -> Game:
    """One answer at the table: do it through the library, print what happened, return the game as it now is.

    Every write carries what the table saw (``Seen``): if another device changed the game meanwhile, it is
    refused with what happened, and the table looks again."""
    from referee.engine import Seen

    state = game.state
    referee: Referee = obj.referee
    seen = Seen.of(game)
    words = answer.split()
    forced = bool(words) and words[0].startswith("/") and len(words[0]) > 1
    first = words[0][1:] if forced else (words[0] if words else "")
    command = table_command(first) if words else ""
    table = "table"
    word_phase = state.phase in (Phase.ACTION, Phase.LAST_WORDS)
    if forced and command not in (*WORD_PROMPT_COMMANDS, "pass", "done", "roll"):
        raise click.UsageError(_("{typed!r} is not a command; type 'help'").format(typed=words[0][:40]))
    if word_phase and not forced and len(words) == 1 and command in WORD_PROMPT_COMMANDS:
        prepared = run_store(lambda: referee.prepare(gid, first), mode=table)
        if prepared.verdict.legal:  # a word too: the table says which it means
            choice = word_or_command(first, command)
            if choice is None:
                return game
            if choice:
                command = ""
    if command == "quit" and (forced or len(words) == 1):
        raise QuitTable
    if command in ("help", "?") or not words:
        click.echo(table_help())
        return game
    if command == "status":
        game = run_store(lambda: obj.store.load(gid), mode=table)[1]  # the game as it is now
        write(status_lines(gid, game.state.view(), style()))
        return game
    if command in ("undo", "redo"):
        count = 1
        if len(words) == 2 and is_number(words[1]) and int(words[1]) >= 1:
            count = int(words[1])
        elif len(words) != 1:
            raise click.UsageError(_("type '{command}' or '{command} N' (N actions)").format(command=first))
        call = referee.undo if command == "undo" else referee.redo
        result = run_store(lambda: call(gid, count, seen=seen), mode=table)
        write(correction_lines("Undid" if command == "undo" else "Redid",
                               list(result.removed if command == "undo" else result.restored), result, style()))
        return result.game
    if command == "amend":
        if len(words) not in (2, 3) or not all(is_number(w) for w in words[1:]):
            raise click.UsageError(_("type 'amend N' (the latest roll was N) or 'amend ACTION N' (the roll of "
                                     "ACTION, numbered as in {log})").format(
                log=shown(suggested_quoted("log", obj.db, gid))))
        at = int(words[1]) if len(words) == 3 else None
        right = int(words[-1])
        if not 1 <= right <= DIE:
            raise click.UsageError(_("{roll} is not a roll: type a number from 1 to {most}").format(roll=right,
                                                                                                      most=DIE))
        amended = run_store(lambda: referee.amend(gid, right, at, seen=seen), mode=table)
        write(amend_lines(amended, style()))
        return amended.game
    if command == "leave":
        if len(words) < 2:
            raise click.UsageError(_("type 'leave NAME'"))
        who = " ".join(words[1:])  # a whole name, spaces and all
        result = run_store(lambda: referee.leave(gid, who, seen=seen), mode=table)
    elif state.phase in (Phase.SANITY, Phase.PSYCHOTHERAPY):
        if state.phase is Phase.PSYCHOTHERAPY and (command == "pass" or command in ("skip", "no")):
            result = run_store(lambda: referee.roll(gid, skip=True, seen=seen), mode=table)
        else:
            value: int | None = None
            if game.setup.dice == "physical":
                if len(words) != 1 or not is_number(first) or not 1 <= int(first) <= DIE:
                    raise click.UsageError(_("{answer!r} is not a roll: type a number from 1 to {most}").format(
                        answer=answer[:40], most=DIE)) from None
                value = int(first)
            result = run_store(lambda: referee.roll(gid, value, seen=seen), mode=table)
    elif state.phase is Phase.SPELL_BINDING:
        if command == "done" and len(words) == 1:
            result = run_store(lambda: referee.bind_done(gid, seen=seen), mode=table)
        else:
            if len(words) < 2:
                raise click.UsageError(_("name a word as 'NAME WORD', or type 'done'"))
            by, word = " ".join(words[:-1]), words[-1]  # the name may have spaces: the word is the last
            allow = word.endswith("!")
            prepared = run_store(lambda: referee.prepare(gid, word.rstrip("!")), mode=table)
            write(play_verdict_lines(prepared.verdict))
            result = run_store(lambda: referee.bind(prepared, by, allow=allow, seen=seen), mode=table,
                               action="bind")
    elif command == "discard":
        letters = words[1] if len(words) > 1 else None
        allow = bool(letters and letters.endswith("!"))
        letters = letters.rstrip("!") if letters else None
        result = run_store(lambda: referee.discard(gid, letters, allow=allow, seen=seen), mode=table,
                           action="discard")
    else:
        if forced:  # a slash is never a word
            raise click.UsageError(_("{typed!r} is not a command; type 'help'").format(typed=words[0][:40]))
        if len(words) != 1:
            raise click.UsageError(_("{answer!r}: type one word, or 'discard LETTERS'").format(
                answer=answer[:40]))
        if is_number(first):
            raise click.UsageError(_("{answer} looks like a roll, but {player} has not played a word yet: type the "
                                     "word first, then the roll").format(answer=first, player=state.current.name
                                                                         if state.current else ""))
        allow = first.endswith("!")
        prepared = run_store(lambda: referee.prepare(gid, first.rstrip("!")), mode=table)
        if not prepared.verdict.legal:
            for reason in prepared.verdict.reasons:
                click.echo(_("The dictionary says: {reason}.").format(reason=say(reason.message)))
        # The roll is asked for at the next prompt: the play is written now, and no lock is held meanwhile.
        result = run_store(lambda: referee.play(prepared, allow=allow, seen=seen), mode=table, action="play")
    say_result(result, table)
    return result.game


__all__ = ["table", "table_step", "table_help", "table_command", "QuitTable"]

"""The game commands of ``uw-referee``: Click code only. What a table does is ``referee.actions``;
its errors become Click errors with the right exit status (1 refused by the rules, 2 usage)."""
from __future__ import annotations

import sys
from typing import Any, Callable

import click

from dictionaries import DEFAULT_LEVEL, LEVELS
from dictionaries.errors import WordError
from dictionaries.rules import DIE, HAND_SIZE, PAWNS
from referee.actions import RequestError, Result, history_notes
from referee.cli_common import CONTEXT, Obj, emit_json, get_deck
from referee.engine import (
    Game,
    Options,
    Phase,
    RollOff,
    RulesError,
    Setup,
    check_roll_off,
)
from referee.render import (
    describe_game,
    games_lines,
    play_verdict_lines,
    refused_line,
    result_lines,
    say_lines,
    status_lines,
)
from referee.terminal import EXIT_REFUSED, Style, use_color, write

RULINGS = """\b
Rulings (RULES.md): the card table scores CHAMP 15, TOP 5, RUM 7 (the rulebook's examples misprint them);
a word needs 3 to 7 letters and no more copies of a letter than the deck holds; a word that would reach
the target scores only on a passed sanity check, and is used up either way; a player who is out
discards the rest of the hand and draws nothing; Spell Binding ties go to the word named first;
Psychotherapy needs a roll strictly higher than the hand's value (a 20 is not automatic)."""


class Refused(click.ClickException):
    """The rules refuse the action (exit status 1); nothing was changed."""

    exit_code = EXIT_REFUSED

    def format_message(self) -> str:
        return self.message

    def show(self, file: Any = None) -> None:
        click.echo(refused_line(self.message, style(sys.stderr)), err=True)


def run_store(obj: Obj, call: Callable[[], Any]) -> Any:
    """Call the library, turning its errors into Click errors: a refusal or a store error exits 1 with
    one clear line, a request that does not fit the game is a usage error (exit 2)."""
    from referee.store import StoreError

    try:
        return call()
    except RulesError as exc:
        raise Refused(str(exc)) from None
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    except RequestError as exc:
        raise click.UsageError(str(exc)) from None
    except WordError as exc:
        raise click.BadParameter(str(exc), param_hint="WORD") from None


def style(stream: Any = None) -> Style:
    """The styling of this run: colour only on a terminal without NO_COLOR."""
    return Style(use_color(stream if stream is not None else sys.stdout))


def say(notes: list[str]) -> None:
    """Print what happened and what the table does next; the last note (what the game waits for) stands out."""
    write(say_lines(notes, style()))


def say_result(result: Result) -> None:
    """Print what an action did, then what the game waits for (or, at the end, who won) in bold."""
    write(result_lines(result, style()))


# -- new ------------------------------------------------------------------------------------------

@click.command(context_settings=CONTEXT)
@click.argument("names", nargs=-1, required=True)
@click.option("--first", metavar="NAME", help="The table already rolled off: NAME goes first.")
@click.option("--oath", is_flag=True, help="The Unspellable Oath: with one pawn left, any letters may be played.")
@click.option("--spell-binding", is_flag=True, help="Spell Binding: the others may force a word from a discard.")
@click.option("--psychotherapy", is_flag=True, help="Psychotherapy: after a discard, roll above the hand's value for a pawn.")
@click.option("--last-words", is_flag=True, help="Last Words: after someone reaches the target, the others get one more turn.")
@click.option("--target", type=click.IntRange(min=1), default=100, show_default=True, help="Points to win (a house rule).")
@click.option("--level", type=click.Choice([str(n) for n in LEVELS]), default=str(DEFAULT_LEVEL), show_default=True,
              help="SCOWL size counted as common.")
@click.option("--deck", "deck_spec", default="standard", show_default=True, metavar="standard|double|FILE",
              help="The deck: 'double' (192 cards) for 7-8 players, or a JSON file of letter counts.")
@click.option("--dice", type=click.Choice(["physical", "virtual"]), default="physical", show_default=True,
              help="Roll a real d20 and type the rolls, or let the referee roll.")
@click.option("--seed", type=int, default=None, help="Seed for virtual dice, so a game replays identically.")
@click.pass_obj
def new(obj: Obj, names: tuple[str, ...], first: str | None, oath: bool, spell_binding: bool, psychotherapy: bool,
        last_words: bool, target: int, level: str, deck_spec: str, dice: str, seed: int | None) -> None:
    """Start a game for the players NAMES, in seat order (clockwise).

    With virtual dice the referee rolls the roll-off and shows every roll; with physical dice it asks
    for the rolls (the tied highest re-roll), unless --first says who won the table's roll-off.

    \b
    Example:
        uw-referee new Cindi Paul Sue --first Cindi --last-words
    """
    import random

    from referee.engine import SetupError

    if seed is not None and dice != "virtual":
        raise click.UsageError("--seed is for virtual dice: add --dice virtual")
    if first is not None and dice == "virtual":
        raise click.UsageError("--first is for physical dice: with virtual dice the referee rolls off")
    deck = get_deck(deck_spec)
    try:
        setup = Setup(players=tuple(names), target=target, level=int(level), deck=deck, dice=dice,
                      seed=seed if seed is not None else (random.SystemRandom().randrange(2**31) if dice == "virtual" else 0),
                      options=Options(oath=oath, spell_binding=spell_binding, psychotherapy=psychotherapy,
                                      last_words=last_words))
    except SetupError as exc:
        raise click.UsageError(str(exc)) from None
    roll_off: RollOff | None = None
    if first is not None:
        try:
            first = Game(setup).state.player(first).name
        except RulesError as exc:
            raise click.BadParameter(str(exc), param_hint="--first") from None
        roll_off = RollOff(first=first)
    elif dice != "virtual":
        try:
            roll_off = RollOff(ask_roll_off(setup.players))
        except click.Abort:
            raise click.UsageError("the roll-off needs every player's roll (or --first NAME if the table "
                                   "already rolled, or --dice virtual); no game was created") from None
    result = run_store(obj, lambda: obj.referee.start(setup, roll_off))
    click.echo(style().bold(describe_game(result.game_id, result.game)))
    click.echo(f"Deal {HAND_SIZE} cards to each player and give each {PAWNS} pawns; "
               f"{result.state.draw_pile} cards stay in the draw pile.")
    say_result(result)


def ask_roll_off(players: tuple[str, ...]) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Ask the table for each roll of the roll-off; only the tied highest roll again."""
    rounds: list[tuple[tuple[str, int], ...]] = []
    contenders = list(players)
    while True:
        if rounds:
            click.echo(f"Tied on the highest roll: {', '.join(contenders)} roll again.")
        rolls = tuple((name, click.prompt(f"Roll-off: {name} rolls", type=click.IntRange(1, DIE))) for name in contenders)
        rounds.append(rolls)
        top = max(r for _, r in rolls)
        contenders = [n for n, r in rolls if r == top]
        if len(contenders) == 1:
            check_roll_off(tuple(rounds), players)
            return tuple(rounds)


# -- turns ----------------------------------------------------------------------------------------

def current_name(game: Game) -> str:
    player = game.state.current
    if player is None or game.state.is_over():
        raise Refused(game.state.waiting_for() if game.state.is_over() else "the game has not started")
    return player.name


def prompt_roll(label: str) -> int | None:
    """Ask for a physical roll; None when the table has no answer (end of input)."""
    try:
        return click.prompt(label, type=click.IntRange(1, DIE))
    except click.Abort:
        click.echo()
        return None


@click.command(context_settings=CONTEXT)
@click.argument("word")
@click.option("--roll", type=click.IntRange(1, DIE), default=None, help="The sanity roll (physical dice).")
@click.option("--allow", is_flag=True, help="The table overrules the dictionary for this play (recorded).")
@click.pass_obj
def play(obj: Obj, word: str, roll: int | None, allow: bool) -> None:
    """Play WORD for the player whose turn it is: judge, score, record, then the sanity roll.

    With physical dice the roll comes from --roll or a prompt; with virtual dice the referee rolls.
    Reuse, length and deck limits apply even with --allow.

    \b
    Example:
        uw-referee play taps --roll 12
    """
    referee = obj.referee
    prepared = run_store(obj, lambda: referee.prepare(obj.game, word, roll=roll))
    write(play_verdict_lines(prepared.verdict, allow))
    if prepared.setup.dice == "physical" and roll is None:
        # Check the play before asking for the roll, so a refused word never waits at a prompt.
        check = run_store(obj, lambda: referee.check_play(prepared, allow=allow))
        roll = prompt_roll(f"{check.player}'s sanity roll for {prepared.verdict.word}")
    result = run_store(obj, lambda: referee.play(prepared, roll=roll, allow=allow))
    say_result(result)
    if result.state.phase is Phase.SANITY:
        click.echo("Enter it with: uw-referee roll N")


@click.command(context_settings=CONTEXT)
@click.argument("value", required=False, type=click.IntRange(1, DIE))
@click.option("--skip", is_flag=True, help="Psychotherapy only: the discarder does not roll.")
@click.pass_obj
def roll(obj: Obj, value: int | None, skip: bool) -> None:
    """Enter the roll the game is waiting for: a sanity check, or Psychotherapy (VALUE 1-20).

    With virtual dice leave out VALUE: the referee rolls.

    \b
    Example:
        uw-referee roll 17
    """
    if skip and value is not None:
        raise click.UsageError("give a roll or --skip, not both")
    say_result(run_store(obj, lambda: obj.referee.roll(obj.game, value, skip=skip)))


@click.command(context_settings=CONTEXT)
@click.argument("letters", required=False)
@click.pass_obj
def discard(obj: Obj, letters: str | None) -> None:
    """Discard the whole hand (no score, a new hand of 7). Give the LETTERS for Spell Binding and Psychotherapy.

    \b
    Example:
        uw-referee discard bcdfghk
    """
    say_result(run_store(obj, lambda: obj.referee.discard(obj.game, letters)))


@click.command(context_settings=CONTEXT)
@click.argument("word", required=False)
@click.option("--by", "by", metavar="NAME", help="Who names the word.")
@click.option("--done", is_flag=True, help="No more words will be named: settle Spell Binding.")
@click.pass_obj
def bind(obj: Obj, word: str | None, by: str | None, done: bool) -> None:
    """Spell Binding: another player names a WORD from the discarded letters, or --done closes the naming.

    The discarder must then play the highest-scoring legal word named (a tie goes to the word named
    first), with the sanity check as usual.

    \b
    Example:
        uw-referee bind column --by Paul && uw-referee bind --done
    """
    if done:
        if word or by:
            raise click.UsageError("--done takes no word and no --by")
        say_result(run_store(obj, lambda: obj.referee.bind_done(obj.game)))
        return
    if not word or not by:
        raise click.UsageError("name a word with: uw-referee bind WORD --by NAME (or close with --done)")
    referee = obj.referee
    prepared = run_store(obj, lambda: referee.prepare(obj.game, word))
    say_result(run_store(obj, lambda: referee.bind(prepared, by)))


# -- the record -----------------------------------------------------------------------------------

@click.command(context_settings=CONTEXT)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def status(obj: Obj, as_json: bool) -> None:
    """Scores, pawns, whose turn it is, the piles, and what the game waits for.

    \b
    Example:
        uw-referee status --json
    """
    gid, view = run_store(obj, lambda: obj.reader().view(obj.game))
    if as_json:
        emit_json({"game": gid, **view["state"]})
        return
    write(status_lines(gid, view, style()))


@click.command(context_settings=CONTEXT)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def log(obj: Obj, as_json: bool) -> None:
    """Every recorded event of the game with its time, in order.

    \b
    Example:
        uw-referee log
    """
    gid, game, history = run_store(obj, lambda: obj.reader().history(obj.game))
    notes = history_notes([event for _, event in history])
    notes[0] = [describe_game(gid, game)]
    rows = [{"seq": seq, "at": at, "event": event.to_dict(), "notes": notes[seq]}
            for seq, (at, event) in enumerate(history)]
    if as_json:
        emit_json({"game": gid, "events": rows})
        return
    for row in rows:
        click.echo(f"{row['seq']:>4}  {row['at'][:19].replace('T', ' ')}  " + " ".join(row["notes"]))


@click.command(context_settings=CONTEXT)
@click.argument("actions", type=click.IntRange(min=1), default=1)
@click.pass_obj
def undo(obj: Obj, actions: int) -> None:
    """Undo the last ACTIONS actions (default 1). A play with its roll is one action.

    \b
    Example:
        uw-referee undo 2
    """
    result = run_store(obj, lambda: obj.referee.undo(obj.game, actions))
    removed = len(result.removed)
    click.echo(f"Undone: {actions} action{'s' if actions != 1 else ''} ({removed} event{'s' if removed != 1 else ''}).")
    click.echo(style().bold(result.waiting.text))


@click.command(context_settings=CONTEXT)
@click.pass_obj
def games(obj: Obj) -> None:
    """List the games in the database, most recently active first.

    \b
    Example:
        uw-referee games
    """
    reader = obj.reader()
    write(games_lines(run_store(obj, reader.games), reader.path))


@click.command(context_settings=CONTEXT)
@click.pass_obj
def export(obj: Obj) -> None:
    """The whole game as JSON: set-up, every event with its time, and the state now.

    \b
    Example:
        uw-referee export > game.json
    """
    gid, game, history = run_store(obj, lambda: obj.reader().history(obj.game))
    emit_json({"game": gid, "setup": game.setup.to_dict(),
               "events": [{"seq": i, "at": at, **e.to_dict()} for i, (at, e) in enumerate(history)],
               "state": {"game": gid, **game.state.to_dict()}})


@click.command(context_settings=CONTEXT)
@click.pass_obj
def rules(obj: Obj) -> None:
    """The rulings this referee applies where the rulebooks leave a gap.

    \b
    Example:
        uw-referee rules
    """
    click.echo(RULINGS.replace("\b\n", ""))


# -- the table loop -------------------------------------------------------------------------------

TABLE_HELP = ("Type a word to play it, 'discard LETTERS', 'undo', 'status', 'help' or 'quit'. "
              "Add '!' after a word to overrule the dictionary (e.g. 'cthulhu!').")


@click.command(context_settings=CONTEXT)
@click.pass_obj
def table(obj: Obj) -> None:
    """Run the current game turn by turn: the referee asks, the table answers.

    It announces each turn, asks for the word or a discard, asks for the roll, and says what
    happened and what to do. End of input or 'quit' leaves the game saved.

    \b
    Example:
        uw-referee new Cindi Paul Sue --first Sue && uw-referee table
    """
    gid, game = run_store(obj, lambda: obj.store.load(obj.game))
    click.echo(style().bold(describe_game(gid, game)))
    click.echo(TABLE_HELP)
    click.echo(style().bold(game.state.waiting_for()))
    while not game.state.is_over():
        state = game.state
        name = state.current.name if state.current else ""
        try:
            if state.phase is Phase.SANITY and game.setup.dice == "physical":
                answer = click.prompt(f"{name}, roll the d20", prompt_suffix=": ").strip()
            elif state.phase is Phase.SANITY:
                answer = "roll"
            elif state.phase is Phase.PSYCHOTHERAPY:
                answer = click.prompt(f"{name}, your Psychotherapy roll (or 'pass')", prompt_suffix=": ").strip()
            elif state.phase is Phase.SPELL_BINDING:
                answer = click.prompt("Name a word as 'NAME WORD', or 'done'", prompt_suffix=": ").strip()
            else:
                answer = click.prompt(f"{name}, your word (or 'discard LETTERS')", prompt_suffix=": ").strip()
        except click.Abort:
            click.echo()
            break
        if answer.lower() in ("quit", "exit", "q"):
            break
        try:
            game = table_step(obj, gid, game, answer)
        except click.ClickException as exc:
            exc.show()
        except click.exceptions.Exit:
            pass
    if game.state.is_over():
        click.echo(style().bold(game.state.waiting_for()))
    else:
        click.echo(f"The game is saved. Continue with 'uw-referee --game {gid} table'.")


def table_step(obj: Obj, gid: int, game: Game, answer: str) -> Game:
    """One answer at the table: do it through the library, print what happened, return the game as it now is."""
    state = game.state
    referee = obj.referee
    words = answer.split()
    command = words[0].lower() if words else ""
    if command in ("help", "?", ""):
        click.echo(TABLE_HELP)
        return game
    if command == "status":
        for p in state.players:
            click.echo(f"  {p.name:<12} {p.score:>4} points  {p.pawns} pawns{' (out)' if p.out else ''}")
        click.echo(f"  Draw pile {state.draw_pile}, discard pile {state.discard_pile}.")
        return game
    if command == "undo":
        result = run_store(obj, lambda: referee.undo(gid, 1))
        click.echo("Undone.")
        click.echo(style().bold(result.waiting.text))
        return result.game
    if state.phase in (Phase.SANITY, Phase.PSYCHOTHERAPY):
        if state.phase is Phase.PSYCHOTHERAPY and command in ("pass", "skip", "no"):
            result = run_store(obj, lambda: referee.roll(gid, skip=True))
        else:
            value: int | None = None
            if game.setup.dice == "physical":
                try:
                    value = int(command)
                except ValueError:
                    raise click.UsageError(f"{answer!r} is not a roll: type a number from 1 to {DIE}") from None
            result = run_store(obj, lambda: referee.roll(gid, value))
    elif state.phase is Phase.SPELL_BINDING:
        if command == "done":
            result = run_store(obj, lambda: referee.bind_done(gid))
        else:
            if len(words) != 2:
                raise click.UsageError("name a word as 'NAME WORD', or type 'done'")
            prepared = run_store(obj, lambda: referee.prepare(gid, words[1]))
            result = run_store(obj, lambda: referee.bind(prepared, words[0]))
    elif command == "discard":
        letters = words[1] if len(words) > 1 else None
        result = run_store(obj, lambda: referee.discard(gid, letters))
    else:
        if len(words) != 1:
            raise click.UsageError(f"{answer!r}: type one word, or 'discard LETTERS'")
        allow = words[0].endswith("!")
        prepared = run_store(obj, lambda: referee.prepare(gid, words[0].rstrip("!")))
        if not prepared.verdict.legal:
            for reason in prepared.verdict.reasons:
                click.echo(f"The dictionary says: {reason.message}.")
        # The roll is asked for at the next prompt: the play is written now, and no lock is held meanwhile.
        result = run_store(obj, lambda: referee.play(prepared, allow=allow))
    say_result(result)
    return result.game


__all__ = ["Refused", "RULINGS", "new", "play", "roll", "discard", "bind", "status", "log", "undo", "games",
           "export", "table"]

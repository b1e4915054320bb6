"""The game commands of ``uw-referee``: Click code only. What a table does is ``referee.actions``;
its errors become Click errors with the right exit status (1 refused by the rules, 2 usage).

A little over 500 lines: fifteen commands, each with its options and its help with an example; what they do is
the library's (``referee.actions``)."""
from __future__ import annotations

import os
import sys
from typing import Any

import click

from dictionaries import DEFAULT_LEVEL, LEVELS
from dictionaries.i18n import DEFAULT_LANGUAGE, _, language, message_of, ngettext, say
from dictionaries.rules import HAND_SIZE, PAWNS
from referee.actions import Result, action_numbers, history_notes
from referee.cli_common import CONTEXT, Number, Obj, Roll, emit_json, get_deck, lang_option
from referee.cli_failures import Refused, raise_for, run_store
from referee.engine import (
    Correction,
    RollOff,
    RulesError,
    check_roll_off,
)
from referee.history.options import html_option
from referee.paths import default_db_path
from referee.render import (
    amend_lines,
    correction_lines,
    correction_words,
    describe_game,
    games_lines,
    play_verdict_lines,
    result_lines,
    status_lines,
    verify_lines,
)
from referee.terminal import EXIT_REFUSED, Style, shown, use_color, write

#: Every rule and ruling, in the referee's words: shipped in the package (pyproject package-data), one
#: file per language (RULES.txt in English, RULES.es.txt in Spanish).
RULES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "RULES.txt")


def rules_file(lang: str) -> str:
    """The rules in ``lang`` (English when there is no translation)."""
    translated = os.path.join(os.path.dirname(RULES_FILE), f"RULES.{lang}.txt")
    return translated if lang != "en" and os.path.isfile(translated) else RULES_FILE


def style(stream: Any = None) -> Style:
    """The styling of this run: colour only on a terminal without NO_COLOR."""
    return Style(use_color(stream if stream is not None else sys.stdout))


def say_result(result: Result, mode: str = "command") -> None:
    """Print what an action did, the scoreboard, then what the game waits for (or, at the end, who won) in bold."""
    obj = click.get_current_context().find_object(Obj)
    write(result_lines(result, style(), mode, obj.db if obj else None))


def db_option(f: Any) -> Any:
    """``--db`` and ``--lang`` after the subcommand too, named in its help."""
    def set_db(ctx: click.Context, _: Any, value: str | None) -> None:
        if value is not None:
            ctx.ensure_object(Obj).db = value

    return click.option("--db", metavar=_("PATH"), expose_value=False, callback=set_db, is_eager=True,
                        help=_("The games database (default: {path}).").format(path=default_db_path()))(lang_option(f))


def game_options(f: Any) -> Any:
    """``--db`` and ``--game`` after the subcommand too (``uw-referee status --game 2``), named in its help."""
    def set_game(ctx: click.Context, _: Any, value: int | None) -> None:
        if value is not None:
            ctx.ensure_object(Obj).game = value

    f = click.option("--game", type=Number(min=1, max=2**63 - 1), metavar=_("ID"), expose_value=False,
                     callback=set_game, is_eager=True,
                     help=_("Act on this game instead of the most recently active one."))(f)
    return db_option(f)


def as_option(f: Any) -> Any:
    """``--as NAME``: the action is NAME's; refused when it is not NAME's turn (RULES.txt 6, whose action)."""
    return click.option("--as", "as_name", metavar=_("NAME"),
                        help=_("The player this action is for: refused when it is not NAME's turn."))(f)


def seen_as(name: str | None) -> Any:
    """What ``--as NAME`` says the table saw: NAME's turn (None: whoever's turn it is)."""
    from referee.engine import Seen

    return Seen(player=name) if name is not None else None


# -- new ------------------------------------------------------------------------------------------

@click.command(context_settings=CONTEXT, help=_(
    "Start a game for the players NAMES, in seat order (clockwise).\n"
    "\n"
    "With virtual dice the referee rolls the roll-off and shows every roll; with physical dice it asks\n"
    "for the rolls (the tied highest re-roll), unless --first says who won the table's roll-off.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee new Cindi Paul Sue --first Cindi --last-words"))
@click.argument("names", nargs=-1, required=True, metavar=_("NAMES..."))
@click.option("--first", metavar=_("NAME"), help=_("The table already rolled off: NAME goes first."))
@click.option("--oath", is_flag=True, help=_("The Unspellable Oath: with one pawn left, any letters may be played."))
@click.option("--spell-binding", is_flag=True, help=_("Spell Binding: the others may force a word from a discard."))
@click.option("--psychotherapy", is_flag=True, help=_("Psychotherapy: after a discard, roll above the hand's value for a pawn."))
@click.option("--last-words", is_flag=True, help=_("Last Words: after someone reaches the target, the others get one more turn."))
@click.option("--target", type=Number(min=1), metavar="N", default=100, show_default=True, help=_("Points to win (a house rule)."))
@click.option("--level", type=click.Choice([str(n) for n in LEVELS]), default=str(DEFAULT_LEVEL), show_default=True,
              help=_("SCOWL size counted as common."))
@click.option("--deck", "deck_spec", default="standard", show_default=True, metavar=_("standard|double|FILE"),
              help=_("The deck: 'double' (192 cards) for 7-8 players, or a JSON file of letter counts."))
@click.option("--dice", type=click.Choice(["physical", "virtual"]), default="physical", show_default=True,
              help=_("Roll a real d20 and type the rolls, or let the referee roll."))
@click.option("--seed", type=Number(), metavar="N", default=None, help=_("Seed for virtual dice, so a game replays identically."))
@click.option("--no-card-accounting", "no_cards", is_flag=True,
              help=_("Do not refuse plays and discards needing cards that lie face up in the discard pile."))
@db_option
@click.pass_obj
def new(obj: Obj, names: tuple[str, ...], first: str | None, oath: bool, spell_binding: bool, psychotherapy: bool,
        last_words: bool, target: int, level: str, deck_spec: str, dice: str, seed: int | None,
        no_cards: bool) -> None:
    from referee.engine import SetupError
    from referee.starting import ChoiceError, first_roll_off, new_setup

    if first is not None and dice == "virtual":
        raise click.UsageError(_("--first is for physical dice: with virtual dice the referee rolls off"))
    deck = get_deck(deck_spec)
    chosen = (("oath", oath), ("spell_binding", spell_binding), ("psychotherapy", psychotherapy),
              ("last_words", last_words))
    try:
        setup = new_setup(names, options=tuple(name for name, on in chosen if on), target=target, level=int(level),
                          deck=deck, dice=dice, seed=seed, card_accounting=not no_cards)
    except ChoiceError as exc:
        raise click.UsageError(say(message_of(exc))) from None
    except SetupError as exc:
        raise_for(exc)
    roll_off: RollOff | None = None
    if first is not None:
        try:
            roll_off = first_roll_off(setup, first)
        except RulesError as exc:
            raise click.BadParameter(say(message_of(exc)), param_hint="--first") from None
    elif dice != "virtual":
        try:
            roll_off = RollOff(ask_roll_off(setup.players))
        except click.Abort:
            raise click.UsageError(_("the roll-off needs every player's roll (or --first NAME if the table already "
                                     "rolled, or --dice virtual); no game was created")) from None
    result = run_store(lambda: obj.referee.start(setup, roll_off))
    click.echo(style().bold(describe_game(result.game_id, result.game)))
    click.echo(ngettext("Deal {hand} cards to each player and give each {pawns} pawns; {n} card stays in the draw "
                        "pile.", "Deal {hand} cards to each player and give each {pawns} pawns; {n} cards stay in "
                        "the draw pile.", result.state.draw_pile).format(hand=HAND_SIZE, pawns=PAWNS,
                                                                         n=result.state.draw_pile))
    say_result(result)


def ask_roll_off(players: tuple[str, ...]) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Ask the table for each roll of the roll-off; only the tied highest roll again."""
    rounds: list[tuple[tuple[str, int], ...]] = []
    contenders = list(players)
    while True:
        if rounds:
            click.echo(_("Tied on the highest roll: {players} roll again.").format(players=", ".join(contenders)))
        rolls = tuple((name, click.prompt(_("Roll-off: {player} rolls").format(player=name), type=Roll()))
                      for name in contenders)
        rounds.append(rolls)
        top = max(r for _, r in rolls)
        contenders = [n for n, r in rolls if r == top]
        if len(contenders) == 1:
            check_roll_off(tuple(rounds), players)
            return tuple(rounds)


# -- turns ----------------------------------------------------------------------------------------

def prompt_roll(label: str) -> int | None:
    """Ask for a physical roll; None when the table has no answer (end of input)."""
    try:
        return click.prompt(label, type=Roll())
    except click.Abort:
        click.echo()
        return None


@click.command(context_settings=CONTEXT, help=_(
    "Play WORD for the player whose turn it is: judge, score, record, then the sanity roll.\n"
    "\n"
    "With physical dice the roll comes from --roll or a prompt; with virtual dice the referee rolls.\n"
    "Reuse, length and deck limits apply even with --allow.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee play taps --roll 12"))
@click.argument("word", metavar=_("WORD"))
@click.option("--roll", type=Roll(), metavar="N", default=None, help=_("The sanity roll (physical dice)."))
@click.option("--allow", is_flag=True, help=_("The table overrules the dictionary and the card count for this play "
                                            "(recorded)."))
@as_option
@game_options
@click.pass_obj
def play(obj: Obj, word: str, roll: int | None, allow: bool, as_name: str | None) -> None:
    referee = obj.referee
    seen = seen_as(as_name)
    prepared = run_store(lambda: referee.prepare(obj.game, word))
    run_store(lambda: referee.check_roll_given(prepared.setup, roll))  # before the verdict is shown
    write(play_verdict_lines(prepared.verdict))
    if prepared.setup.dice == "physical" and roll is None:
        # Check the play before asking for the roll, so a refused word never waits at a prompt.
        check = run_store(lambda: referee.check_play(prepared, allow=allow, seen=seen), action="play")
        roll = prompt_roll(_("{player}'s sanity roll for {word}").format(player=check.player, word=prepared.verdict.word))
    result = run_store(lambda: referee.play(prepared, roll=roll, allow=allow, seen=seen), action="play")
    say_result(result)


@click.command(context_settings=CONTEXT, help=_(
    "Enter the roll the game is waiting for: a sanity check, or Psychotherapy (VALUE 1-20).\n"
    "\n"
    "With virtual dice leave out VALUE: the referee rolls.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee roll 17"))
@click.argument("value", required=False, type=Roll(), metavar=_("[VALUE]"))
@click.option("--skip", is_flag=True, help=_("Psychotherapy only: the discarder does not roll."))
@as_option
@game_options
@click.pass_obj
def roll(obj: Obj, value: int | None, skip: bool, as_name: str | None) -> None:
    if skip and value is not None:
        raise click.UsageError(_("give a roll or --skip, not both"))
    say_result(run_store(lambda: obj.referee.roll(obj.game, value, skip=skip, seen=seen_as(as_name))))


@click.command(context_settings=CONTEXT, help=_(
    "Discard the whole hand (no score, a new hand of 7). Give the LETTERS for Spell Binding and Psychotherapy.\n"
    "\n"
    "Letters whose every copy lies face up in the discard pile cannot be in a hand: the discard is\n"
    "refused, unless the table overrules the card count with --allow.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee discard bcdfghk"))
@click.argument("letters", required=False, metavar=_("[LETTERS]"))
@click.option("--allow", is_flag=True, help=_("The table overrules the card count for this discard (recorded)."))
@as_option
@game_options
@click.pass_obj
def discard(obj: Obj, letters: str | None, allow: bool, as_name: str | None) -> None:
    say_result(run_store(lambda: obj.referee.discard(obj.game, letters, allow=allow, seen=seen_as(as_name)),
                         action="discard"))


@click.command(context_settings=CONTEXT, help=_(
    "Spell Binding: another player names a WORD from the discarded letters, or --done closes the naming.\n"
    "\n"
    "The discarder must then play the highest-scoring legal word named (a tie goes to the word named\n"
    "first), with the sanity check as usual.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee bind column --by Paul && uw-referee bind --done"))
@click.argument("word", required=False, metavar=_("[WORD]"))
@click.option("--by", "by", metavar=_("NAME"), help=_("Who names the word."))
@click.option("--done", is_flag=True, help=_("No more words will be named: settle Spell Binding."))
@click.option("--allow", is_flag=True, help=_("The table overrules the dictionary for this word (recorded)."))
@click.option("--pass", "passes", is_flag=True, help=_("NAME names no word (recorded, as a phone's pass is)."))
@game_options
@click.pass_obj
def bind(obj: Obj, word: str | None, by: str | None, done: bool, allow: bool, passes: bool = False) -> None:
    if passes:
        if word or done or allow or not by:
            raise click.UsageError(_("--pass takes --by NAME, and no word, --done or --allow"))
        from referee.moves import PassBinding

        say_result(run_store(lambda: obj.referee.act(obj.game, PassBinding(by))))
        return
    if done:
        if word or by or allow:
            raise click.UsageError(_("--done takes no word, no --by and no --allow"))
        say_result(run_store(lambda: obj.referee.bind_done(obj.game)))
        return
    if not word or not by:
        from referee.paths import suggested

        # TRANSLATORS: {referee} is "uw-referee" (with --db PATH when the games are elsewhere).
        raise click.UsageError(_("name a word with: {referee} bind WORD --by NAME (or close with --done)").format(
            referee=shown(suggested("", obj.db))))
    referee = obj.referee
    prepared = run_store(lambda: referee.prepare(obj.game, word))
    write(play_verdict_lines(prepared.verdict))
    say_result(run_store(lambda: referee.bind(prepared, by, allow=allow), action="bind"))


# -- the record -----------------------------------------------------------------------------------

@click.command(context_settings=CONTEXT, help=_(
    "Scores, pawns, whose turn it is, the piles, and what the game waits for.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee status --json"))
@click.option("--json", "as_json", is_flag=True, help=_("Print JSON."))
@game_options
@click.pass_obj
def status(obj: Obj, as_json: bool) -> None:
    gid, view, damage = run_store(lambda: obj.reader().checked_view(obj.game))
    if as_json:
        emit_json({"game": gid, "version": view.get("version"), **view["state"]})
    else:
        write(status_lines(gid, view, style()))
    if damage is not None:  # the scoreboard as kept, then what is damaged beneath it
        from referee.store import Damaged

        raise_for(Damaged(damage))


@click.command(context_settings=CONTEXT, help=_(
    "Check the whole database: SQLite's integrity check, then every game's events against their digests,\n"
    "its replay, and its saved state and summary against the replay. Changes nothing.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee verify --game 2"))
@game_options
@click.pass_obj
def verify(obj: Obj) -> None:
    reader = obj.reader()
    games_checked, events, problems = run_store(lambda: reader.verify(obj.game))
    write(verify_lines(reader.path, games_checked, events, problems, reader.named()))
    if problems:
        raise click.exceptions.Exit(EXIT_REFUSED)


def _correction_words(record: dict[str, Any]) -> str:
    """A stored correction in words, read as the engine's ``Correction``; one of a kind this version does not know
    (a newer one wrote it: the store counts it for nothing) is shown as recorded."""
    try:
        fix = Correction.from_dict(record)
    except ValueError:
        return str(record)
    return correction_words(fix)


@click.command(context_settings=CONTEXT, help=_(
    "Every recorded event of the game with its time, in order, numbered by the table's actions (a play\n"
    "with its roll is one action), as 'uw-referee amend ACTION' counts them.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee log"))
@click.option("--json", "as_json", is_flag=True, help=_("Print JSON."))
@game_options
@click.pass_obj
def log(obj: Obj, as_json: bool) -> None:
    reader = obj.reader()
    # The events as stored and the game as kept; history_notes replays them once, for their words.
    gid, game, history = run_store(lambda: reader.stored(obj.game))
    _gid, corrections = run_store(lambda: reader.corrections(gid))
    events = [event for _, event in history]
    notes = history_notes(events)
    notes[0] = [describe_game(gid, game)]
    numbers = action_numbers(events)  # the table's actions (RULES.txt 6), as amend ACTION counts them
    fixes = [{"at": at, **record, "words": _correction_words(record)} for at, record in corrections]
    if as_json:
        rows = [{"seq": seq, "action": numbers[seq], "at": at, "event": event.to_dict(),
                 "notes": [say(note) for note in notes[seq]]} for seq, (at, event) in enumerate(history)]
        emit_json({"game": gid, "events": rows, "corrections": fixes})
        return
    if history:  # one write for the lines of every event; an action's number on its first event only
        english = language() == DEFAULT_LANGUAGE  # a note is then its own English text: no say() per note
        lines = []
        for seq, (at, _event) in enumerate(history):
            number = f"{numbers[seq]:>4}" if seq == 0 or numbers[seq] != numbers[seq - 1] else "    "
            said = notes[seq] if english else [say(note) for note in notes[seq]]
            lines.append(shown(f"{number}  {at[:19].replace('T', ' ')}  " + " ".join(said)))
        click.echo("\n".join(lines))
    if fixes:
        click.echo(_("Corrections:"))
    for fix in fixes:
        click.echo(shown(f"      {fix['at'][:19].replace('T', ' ')}  {fix['words']}"))


@click.command(context_settings=CONTEXT, help=_(
    "Undo the last ACTIONS actions (default 1), saying what was undone. A play with its roll is one action.\n"
    "\n"
    "'uw-referee redo' puts them back until the table takes a new action. With virtual dice, a roll\n"
    "after an undo is a new roll (the table never learns its next roll by undoing).\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee undo 2"))
@click.argument("actions", type=Number(min=1), default=1, metavar=_("[ACTIONS]"))
@game_options
@click.pass_obj
def undo(obj: Obj, actions: int) -> None:
    result = run_store(lambda: obj.referee.undo(obj.game, actions))
    write(correction_lines("Undid", list(result.removed), result, style()))


@click.command(context_settings=CONTEXT, help=_(
    "Put back the last ACTIONS undone actions (default 1), in order, until the table takes a new action.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee undo 2 && uw-referee redo 2"))
@click.argument("actions", type=Number(min=1), default=1, metavar=_("[ACTIONS]"))
@game_options
@click.pass_obj
def redo(obj: Obj, actions: int) -> None:
    result = run_store(lambda: obj.referee.redo(obj.game, actions))
    write(correction_lines("Redid", list(result.restored), result, style()))


@click.command(context_settings=CONTEXT, help=_(
    "Correct a roll typed wrong: the latest roll, or the one of ACTION (its number in 'uw-referee log').\n"
    "\n"
    "Every later action is checked again, in order, as if the right roll had been typed: scores,\n"
    "pawns, eliminations, Psychotherapy and the winner follow. If a later action becomes impossible,\n"
    "the amendment is refused with the reason and nothing changes. Undone actions can still be redone.\n"
    "A roll-off roll is amended with --roll-off NAME --round N until the game's first action.\n"
    "The amendment is recorded ('uw-referee log').\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee amend --roll 16 && uw-referee amend 4 --roll 3"))
@click.argument("action", required=False, type=Number(min=0), metavar=_("[ACTION]"))
@click.option("--roll", "value", type=Roll(), metavar="N", required=True, help=_("The roll as it really was."))
@click.option("--roll-off", "roll_off", metavar=_("NAME"),
              help=_("Amend NAME's roll-off roll instead (until the game's first action)."))
@click.option("--round", "round_", type=Number(min=1), metavar="N", default=1, show_default=True,
              help=_("The roll-off round of that roll."))
@game_options
@click.pass_obj
def amend(obj: Obj, action: int | None, value: int, roll_off: str | None, round_: int) -> None:
    if roll_off is not None:
        if action is not None:
            raise click.UsageError(_("give an ACTION or --roll-off NAME, not both"))
        write(amend_lines(run_store(lambda: obj.referee.amend_roll_off(obj.game, roll_off, round_, value)),
                          style()))
        return
    write(amend_lines(run_store(lambda: obj.referee.amend(obj.game, value, action)), style()))


@click.command(context_settings=CONTEXT, help=_(
    "NAME leaves the game: out as if the last pawn were lost (the hand goes to the discard pile, the score stays).\n"
    "\n"
    "If that leaves one player with pawns, that player wins. A player who leaves during Last Words\n"
    "takes no final turn.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee leave Sue"))
@click.argument("name", metavar=_("NAME"))
@game_options
@click.pass_obj
def leave(obj: Obj, name: str) -> None:
    say_result(run_store(lambda: obj.referee.leave(obj.game, name)))


@click.command(context_settings=CONTEXT, help=_(
    "List the games in the database, most recently active first.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee games"))
@game_options
@click.pass_obj
def games(obj: Obj) -> None:
    reader = obj.reader()
    write(games_lines(run_store(reader.games), reader.path))


@click.command(context_settings=CONTEXT, help=_(
    "The whole game as JSON: set-up, every event with its time, the corrections (undo, redo, amend), the state now.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee export > game.json"))
@html_option
@game_options
@click.pass_obj
def export(obj: Obj, as_html: bool) -> None:
    from referee.exporting import export_text

    reader = obj.reader()
    if as_html:
        from referee.history.page import export_html

        click.echo(run_store(lambda: export_html(reader, obj.game)), nl=False)
        return
    click.echo(run_store(lambda: export_text(reader, obj.game)), nl=False)  # no replay: the events as stored


@click.command(context_settings=CONTEXT, help=_(
    "Every rule this referee enforces and every ruling it makes where the rulebooks leave a gap.\n"
    "\n"
    "\b\n"
    "Example:\n"
    "    uw-referee rules | less"))
def rules() -> None:
    with open(rules_file(language()), encoding="utf-8") as file:
        click.echo(file.read(), nl=False)


__all__ = ["Refused", "RULES_FILE", "new", "play", "roll", "discard", "bind", "status", "log", "undo", "redo",
           "amend", "leave", "games", "export", "verify"]

"""The game commands of ``uw-referee``: Click code only. Rules live in ``referee.engine``, storage in
``referee.store``; errors from either become Click errors with the right exit status (1 refused by
the rules, 2 usage)."""
from __future__ import annotations

from typing import Any, Callable

import click

from dictionaries import DEFAULT_LEVEL, LEVELS
from dictionaries.errors import WordError
from referee.cli_common import CONTEXT, Obj, emit_json, get_deck
from referee.engine import (
    DIE,
    BindDone,
    BindNamed,
    Discarded,
    Event,
    Game,
    Options,
    Phase,
    PsychotherapyRolled,
    RollOff,
    RulesError,
    SanityRolled,
    Setup,
    WordPlayed,
    check_roll_off,
)

RULINGS = """\b
Rulings (RULES.md): the card table scores CHAMP 15, TOP 5, RUM 7 (the rulebook's examples misprint them);
a word needs 3 to 7 letters and no more copies of a letter than the deck holds; a word that would reach
the target scores only on a passed sanity check, and is used up either way; a player who is out
discards the rest of the hand and draws nothing; Spell Binding ties go to the word named first;
Psychotherapy needs a roll strictly higher than the hand's value (a 20 is not automatic)."""


class Refused(click.ClickException):
    """The rules refuse the action (exit status 1); nothing was changed."""

    exit_code = 1

    def format_message(self) -> str:
        return self.message

    def show(self, file: Any = None) -> None:
        end = "" if self.message.endswith(".") else "."
        click.echo(click.style("Refused: ", fg="red", bold=True) + self.message + end + " Nothing was changed.", err=True)


def run_store(obj: Obj, call: Callable[[], Any]) -> Any:
    """Call the store, turning its errors into Click errors (exit 1 with one clear line)."""
    from referee.store import StoreError

    try:
        return call()
    except RulesError as exc:
        raise Refused(str(exc)) from None
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None


def say(notes: list[str]) -> None:
    """Print what happened and what the table does next; the last note (what the game waits for) stands out."""
    for note in notes[:-1]:
        click.echo(note)
    if notes:
        click.echo(click.style(notes[-1], bold=True))


def judge_for(obj: Obj, game: Game, word: str) -> Any:
    from dictionaries.verdict import judge

    try:
        return judge(obj.dictionary, word, game.setup.level, game.setup.deck)
    except WordError as exc:
        raise click.BadParameter(str(exc), param_hint="WORD") from None


def describe_setup(game_id: int, game: Game) -> str:
    setup = game.setup
    options = [name.replace("_", " ") for name, on in vars(setup.options).items() if on]
    return (f"Game {game_id}: {', '.join(setup.players)}. Target {setup.target}, dictionary size {setup.level}, "
            f"{setup.deck.name} deck ({setup.deck.size} cards), {setup.dice} dice. "
            f"Optional rules: {', '.join(options) if options else 'none'}.")


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
    if first is not None:
        try:
            first = Game(setup).state.player(first).name
        except RulesError as exc:
            raise click.BadParameter(str(exc), param_hint="--first") from None
        roll_off = RollOff(first=first)
    elif dice == "virtual":
        roll_off = Game(setup).roll_off_virtual()
    else:
        try:
            roll_off = RollOff(ask_roll_off(setup.players))
        except click.Abort:
            raise click.UsageError("the roll-off needs every player's roll (or --first NAME if the table "
                                   "already rolled, or --dice virtual); no game was created") from None
    game_id, game, _ = run_store(obj, lambda: obj.store.create(setup, lambda g: g.apply(roll_off)))
    click.echo(click.style(describe_setup(game_id, game), bold=True))
    click.echo(f"Deal {7} cards to each player and give each 5 pawns; {game.state.draw_pile} cards stay in the draw pile.")
    say(game.state.notes)


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
    gid, game = run_store(obj, lambda: obj.store.load(obj.game))
    verdict = judge_for(obj, game, word)
    if game.setup.dice == "virtual" and roll is not None:
        raise click.UsageError("this game uses virtual dice: the referee rolls, so leave out --roll")

    def event_for(g: Game) -> WordPlayed:
        return WordPlayed(current_name(g), verdict.word, verdict.score, verdict.legal, verdict.codes, allow)

    if verdict.legal and allow:
        click.echo(f"{verdict.word} is legal anyway; --allow changes nothing.")
    for reason in verdict.reasons:
        click.echo(f"The dictionary says: {reason.message}.")
    # Check the play before asking for the roll, so a refused word never waits at a prompt.
    run_store(obj, lambda: game.apply(event_for(game)))
    if game.setup.dice == "physical" and roll is None:
        roll = prompt_roll(f"{game.state.current.name}'s sanity roll for {verdict.word}")  # type: ignore[union-attr]

    def action(g: Game) -> list[str]:
        notes = g.apply(event_for(g))
        if g.setup.dice == "virtual":
            notes = notes[:-1] + g.apply(SanityRolled(current_name(g), g.virtual_roll()))
        elif roll is not None:
            notes = notes[:-1] + g.apply(SanityRolled(current_name(g), roll))
        return notes

    _, after, notes = run_store(obj, lambda: obj.store.act(gid, action))
    say(notes)
    if after.state.phase is Phase.SANITY:
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
    def action(g: Game) -> list[str]:
        name = current_name(g)
        if g.state.phase not in (Phase.SANITY, Phase.PSYCHOTHERAPY):
            raise RulesError(f"no roll is awaited. {g.state.waiting_for()}")
        if skip:
            if g.state.phase is not Phase.PSYCHOTHERAPY:
                raise RulesError("only a Psychotherapy roll can be skipped; a sanity check must be rolled")
            return g.apply(PsychotherapyRolled(name, None))
        rolled = value
        if g.setup.dice == "virtual":
            if value is not None:
                raise click.UsageError("this game uses virtual dice: leave out the roll, the referee rolls")
            rolled = g.virtual_roll()
        elif value is None:
            raise click.UsageError("give the roll: uw-referee roll N (1-20)")
        event: Event = SanityRolled(name, rolled) if g.state.phase is Phase.SANITY else PsychotherapyRolled(name, rolled)
        return g.apply(event)

    if skip and value is not None:
        raise click.UsageError("give a roll or --skip, not both")
    _, _, notes = run_store(obj, lambda: obj.store.act(obj.game, action))
    say(notes)


@click.command(context_settings=CONTEXT)
@click.argument("letters", required=False)
@click.pass_obj
def discard(obj: Obj, letters: str | None) -> None:
    """Discard the whole hand (no score, a new hand of 7). Give the LETTERS for Spell Binding and Psychotherapy.

    \b
    Example:
        uw-referee discard bcdfghk
    """
    _, _, notes = run_store(obj, lambda: obj.store.act(obj.game, lambda g: g.apply(Discarded(current_name(g), letters))))
    say(notes)


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

        def close(g: Game) -> list[str]:
            letters = g.state.window.letters if g.state.window else None
            notes = g.apply(BindDone())
            if letters:
                best = [w for w in obj.dictionary.rack(letters, g.setup.level, g.setup.deck)
                        if not g.state.is_used(w.word) or (g.state.pending and g.state.pending.word == w.word)]
                if best:
                    notes.insert(-1, f"The best word the letters {letters} allowed: {best[0].word} "
                                     f"({best[0].score} points).")
            if g.setup.dice == "virtual" and g.state.phase is Phase.SANITY:
                notes = notes[:-1] + g.apply(SanityRolled(current_name(g), g.virtual_roll()))
            return notes

        _, _, notes = run_store(obj, lambda: obj.store.act(obj.game, close))
        say(notes)
        return
    if not word or not by:
        raise click.UsageError("name a word with: uw-referee bind WORD --by NAME (or close with --done)")
    gid, game = run_store(obj, lambda: obj.store.load(obj.game))
    verdict = judge_for(obj, game, word)
    event = BindNamed(by, verdict.word, verdict.score, verdict.legal, verdict.codes)
    if not verdict.legal:
        reasons = "; ".join(r.message for r in verdict.reasons)
        raise Refused(f"{verdict.word} cannot bind: {reasons}.")
    _, _, notes = run_store(obj, lambda: obj.store.act(gid, lambda g: g.apply(event)))
    say(notes)


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
    gid, game = run_store(obj, lambda: obj.store.load(obj.game))
    state = game.state
    if as_json:
        emit_json({"game": gid, **state.to_dict()})
        return
    click.echo(click.style(describe_setup(gid, game), bold=True))
    for p in state.players:
        mark = "->" if p is state.current and not state.is_over() else "  "
        tail = " (out)" if p.out else (" (winner)" if p.name == state.winner else "")
        click.echo(f"{mark} {p.name:<12} {p.score:>4} points  {p.pawns} pawn{'s' if p.pawns != 1 else ''}{tail}")
    click.echo(f"Draw pile {state.draw_pile}, discard pile {state.discard_pile}. "
               f"Words used: {', '.join(state.used_words) or 'none'}.")
    click.echo(click.style(state.waiting_for(), bold=True))


@click.command(context_settings=CONTEXT)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def log(obj: Obj, as_json: bool) -> None:
    """Every recorded event of the game with its time, in order.

    \b
    Example:
        uw-referee log
    """
    gid, game, history = run_store(obj, lambda: obj.store.history(obj.game))
    replay = Game(game.setup)
    rows = []
    for seq, (at, event) in enumerate(history):
        notes = [describe_setup(gid, replay)] if seq == 0 else replay.apply(event)
        if seq and not replay.state.is_over():
            notes = notes[:-1]  # the last note says what the game waited for next: not history
        rows.append({"seq": seq, "at": at, "event": event.to_dict(), "notes": notes})
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
    _, game, removed_events = run_store(obj, lambda: obj.store.undo(obj.game, actions))
    removed = len(removed_events)
    click.echo(f"Undone: {actions} action{'s' if actions != 1 else ''} ({removed} event{'s' if removed != 1 else ''}).")
    click.echo(click.style(game.state.waiting_for(), bold=True))


@click.command(context_settings=CONTEXT)
@click.pass_obj
def games(obj: Obj) -> None:
    """List the games in the database, most recently active first.

    \b
    Example:
        uw-referee games
    """
    found = run_store(obj, lambda: obj.store.games())
    if not found:
        click.echo("No games yet: start one with 'uw-referee new NAME NAME'.")
    for g in found:
        result = f"won by {g.winner}" if g.winner else g.phase.replace("_", " ")
        click.echo(f"{g.id:>4}  {g.updated_at[:19].replace('T', ' ')}  {', '.join(g.players)}  ({result})")


@click.command(context_settings=CONTEXT)
@click.pass_obj
def export(obj: Obj) -> None:
    """The whole game as JSON: set-up, every event with its time, and the state now.

    \b
    Example:
        uw-referee export > game.json
    """
    gid, game, history = run_store(obj, lambda: obj.store.history(obj.game))
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
    click.echo(click.style(describe_setup(gid, game), bold=True))
    click.echo(TABLE_HELP)
    click.echo(click.style(game.state.waiting_for(), bold=True))
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
        click.echo(click.style(game.state.waiting_for(), bold=True))
    else:
        click.echo(f"The game is saved. Continue with 'uw-referee --game {gid} table'.")


def table_step(obj: Obj, gid: int, game: Game, answer: str) -> Game:
    """One answer at the table: do it, print what happened, return the game as it now is."""
    state = game.state
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
        _, game, _ = run_store(obj, lambda: obj.store.undo(gid, 1))
        click.echo("Undone.")
        click.echo(click.style(game.state.waiting_for(), bold=True))
        return game
    name = state.current.name if state.current else ""
    if state.phase in (Phase.SANITY, Phase.PSYCHOTHERAPY):
        if state.phase is Phase.PSYCHOTHERAPY and command in ("pass", "skip", "no"):
            action: Callable[[Game], list[str]] = lambda g: g.apply(PsychotherapyRolled(name, None))
        else:
            value: int | None = None
            if game.setup.dice == "physical":
                try:
                    value = int(command)
                except ValueError:
                    raise click.UsageError(f"{answer!r} is not a roll: type a number from 1 to {DIE}") from None
            make = SanityRolled if state.phase is Phase.SANITY else PsychotherapyRolled
            action = lambda g: g.apply(make(name, g.virtual_roll() if value is None else value))
    elif state.phase is Phase.SPELL_BINDING:
        if command == "done":
            action = lambda g: g.apply(BindDone())
        else:
            if len(words) != 2:
                raise click.UsageError("name a word as 'NAME WORD', or type 'done'")
            verdict = judge_for(obj, game, words[1])
            if not verdict.legal:
                raise Refused(f"{verdict.word} cannot bind: {'; '.join(r.message for r in verdict.reasons)}.")
            event = BindNamed(words[0], verdict.word, verdict.score, verdict.legal, verdict.codes)
            action = lambda g: g.apply(event)
    elif command == "discard":
        letters = words[1] if len(words) > 1 else None
        action = lambda g: g.apply(Discarded(name, letters))
    else:
        if len(words) != 1:
            raise click.UsageError(f"{answer!r}: type one word, or 'discard LETTERS'")
        allow = words[0].endswith("!")
        verdict = judge_for(obj, game, words[0].rstrip("!"))
        if not verdict.legal:
            for reason in verdict.reasons:
                click.echo(f"The dictionary says: {reason.message}.")
        event = WordPlayed(name, verdict.word, verdict.score, verdict.legal, verdict.codes, allow)
        action = lambda g: g.apply(event)
    _, game, notes = run_store(obj, lambda: obj.store.act(gid, action))
    say(notes)
    return game


__all__ = ["Refused", "RULINGS", "new", "play", "roll", "discard", "bind", "status", "log", "undo", "games",
           "export", "table"]

"""The referee's words for people: verdicts, results and the state of a game as lines of text.

Pure functions of library values (no Click, no I/O), so every face (the one-shot commands, the
quick path, the ``table`` loop) says the same thing the same way.
"""
from __future__ import annotations

from referee.terminal import Style
from referee.words import action_groups, actions_words, plural

TYPE_CHECKING = False  # the types only: rendering never needs these modules (nor typing) loaded
if TYPE_CHECKING:
    from typing import Any, Iterable

    from dictionaries.verdict import Verdict
    from referee.actions import Result
    from referee.engine import Game
    from referee.store import GameSummary


def letters_text(letters: Iterable[tuple[str, int]]) -> str:
    """Each letter with its points: ``C0 H4 A5 M3 P3``."""
    return " ".join(f"{letter}{points}" for letter, points in letters)


def check_lines(verdicts: list[Verdict], style: Style) -> list[str]:
    """``check``: each word legal or not, with its score and chance, or its reasons."""
    lines = []
    for v in verdicts:
        head = style.bold(v.word)
        if v.legal:
            lines.append(f"{head}: legal, {v.score} points ({letters_text(v.letters)}); "
                         f"sanity check passes {round(v.success_chance * 100)}% of the time")
        else:
            lines.append(f"{head}: {style.red('not legal')}")
            lines.extend(f"  - {reason.message}" for reason in v.reasons)
    return lines


def play_verdict_lines(verdict: Verdict, allow: bool) -> list[str]:
    """What the dictionary says about a word being played."""
    lines: list[str] = []  # with --allow, the play's own note says what the table overrules, if anything
    lines.extend(f"The dictionary says: {reason.message}." for reason in verdict.reasons)
    return lines


def say_lines(notes: list[str], style: Style) -> list[str]:
    """Notes of what happened; the last one (what the game waits for, or who won) in bold."""
    return [*notes[:-1], style.bold(notes[-1])] if notes else []


def scoreboard_line(state: dict[str, Any]) -> str:
    """Every player's score and pawns (or out, or left) against the target, in one line (from ``State.to_dict()``)."""
    parts = []
    for p in state["players"]:
        mark = "->" if p["name"] == state["turn"] else ""
        how = "left" if p.get("left") else ("out" if p["out"] else plural(p["pawns"], "pawn"))
        parts.append(f"{mark}{p['name']} {p['score']} ({how})")
    return f"Scores, target {state['target']}: " + ", ".join(parts) + "."


#: What the one-shot commands add to what the game waits for (the table loop's prompts say it instead).
COMMAND_HINTS = {
    "sanity": "Enter it with: uw-referee roll N",
    "spell_binding": "Name a word with: uw-referee bind WORD --by NAME; then close with: uw-referee bind --done",
    "psychotherapy": "Enter it with: uw-referee roll N (or uw-referee roll --skip)",
}


def result_lines(result: Result, style: Style, mode: str = "command") -> list[str]:
    """What an action did, the scoreboard, then what the game waits for (or, at the end, who won).

    ``mode`` is the face in use: "command" adds the one-shot command to type next; "table" does not
    (its prompt asks)."""
    notes = list(result.notes)
    board = scoreboard_line(result.state.to_dict())
    if result.state.is_over():
        return say_lines([*notes[:-1], board, notes[-1]] if notes else [board], style)
    lines = say_lines([*notes, board, result.waiting.text], style)
    hint = COMMAND_HINTS.get(result.waiting.phase.value) if mode == "command" else None
    if hint and not (result.waiting.phase.value != "spell_binding" and result.game.setup.dice == "virtual"):
        lines.append(hint)
    return lines


#: Reason codes the table may overrule for one action (RULES.md 6), and what the overrule overrules.
OVERRULABLE = {"proper_noun": "the dictionary", "abbreviation": "the dictionary", "acronym": "the dictionary",
               "contraction": "the dictionary", "uncommon": "the dictionary", "unknown": "the dictionary",
               "discard_pile": "the card count"}


def refusal_lines(message: str, codes: Iterable[str], style: Style, mode: str = "command",
                  action: str = "play") -> list[str]:
    """A refusal and, when the table may overrule it, how, in the form of the mode in use."""
    lines = [refused_line(message, style)]
    what = sorted({OVERRULABLE[c] for c in codes if c in OVERRULABLE})
    if what and action in ("play", "discard", "bind"):
        table_how = {"play": "add '!' after the word (e.g. 'cthulhu!')",
                     "discard": "add '!' after the letters (e.g. 'discard QXZ!')",
                     "bind": "add '!' after the word (e.g. 'Ann cthulhu!')"}
        how = table_how[action] if mode == "table" else "add --allow"
        lines.append(f"The table may overrule {' and '.join(what)} for this {action}: {how}.")
    return lines


def correction_lines(verb: str, events: list[Any], result: Result, style: Style) -> list[str]:
    """What ``undo`` or ``redo`` did, in words ("Undid Ben's CHAMP: 15 points, roll 16."), then the game."""
    count = len(action_groups(events))
    head = f"{verb} {plural(count, 'action')}: " if count > 1 else f"{verb} "
    lines = [head + actions_words(events) + "."]
    state = result.state
    if state.is_over():
        return [*lines, scoreboard_line(state.to_dict()), style.bold(state.waiting_for())]
    return [*lines, scoreboard_line(state.to_dict()), style.bold(result.waiting.text)]


def amend_lines(amended: Any, style: Style) -> list[str]:
    """What ``amend`` did: the roll corrected, what changed for each player and in the game, then the game."""
    before, after = amended.before, amended.state.to_dict()
    lines = [f"Amended {amended.player}'s roll at event {amended.seq}: {amended.old} is now {amended.new}; "
             "every later action was checked again."]
    for old, new in zip(before["players"], after["players"]):
        changes = []
        if old["score"] != new["score"]:
            changes.append(f"{old['score']} -> {plural(new['score'], 'point')}")
        if old["pawns"] != new["pawns"]:
            changes.append(f"{old['pawns']} -> {plural(new['pawns'], 'pawn')}")
        if old["out"] != new["out"]:
            changes.append("now out of the game" if new["out"] else "back in the game")
        if changes:
            lines.append(f"{new['name']}: {', '.join(changes)}.")
    if before["winner"] != after["winner"]:
        lines.append(f"The winner was {before['winner']}; now " + (f"{after['winner']} wins." if after["winner"]
                                                                    else "the game goes on.")
                     if before["winner"] else f"Now {after['winner']} wins.")
    lines.append(scoreboard_line(after))
    lines.append(style.bold(amended.state.waiting_for() if amended.state.is_over() else amended.waiting.text))
    return lines


def correction_words(record: dict[str, Any], events: list[Any]) -> str:
    """A recorded correction (undo, redo, amend) in words, for ``log`` (``events``: those it undid or redid)."""
    kind = record.get("type")
    if kind in ("undo", "redo"):
        return f"{'Undid' if kind == 'undo' else 'Redid'} {actions_words(events)}."
    if kind == "amend":
        return (f"Amended the roll of event {record['seq']} ({record['player']}) from {record['old']} to "
                f"{record['new']}; every later action was checked again.")
    return str(record)


def describe_setup(game_id: int, view: dict[str, Any]) -> str:
    """One line: the players, target, dictionary size, deck, dice and optional rules (from ``State.view()``)."""
    state = view["state"]
    options = [name.replace("_", " ") for name, on in state["options"].items() if on]
    players = ", ".join(p["name"] for p in state["players"])
    return (f"Game {game_id}: {players}. Target {state['target']}, dictionary size {state['level']}, "
            f"{state['deck']} deck ({view['deck_size']} cards), {state['dice']} dice. "
            f"Optional rules: {', '.join(options) if options else 'none'}.")


def describe_game(game_id: int, game: Game) -> str:
    """``describe_setup`` of a game in hand."""
    return describe_setup(game_id, game.state.view())


def status_lines(game_id: int, view: dict[str, Any], style: Style) -> list[str]:
    """``status``: the set-up, each player, the piles and used words, and what the game waits for."""
    state = view["state"]
    over = state["phase"] == "over"
    lines = [style.bold(describe_setup(game_id, view))]
    for p in state["players"]:
        mark = "->" if p["name"] == state["turn"] and not over else "  "
        tail = " (left)" if p.get("left") else (" (out)" if p["out"] else (
            " (winner)" if p["name"] == state["winner"] else ""))
        pawns = p["pawns"]
        lines.append(f"{mark} {p['name']:<12} {p['score']:>4} points  {pawns} pawn{'s' if pawns != 1 else ''}{tail}")
    lines.append(f"Draw pile {state['draw_pile']}, discard pile {state['discard_pile']}. "
                 f"Words used: {', '.join(state['used_words']) or 'none'}.")
    lines.append(style.bold(state["waiting_for"]))
    return lines


#: What a game waits for, in a few words, by phase (``games``): {turn} is the player whose turn it is.
_GAME_STATES = {
    "roll_off": "waiting for the roll-off",
    "action": "{turn}'s turn",
    "last_words": "{turn}'s last turn (Last Words)",
    "sanity": "{turn}'s sanity roll",
    "spell_binding": "Spell Binding on {turn}'s discard",
    "psychotherapy": "{turn}'s Psychotherapy roll",
}


def game_state_words(summary: GameSummary) -> str:
    """A game's state in words: "Sue's turn", "over: Paul won with 104"."""
    if summary.phase == "over" and summary.winner is not None:
        score = dict(zip(summary.players, summary.scores)).get(summary.winner)
        return f"over: {summary.winner} won with {score}"
    return _GAME_STATES.get(summary.phase, summary.phase).format(turn=summary.turn)


def games_lines(summaries: list[GameSummary], where: str) -> list[str]:
    """``games``: each game with its last activity, players and state; or how to start one."""
    if not summaries:
        return [f"No games yet in {where}: start one with 'uw-referee new NAME NAME'."]
    return [f"Games in {where}, most recently active first:"] + [f"{g.id:>4}  {g.updated_at[:19].replace('T', ' ')}  {', '.join(g.players)}  ({game_state_words(g)})"
            for g in summaries]


def refused_line(message: str, style: Style) -> str:
    """A refusal by the rules: what was refused and that nothing changed."""
    end = "" if message.endswith(".") else "."
    return style.red_bold("Refused: ") + message + end + " Nothing was changed."

"""The referee's words for people: verdicts, results and the state of a game as lines of text.

Pure functions of library values (no Click, no I/O), so every face (the one-shot commands, the
quick path, the ``table`` loop) says the same thing the same way.
"""
from __future__ import annotations

from referee.terminal import Style

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
    lines = []
    if verdict.legal and allow:
        lines.append(f"{verdict.word} is legal anyway; --allow changes nothing.")
    lines.extend(f"The dictionary says: {reason.message}." for reason in verdict.reasons)
    return lines


def say_lines(notes: list[str], style: Style) -> list[str]:
    """Notes of what happened; the last one (what the game waits for, or who won) in bold."""
    return [*notes[:-1], style.bold(notes[-1])] if notes else []


def result_lines(result: Result, style: Style) -> list[str]:
    """What an action did, then what the game waits for (or, at the end, who won)."""
    notes = list(result.notes)
    return say_lines(notes if result.state.is_over() else [*notes, result.waiting.text], style)


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
        tail = " (out)" if p["out"] else (" (winner)" if p["name"] == state["winner"] else "")
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
    return [f"{g.id:>4}  {g.updated_at[:19].replace('T', ' ')}  {', '.join(g.players)}  ({game_state_words(g)})"
            for g in summaries]


def refused_line(message: str, style: Style) -> str:
    """A refusal by the rules: what was refused and that nothing changed."""
    end = "" if message.endswith(".") else "."
    return style.red_bold("Refused: ") + message + end + " Nothing was changed."

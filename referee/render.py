"""The referee's words for people: verdicts, results and the state of a game as lines of text.

Pure functions of library values (no Click, no I/O), so every face (the one-shot commands, the
quick path, the ``table`` loop) says the same thing the same way.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from referee.terminal import Style

if TYPE_CHECKING:  # the types only: rendering never needs the modules loaded
    from dictionaries.verdict import Verdict
    from referee.actions import Result
    from referee.engine import Game


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


def describe_setup(game_id: int, game: Game) -> str:
    """One line: the players, target, dictionary size, deck, dice and optional rules."""
    setup = game.setup
    options = [name.replace("_", " ") for name, on in vars(setup.options).items() if on]
    return (f"Game {game_id}: {', '.join(setup.players)}. Target {setup.target}, dictionary size {setup.level}, "
            f"{setup.deck.name} deck ({setup.deck.size} cards), {setup.dice} dice. "
            f"Optional rules: {', '.join(options) if options else 'none'}.")


def status_lines(game_id: int, game: Game, style: Style) -> list[str]:
    """``status``: the set-up, each player, the piles and used words, and what the game waits for."""
    state = game.state
    lines = [style.bold(describe_setup(game_id, game))]
    for p in state.players:
        mark = "->" if p is state.current and not state.is_over() else "  "
        tail = " (out)" if p.out else (" (winner)" if p.name == state.winner else "")
        lines.append(f"{mark} {p.name:<12} {p.score:>4} points  {p.pawns} pawn{'s' if p.pawns != 1 else ''}{tail}")
    lines.append(f"Draw pile {state.draw_pile}, discard pile {state.discard_pile}. "
                 f"Words used: {', '.join(state.used_words) or 'none'}.")
    lines.append(style.bold(state.waiting_for()))
    return lines


def refused_line(message: str, style: Style) -> str:
    """A refusal by the rules: what was refused and that nothing changed."""
    end = "" if message.endswith(".") else "."
    return style.red_bold("Refused: ") + message + end + " Nothing was changed."

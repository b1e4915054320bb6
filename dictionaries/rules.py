"""The game's numbers that the word engine and the referee share (RULES.md 1-3), each in one place."""
from __future__ import annotations

#: Cards in a hand; no word can be longer.
HAND_SIZE = 7
#: The shortest word (the Unspellable Oath lifts it, see ``referee.engine``).
MIN_WORD_LETTERS = 3
MAX_WORD_LETTERS = HAND_SIZE
#: Cthulhu pawns each player starts with.
PAWNS = 5
#: The sanity check is a d20.
DIE = 20
#: Most angles a card may have (the printed cards have 0 to 5): bounds the score of a word.
MAX_POINTS = 255


def success_chance(score: int) -> float:
    """Chance that a d20 passes the sanity check for a word of this value (a 20 always passes)."""
    passing = DIE if score <= 1 else max(DIE + 1 - score, 1)
    return passing / DIE


#: ``success_chance`` of every score a word can have, precomputed for the hot paths.
CHANCES: tuple[float, ...] = tuple(success_chance(score) for score in range(MAX_WORD_LETTERS * MAX_POINTS + 1))

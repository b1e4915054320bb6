"""Write the command list that brings a game to the start of the rulebook's Example 2, then plays it.

Seats: Cindi, Paul, Sue. Cindi fails five sanity checks and is out; Paul reaches 89 with one pawn
left and Sue 95 with three; then Example 2 is played as the rulebook tells it. Run once to make
example2.commands; the golden output is then recorded by tests/test_transcripts.py --update.
"""
from __future__ import annotations

from pathlib import Path

from dictionaries.deck import STANDARD
from dictionaries.dictionary import open_dictionary
from dictionaries.verdict import judge

RESERVED = {"TEN", "COLUMNS", "RUM", "LOOK", "CHAMP", "TOP"}


def pick(total: int, parts: int, used: set[str]) -> list[str]:
    """``parts`` unused legal words whose scores add up to ``total`` (each 2..19)."""
    d = open_dictionary()
    by_score: dict[int, list[str]] = {}
    for w in d.rack("aabdeeghiklmnoprstuy"):
        if w.word not in used and w.word not in RESERVED and 2 <= w.score <= 19 and judge(d, w.word).legal:
            by_score.setdefault(w.score, []).append(w.word)
    base, extra = divmod(total, parts)
    scores = [base + (1 if i < extra else 0) for i in range(parts)]
    words = []
    for s in scores:
        word = next(w for w in by_score[s] if w not in used)
        used.add(word)
        words.append(word)
    assert sum(STANDARD.score(w) for w in words) == total
    return words


def main() -> None:
    used: set[str] = set()
    cindi = pick(40, 5, used)          # five failed checks: out
    paul = pick(89, 6, used)           # four failed, two passed: 89 points, 1 pawn
    sue = pick(95, 6, used)            # two failed, four passed: 95 points, 3 pawns
    paul_rolls = [1, 1, 20, 1, 1, 20]
    sue_rolls = [1, 20, 1, 20, 20, 20]
    lines = ["new Cindi Paul Sue --first Cindi --no-card-accounting"]
    for turn in range(6):
        if turn < 5:
            lines.append(f"play {cindi[turn].lower()} --roll 1")
        lines.append(f"play {paul[turn].lower()} --roll {paul_rolls[turn]}")
        lines.append(f"play {sue[turn].lower()} --roll {sue_rolls[turn]}")
    # Now it is Paul's turn; he discards so that it is Sue's turn, as in the rulebook.
    lines.append("discard")
    lines.append("status")
    # Example 2 as the rulebook tells it.
    lines += ["discard", "play ten --roll 9", "play columns --roll 4", "play rum --roll 17", "status", "play tap --roll 3"]
    Path(__file__).with_name("example2.commands").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

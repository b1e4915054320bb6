"""``uw-referee table`` in a pseudo-terminal while a second process plays on the same game (RULES.md 6,
whose action): every word the table types is credited to the player its prompt named, or refused with
what happened meanwhile, and the table asks again."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pty_support import Terminal

from dictionaries.dictionary import Dictionary
from referee.actions import Referee
from referee.engine import WordPlayed
from referee.store import Store

pytestmark = pytest.mark.slow  # a real process in a pseudo-terminal, 100 rounds

ROUNDS = 100
PROMPT = re.compile(r"(\S[^\n:]*), your word \(or 'discard LETTERS'\): $")
ROLL = re.compile(r"(\S[^\n:]*), roll the d20: $")


def words_for(dictionary: Dictionary, count: int) -> list[str]:
    """``count`` legal words of 3 to 6 distinct letters, none of them a table command."""
    racks = ("BDEGLOR", "ACHIMNP", "EILMNST", "ADKORTW", "AEFGLNU", "BCIOPRS")  # a hand each: at most 7 letters
    found = [w.word for rack in racks for w in dictionary.rack(rack) if 3 <= len(w.word) <= 6]
    commands = {"UNDO", "REDO", "HELP", "QUIT", "EXIT", "STATUS", "AMEND", "LEAVE", "DISCARD", "PASS", "DONE",
                "ROLL"}
    words = sorted({w for w in found if w not in commands})
    assert len(words) >= count
    return words[:count]


def test_table_never_credits_another_player(tmp_path: Path, dictionary: Dictionary) -> None:
    db = tmp_path / "games.sqlite3"
    cli = [sys.executable, "-c", "from referee.quick import main; main()"]
    env = {**os.environ, "UW_LANG": "en", "NO_COLOR": "1", "COLUMNS": "200"}
    subprocess.run([*cli, "--db", str(db), "new", "Ann Lee", "Bob", "Cy", "--first", "Ann Lee", "--target",
                    "1000000", "--no-card-accounting"], check=True, env=env, capture_output=True)
    words = words_for(dictionary, 2 * ROUNDS)
    other = Referee(Store(db), lambda: dictionary)  # the second device, in this process
    table = Terminal([*cli, "--db", str(db), "table"], env)
    named: dict[str, str] = {}   # each word the table typed -> the player its prompt named
    refusals = 0
    try:
        for round_ in range(ROUNDS):
            prompt = table.expect(PROMPT).match
            shown_player = prompt.group(1)
            # Another device plays for whoever's turn it is, after the table showed its prompt.
            mine, theirs = words[2 * round_], words[2 * round_ + 1]
            other.play(other.prepare(None, theirs), roll=20)
            named[mine] = shown_player
            table.type(mine.lower())
            which, found, _ = table.expect(PROMPT, ROLL)
            if which == 0:  # refused: the table says what happened and asks the player whose turn it now is
                refusals += 1
                named[mine] = found.group(1)
                table.type(mine.lower())
                which, found, _ = table.expect(ROLL)
            assert found.group(1) == named[mine]
            table.type("20")
        table.type("/quit")
        table.proc.wait(timeout=20)
    finally:
        table.close()
    _, game, history = Store(db, read_only=True).history(None)
    credited = {e.word: e.player for _, e in history if isinstance(e, WordPlayed)}
    wrong = {word: (who, credited[word]) for word, who in named.items() if credited.get(word) != who}
    assert not wrong, f"credited to another player than the table named (named, credited): {wrong}"
    assert len(named) == ROUNDS and all(word in credited for word in named)
    assert refusals == ROUNDS  # the second device acted first in every round, and the table noticed each time

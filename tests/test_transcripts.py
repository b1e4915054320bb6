"""Golden transcripts: command lists in tests/data/transcripts/*.commands, run through the CLI in
order against a fresh database; the output must match *.golden exactly.

Regenerate after a deliberate change with: UW_UPDATE_GOLDEN=1 python -m pytest tests/test_transcripts.py
(then read the diff before committing it).
"""
from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import cli

TRANSCRIPTS = Path(__file__).parent / "data" / "transcripts"
CASES = sorted(p.stem for p in TRANSCRIPTS.glob("*.commands"))
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+00:00|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
#: A game's version: its event count, then a digest of its chain of events, whose times differ at every run.
_VERSION = re.compile(r'("version": "\d+)-[0-9a-f]{16}"')


def read_commands(name: str) -> list[tuple[str, str | None]]:
    """Each command line with the lines typed at its prompts (the lines after it that start with '> ')."""
    commands: list[tuple[str, str | None]] = []
    for line in (TRANSCRIPTS / f"{name}.commands").read_text().splitlines():
        if line.startswith("> ") and commands:
            command, typed = commands[-1]
            commands[-1] = (command, (typed or "") + line[2:] + "\n")
        elif line.strip() and not line.startswith("#"):
            commands.append((line, None))
    return commands


def run_transcript(name: str, db: Path) -> tuple[str, list[tuple[str, int, str]]]:
    """The transcript's commands run in order on ``db``, the default database (``UW_REFEREE_DB``), so a command
    the referee suggests names no ``--db``; the ``es_`` ones speak Spanish (``UW_LANG=es``). ``{tmp}`` in a
    command is ``db``'s folder (to name another database with ``--db``), said as ``<tmp>`` in the output."""
    env = {"UW_REFEREE_DB": str(db), **({"UW_LANG": "es"} if name.startswith("es_") else {})}
    runner = CliRunner(env=env)
    parts = []
    results = []
    for line, typed in read_commands(name):
        args = shlex.split(line.replace("{tmp}", str(db.parent)))
        result = runner.invoke(cli, args, input=typed, catch_exceptions=False)
        output = _VERSION.sub(r'\1-<digest>"', _TIME.sub("<time>", result.output)).replace(str(db.parent), "<tmp>")
        parts.append(f"$ uw-referee {line}\n{output}[exit {result.exit_code}]\n")
        results.append((line, result.exit_code, result.output))
    return "".join(parts), results


@pytest.mark.parametrize("name", CASES)
def test_transcript_matches_golden(name: str, tmp_path: Path) -> None:
    text, _ = run_transcript(name, tmp_path / "games.sqlite3")
    golden = TRANSCRIPTS / f"{name}.golden"
    if os.environ.get("UW_UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text()


def test_example1_with_the_card_table(tmp_path: Path) -> None:
    # Rulebook Example 1. Erratum: the rulebook scores CHAMP 14 and TOP 4; the card table gives 15 and 5.
    _, results = run_transcript("example1", tmp_path / "g.sqlite3")
    assert all(code == 0 for _, code, _ in results)
    log = json.loads(results[-1][2])
    plays = [e["event"] for e in log["events"] if e["event"]["type"] == "word_played"]
    assert [(p["player"], p["word"], p["score"]) for p in plays] == [
        ("Cindi", "LOOK", 4), ("Paul", "CHAMP", 15), ("Sue", "TOP", 5)]
    status = results[-2][2]
    assert "Cindi           4 points  5 pawns" in status
    assert "Paul           15 points  4 pawns" in status
    assert "Sue             5 points  4 pawns" in status


def test_example2_paul_wins_with_rum(tmp_path: Path) -> None:
    # Rulebook Example 2 from Paul 89 (1 pawn) and Sue 95 (3 pawns), Cindi out. Erratum: RUM is 7 by the
    # card table (the rulebook says 6), so Paul ends on 104, not 103.
    _, results = run_transcript("example2", tmp_path / "g.sqlite3")
    by_line = {line: (code, out) for line, code, out in results}
    before = [out for line, _, out in results if line == "status"][0]
    assert "Paul           89 points  1 pawn" in before
    assert "Sue            95 points  3 pawns" in before
    assert "(out)" in before.splitlines()[1]
    assert "Sue's turn" in before
    assert "Sue scores 0" not in by_line["play ten --roll 9"][1]
    code, out = by_line["play columns --roll 4"]
    assert code == 0 and "would have reached 101 (the target is 100): it scores 0" in out and "Sue loses a pawn: 2 left" in out
    code, out = by_line["play rum --roll 17"]
    assert code == 0 and "Paul scores 7: 104 points" in out and "Paul reaches 104 and wins!" in out
    code, out = by_line["play tap --roll 3"]
    assert code == 1 and "the game is over" in out.lower()


@pytest.mark.parametrize("name", ["virtual", "virtual_undo"])
def test_virtual_dice_replay_identically(name: str, tmp_path: Path) -> None:
    first, _ = run_transcript(name, tmp_path / "a.sqlite3")
    second, _ = run_transcript(name, tmp_path / "b.sqlite3")
    assert first == second


def test_a_virtual_roll_after_an_undo_is_a_new_roll(tmp_path: Path) -> None:
    _, results = run_transcript("virtual_undo", tmp_path / "g.sqlite3")
    rolls = [re.search(r"Ann rolls (\d+)", out).group(1) for line, _, out in results if line == "play champ"]  # type: ignore[union-attr]  # every play of CHAMP is followed by Ann's roll (the test fails otherwise)
    assert len(rolls) == 3 and len(set(rolls)) == 3  # seed 7: 6, then 14, then 20


def test_amend_changes_a_pawn_an_elimination_and_the_winner(tmp_path: Path) -> None:
    _, results = run_transcript("amend", tmp_path / "g.sqlite3")
    by_line = {line: (code, out) for line, code, out in results}
    assert by_line["amend 1 --roll 2"] == (0, by_line["amend 1 --roll 2"][1])
    assert "Ann: 4 -> 3 pawns." in by_line["amend 1 --roll 2"][1]
    code, out = by_line["amend 3 --roll 20"]
    assert code == 1 and "action 4" in out and "the game is over" in out
    code, out = by_line["amend --roll 1"]
    assert code == 0 and "now out of the game" in out and "Now Ann wins." in out


def test_card_accounting_is_refused_overruled_and_reset(tmp_path: Path) -> None:
    _, results = run_transcript("cards", tmp_path / "g.sqlite3")
    by_line = {line: (code, out) for line, code, out in results}
    assert by_line["play quartz --roll 12"][0] == 1 and "the only Q is in the discard pile" in \
        by_line["play quartz --roll 12"][1]
    assert by_line["discard xqzvwkj"][0] == 1
    assert "the table overrules the card count" in by_line["play quartz --roll 12 --allow"][1]
    assert by_line["play quiz --roll 18"][0] == 0  # after the reshuffle the Q may be in a hand again


def test_spell_binding_tie_goes_to_the_word_named_first(tmp_path: Path) -> None:
    _, results = run_transcript("virtual", tmp_path / "g.sqlite3")
    by_line = {line: (code, out) for line, code, out in results}
    assert by_line["bind column --by Ann"][0] == 1           # the discarder cannot name
    assert by_line["bind london --by Bob"][0] == 1           # not a legal word
    assert by_line["bind mucus --by Bob"][0] == 1            # needs two U
    code, out = by_line["bind --done"]
    assert code == 0 and "Ann must play COLUMN for 6 points (named by Bob)" in out  # COLUMNS also 6: named later


def test_the_commands_suggested_for_another_database_act_on_it(tmp_path: Path) -> None:
    # The default database has a game 1 of its own (Cy and Dee's); the one the commands named with --db has
    # Ann and Bob's. The command the table suggests, typed as said, continues Ann and Bob's.
    _, results = run_transcript("db", tmp_path / "games.sqlite3")
    said = [out for line, _, out in results if "party games" in line and line.endswith(" table")][0]
    command = said.rstrip().rsplit("Continue with: ", 1)[1].replace("<tmp>", str(tmp_path))
    args = shlex.split(command)
    assert args[:2] == ["uw-referee", "--db"] and args[2] == str(tmp_path / "party games.sqlite3")
    typed = CliRunner(env={"UW_REFEREE_DB": str(tmp_path / "games.sqlite3")}).invoke(cli, [*args[1:]], input="/quit\n")
    assert typed.exit_code == 0 and "Game 1: Ann, Bob." in typed.output and "Cy" not in typed.output


def test_a_refusals_suggested_commands_act_on_the_database_refused(tmp_path: Path) -> None:
    # Each command a refusal suggests for another database (the library's own messages: the store's and the
    # amend's), typed between its quotes as said, acts there: never on the default database's game 1 (Cy's).
    _, results = run_transcript("db", tmp_path / "games.sqlite3")
    said = {line: out for line, _, out in results}

    def typed(line: str, before: str, after: str) -> list[str]:
        command = said[line].split(before, 1)[1].split(after, 1)[0].replace("<tmp>", str(tmp_path))
        args = shlex.split(command)
        assert args[:3] == ["uw-referee", "--db", str(tmp_path / ("empty.sqlite3" if "empty" in line
                                                                   else "party games.sqlite3"))]
        return args[1:]

    runner = CliRunner(env={"UW_REFEREE_DB": str(tmp_path / "games.sqlite3")})
    listed = runner.invoke(cli, typed('--db "{tmp}/party games.sqlite3" --game 9 status', '; "', '" lists'))
    assert listed.exit_code == 0 and "Ann, Bob" in listed.output and "Cy" not in listed.output
    numbered = runner.invoke(cli, typed('--db "{tmp}/party games.sqlite3" amend 99 --roll 5', '; "', '" numbers'))
    assert numbered.exit_code == 0 and "CHAMP" in numbered.output and "Cy" not in numbered.output
    at_table = typed('--db "{tmp}/party games.sqlite3" table', 'numbered as in "', '")')  # the table's own hint
    assert at_table[-3:] == ["--game", "1", "log"] and runner.invoke(cli, at_table).output == numbered.output
    for line in ("--db {tmp}/empty.sqlite3 status", "--db {tmp}/empty.sqlite3 stats"):
        args = typed(line, "start one with '", "'")
        assert args[-3:] == ["new", "NAME", "NAME"]
    started = runner.invoke(cli, [*args[:-2], "Eve", "Fay", "--first", "Eve"])
    assert started.exit_code == 0 and "Game 1: Eve, Fay." in started.output
    assert "Eve" in runner.invoke(cli, ["--db", str(tmp_path / "empty.sqlite3"), "games"]).output
    assert "Eve" not in runner.invoke(cli, ["games"]).output


def test_a_finished_game_says_what_can_still_be_done(tmp_path: Path) -> None:
    _, results = run_transcript("over", tmp_path / "games.sqlite3")
    tables = [out for line, _, out in results if line == "table"]
    assert "The winner was Ann; now the game goes on." in tables[0]  # amended at the last prompt: play went on
    assert tables[0].count("A mistake can still be corrected") == 2  # said at each end
    assert tables[1].startswith("The game is over: Ann won") and "Undid Ann's QUARTZ" in tables[1]
    suggested = tables[1].split("The next game, same players and rules: ", 1)[1].split(", then ")[0]
    typed = [line for line, _, _ in results if line.startswith("new ") and "--first" not in line][0]
    assert suggested == f"uw-referee {typed}"  # the next game's command, as said, started game 2
    assert results[-2][1] == 0 and "Game 2: Ann, Bo Lee." in results[-2][2]

"""The game commands through Click's runner (and one real subprocess): bad inputs, the table loop."""
from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from referee import table_cli  # noqa: F401  # its help is made when it loads: loaded here, in English, before any test
from referee.cli import cli


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


def run(db: Path, *args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, ["--db", str(db), *args], input=input, catch_exceptions=False)


def digest(path: Path) -> str:
    """The database as the table sees it: every game exported (file bytes change with WAL checkpoints)."""
    out = []
    con = sqlite3.connect(path)
    try:
        out = con.execute("SELECT game_id, seq, data FROM events ORDER BY game_id, seq").fetchall()
    finally:
        con.close()
    return hashlib.sha256(json.dumps(out).encode()).hexdigest()


def started(db: Path, *extra: str) -> None:
    assert run(db, "new", "Cindi", "Paul", "Sue", "--first", "Cindi", *extra).exit_code == 0


def status(db: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(run(db, "status", "--json").output)
    return found


def test_status_json_fields(db: Path) -> None:
    started(db)
    run(db, "play", "look", "--roll", "7")
    data = status(db)
    for key in ("game", "phase", "turn", "target", "options", "players", "winner", "used_words", "draw_pile",
                "discard_pile"):
        assert key in data
    assert data["turn"] == "Paul" and data["used_words"] == ["LOOK"] and data["draw_pile"] == 71
    assert set(data["options"]) == {"oath", "spell_binding", "psychotherapy", "last_words"}
    assert data["players"][0] == {"name": "Cindi", "score": 4, "pawns": 5, "out": False, "left": False}


BAD = [
    # (set-up steps, command, exit status, words in the message)
    ([], ["bind", "taps", "--by", "Zed"], 1, "cannot name"),
    ([], ["play", "look", "--roll", "0"], 2, "'0' is not a roll: type a number from 1 to 20"),
    ([], ["play", "look", "--roll", "21"], 2, "'21' is not a roll: type a number from 1 to 20"),
    ([], ["play", "look", "--roll", "x"], 2, "'x' is not a roll: type a number from 1 to 20"),
    ([], ["play", "look", "--roll", "٣"], 2, "'٣' is not a roll: type a number from 1 to 20"),
    ([], ["play", "look", "--roll", "1" * 500], 2, "'" + "1" * 40 + "…' is not a roll"),
    ([], ["undo", "٢"], 2, "'٢' is not a whole number (digits 0-9)"),
    ([], ["play", "lo0k", "--roll", "5"], 2, "'0'"),
    ([], ["play", "london", "--roll", "5"], 1, "proper noun"),
    ([], ["play", "jazz", "--roll", "5", "--allow"], 1, "the deck holds 1"),
    ([["play", "look"]], ["play", "taps", "--roll", "5"], 1, "Waiting for Cindi's sanity roll"),
    ([["play", "look", "--roll", "5"]], ["play", "look", "--roll", "5"], 1, "already played"),
    ([], ["roll", "7"], 1, "no roll is awaited"),
    ([], ["undo", "1"], 1, "nothing to undo yet: the set-up and the roll-off stay"),   # the roll-off is part of the set-up
    ([["play", "look", "--roll", "5"]], ["undo", "2"], 1, "only 1 action"),
    ([], ["--game", "99999999999999999999999", "status"], 2, "x<=9223372036854775807"),
    ([], ["bind", "--done"], 1, "cannot close Spell Binding now"),
    ([], ["discard", "abc"], 1, "holds 7 cards"),
    ([], ["--game", "9", "status"], 1, "no game 9"),
    ([], ["undo", "0"], 2, "x>=1"),
]


@pytest.mark.parametrize(("setup", "args", "code", "message"), BAD)
def test_bad_inputs_change_nothing(db: Path, setup: list[list[str]], args: list[str], code: int, message: str) -> None:
    started(db)
    for step in setup:
        run(db, *step, input="\n")
    before = digest(db)
    result = run(db, *args, input="")
    assert result.exit_code == code, result.output
    assert message in result.output
    assert "Traceback" not in result.output
    assert digest(db) == before


def test_unknown_player_at_set_up(db: Path) -> None:
    result = run(db, "new", "Cindi", "Paul", "--first", "Zed")
    assert result.exit_code == 2 and "'Zed' is not playing" in result.output
    assert not db.exists()


def test_unknown_player_names_a_word(db: Path) -> None:
    started(db, "--spell-binding")
    assert run(db, "discard", "oclnusm").exit_code == 0
    before = digest(db)
    result = run(db, "bind", "column", "--by", "Zed")
    assert result.exit_code == 1 and "'Zed' is not playing; the players are Cindi, Paul, Sue" in result.output
    assert digest(db) == before


def test_action_after_the_game_is_over(db: Path) -> None:
    assert run(db, "new", "A", "B", "--first", "A", "--target", "5").exit_code == 0
    assert "A reaches 10 and wins!" in run(db, "play", "taps", "--roll", "15").output
    before = digest(db)
    result = run(db, "play", "look", "--roll", "5")
    assert result.exit_code == 1 and "game is over" in result.output.lower()
    assert run(db, "discard").exit_code == 1
    assert digest(db) == before


@pytest.mark.parametrize(("args", "message"), [
    (["new", "Solo"], "2 to 8"),
    (["new", "A", "B", "C", "D", "E", "F", "G"], "larger deck"),
    (["new", "A", "a"], "used twice"),
    (["new", "A", "B", "--seed", "3"], "--dice virtual"),
    (["new", "A", "B", "--deck", "nope"], "neither"),
])
def test_bad_set_ups_are_usage_errors(db: Path, args: list[str], message: str) -> None:
    result = run(db, *args)
    assert result.exit_code == 2 and message in result.output
    assert not db.exists()


def test_seven_players_with_the_double_deck(db: Path) -> None:
    result = run(db, "new", "A", "B", "C", "D", "E", "F", "G", "--deck", "double", "--first", "G")
    assert result.exit_code == 0 and "143 cards stay in the draw pile" in result.output


def test_physical_roll_off_asks_and_rerolls_the_tied(db: Path) -> None:
    result = run(db, "new", "Ann", "Bob", "Cy", input="12\n17\n17\n5\n9\n")
    assert result.exit_code == 0, result.output
    assert "Tied on the highest roll: Bob, Cy roll again." in result.output
    assert "Re-roll 1: Bob 5, Cy 9." in result.output
    assert status(db)["turn"] == "Cy"


def test_roll_off_without_answers_creates_nothing(db: Path) -> None:
    result = run(db, "new", "Ann", "Bob", input="12\n")
    assert result.exit_code == 2 and "no game was created" in result.output
    assert not db.exists()


def test_play_asks_for_the_roll_and_can_wait_for_it(db: Path) -> None:
    started(db)
    result = run(db, "play", "look", input="7\n")
    assert "Cindi rolls 7 and passes" in result.output
    result = run(db, "play", "champ", input="")  # no answer: the play is recorded, the roll awaited
    assert result.exit_code == 0 and f"uw-referee --db {db} roll N" in result.output  # the database it was given
    assert status(db)["phase"] == "sanity"
    assert "Paul loses a pawn: 4 left." in run(db, "roll", "12").output


def test_allow_records_the_override(db: Path) -> None:
    started(db)
    result = run(db, "play", "cthulhu", "--roll", "20", "--allow")
    assert result.exit_code == 0 and "the table overrules the dictionary" in result.output
    events = json.loads(run(db, "export").output)["events"]
    assert events[2]["allowed"] is True and events[2]["legal"] is False and events[2]["reasons"] == ["proper_noun"]


def test_undo_counts_a_play_with_its_roll_as_one_action(db: Path) -> None:
    started(db)
    run(db, "play", "look", "--roll", "7")
    run(db, "play", "champ", "--roll", "12")
    assert run(db, "undo").exit_code == 0
    data = status(db)
    assert data["turn"] == "Paul" and data["used_words"] == ["LOOK"]


def test_games_lists_and_game_selects(db: Path) -> None:
    started(db)
    assert run(db, "new", "X", "Y", "--first", "Y").exit_code == 0
    listing = run(db, "games").output
    assert listing.index("X, Y") < listing.index("Cindi, Paul, Sue")  # most recently active first
    assert status(db)["game"] == 2
    run(db, "--game", "1", "play", "look", "--roll", "7")
    assert status(db)["game"] == 1  # now the most recently active


def test_missing_database(db: Path) -> None:
    result = run(db, "status")
    assert result.exit_code == 1 and "no games yet" in result.output
    assert not db.exists()


@pytest.mark.parametrize("content", [b"this is not a database at all" * 100, b"SQLite format 3\x00" + b"\xff" * 2000])
def test_corrupt_database_is_never_overwritten(db: Path, content: bytes) -> None:
    db.write_bytes(content)
    for args in (["status"], ["new", "A", "B", "--first", "A"], ["games"]):
        result = run(db, *args)
        assert result.exit_code == 1, result.output
        assert str(db) in result.output and "Traceback" not in result.output
    assert db.read_bytes() == content


def test_foreign_sqlite_database_is_refused(db: Path) -> None:
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE songs (title TEXT)")
    con.commit()
    con.close()
    before = db.read_bytes()
    result = run(db, "new", "A", "B", "--first", "A")
    assert result.exit_code == 1 and "another program" in result.output
    assert db.read_bytes() == before


def test_table_loop_plays_turns(db: Path) -> None:
    started(db, "--psychotherapy")
    answers = "\n".join(["look", "7", "ta2ps", "london", "champ", "12", "/status", "discard bcdfghx", "top", "3",
                         "discard aeiourt", "3", "/undo", "/quit"]) + "\n"
    result = run(db, "table", input=answers)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Cindi rolls 7 and passes" in out
    assert "not letters" in out                    # ta2ps: a clear message, the loop goes on
    assert "proper noun" in out                    # london refused
    assert "Paul loses a pawn: 4 left." in out
    assert "Sue has all 5 pawns: no Psychotherapy roll." in out
    assert "Cindi loses a pawn: 4 left." in out
    assert "Psychotherapy: Paul may roll against the hand's value 19" in out
    assert "Paul rolls 3, not higher than 19: nothing happens." in out
    assert "Undid Paul's discard of AEIOURT, Psychotherapy roll 3." in out
    assert "Scores, target 100: Cindi 9 (4 pawns), ->Paul 15 (4 pawns), Sue 0 (5 pawns)." in out
    assert "The game is saved" in out
    data = status(db)
    assert data["used_words"] == ["LOOK", "CHAMP", "TOP"] and data["turn"] == "Paul" and data["phase"] == "action"


def test_table_loop_ends_at_end_of_input(db: Path) -> None:
    started(db)
    result = run(db, "table", input="look\n")
    assert result.exit_code == 0 and "The game is saved" in result.output
    assert status(db)["phase"] == "sanity"


@pytest.mark.slow
def test_real_subprocess(tmp_path: Path) -> None:
    env = {**os.environ, "UW_REFEREE_DB": str(tmp_path / "g.sqlite3")}
    exe = [sys.executable, "-c", "from referee.cli import main; main()"]
    first = subprocess.run([*exe, "new", "Ann", "Bob", "--first", "Ann"], capture_output=True, text=True, env=env,
                           cwd=tmp_path, timeout=60)
    assert first.returncode == 0, first.stderr
    played = subprocess.run([*exe, "play", "taps", "--roll", "2"], capture_output=True, text=True, env=env,
                            cwd=tmp_path, timeout=60)
    assert played.returncode == 0 and "Ann loses a pawn: 4 left." in played.stdout
    refused = subprocess.run([*exe, "roll", "5"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert refused.returncode == 1 and "Refused:" in refused.stderr and "Traceback" not in refused.stderr
    assert "\x1b[" not in played.stdout  # no colour when not on a terminal


# -- command-line habits (issue 9, point 6) --------------------------------------------------------

def test_db_and_game_work_after_the_subcommand(tmp_path: Path) -> None:
    db = str(tmp_path / "g.sqlite3")
    runner = CliRunner()
    assert runner.invoke(cli, ["new", "Ann", "Bob", "--first", "Ann", "--db", db]).exit_code == 0
    assert runner.invoke(cli, ["new", "Cy", "Dee", "--first", "Dee", "--db", db]).exit_code == 0
    result = runner.invoke(cli, ["status", "--game", "1", "--db", db])
    assert result.exit_code == 0 and "Game 1: Ann, Bob." in result.output
    result = runner.invoke(cli, ["play", "look", "--roll", "7", "--db", db, "--game", "1"])
    assert result.exit_code == 0 and "Ann plays LOOK" in result.output
    assert "Dee's turn" in runner.invoke(cli, ["--db", db, "status", "--game", "2"]).output  # game 2 untouched


@pytest.mark.parametrize("command", ["play", "roll", "discard", "bind", "status", "log", "undo", "redo", "amend",
                                     "leave", "games", "export", "table"])
def test_every_game_command_names_db_and_game_in_its_help(command: str) -> None:
    out = CliRunner().invoke(cli, [command, "--help"]).output
    assert "--db PATH" in out and "--game ID" in out and "Example" in out


def test_an_unknown_command_suggests_the_nearest() -> None:
    result = CliRunner().invoke(cli, ["paly", "taps"])
    assert result.exit_code == 2 and "Did you mean 'play'?" in result.output
    assert "Did you mean" not in CliRunner().invoke(cli, ["zzzzzz"]).output


def test_help_and_games_show_where_the_database_is(tmp_path: Path) -> None:
    from referee.paths import default_db_path

    out = CliRunner().invoke(cli, ["--help"]).output
    assert default_db_path().replace(" ", "") in out.replace("\n", "").replace(" ", "")
    db = tmp_path / "g.sqlite3"
    CliRunner().invoke(cli, ["--db", str(db), "new", "Ann", "Bob", "--first", "Ann"])
    assert CliRunner().invoke(cli, ["--db", str(db), "games"]).output.startswith(f"Games in {db}")


def test_no_color_flag_and_no_color_env_turn_colour_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from referee import terminal

    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(terminal, "_COLOR_OFF", [False])
    assert terminal.use_color(Tty())  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "1")
    assert not terminal.use_color(Tty())  # type: ignore[arg-type]
    monkeypatch.delenv("NO_COLOR")
    assert CliRunner().invoke(cli, ["--no-color", "score", "champ"]).exit_code == 0
    assert not terminal.use_color(Tty())  # type: ignore[arg-type]


def test_shell_completion_as_the_docs_show_it() -> None:
    env = {"_UW_REFEREE_COMPLETE": "bash_complete", "COMP_WORDS": "uw-referee pl", "COMP_CWORD": "1"}
    result = CliRunner().invoke(cli, [], prog_name="uw-referee", env=env)
    assert "plain,play" in result.output
    readme = (Path(__file__).resolve().parent.parent / "docs" / "referee.md").read_text()
    assert '_UW_REFEREE_COMPLETE=bash_source uw-referee' in readme


# -- the rules travel with the program (issue 9, point 7) -----------------------------------------

def test_rules_prints_every_rule_and_ruling_from_the_shipped_file() -> None:
    from referee.game_cli import RULES_FILE

    out = CliRunner().invoke(cli, ["rules"]).output
    assert out == Path(RULES_FILE).read_text(encoding="utf-8")
    for needle in ("CHAMP scores 15", "Only the players tied for highest roll", "Unspellable Oath",
                   "the player who reached that final score first wins", "Ruling (redo)", "Ruling (amending a roll)",
                   "Ruling (a player leaves)", "Ruling (card accounting)", "Ruling (virtual dice after an undo)",
                   "a tie goes to the word named first", "strictly higher", "double deck", "--target"):
        assert needle in out, needle


def test_the_docs_carry_the_rules_and_point_outside_at_nothing() -> None:
    import tomllib

    root = Path(__file__).resolve().parent.parent
    readme = (root / "docs" / "referee.md").read_text()
    assert (root / "referee" / "RULES.txt").read_text() in readme
    for page in (root / "README.md", *sorted((root / "docs").glob("*.md"))):
        assert "../shared" not in page.read_text() and "RULES.md" not in page.read_text(), page
    package_data = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "RULES.txt" in package_data["referee"]


def test_status_at_the_table_is_uw_referee_status(db: Path) -> None:
    started(db)
    run(db, "play", "look", "--roll", "7")
    one_shot = run(db, "status").output
    at_table = run(db, "table", input="/status\n/quit\n").output
    assert one_shot in at_table


def test_the_scoreboard_is_the_same_in_both_modes(tmp_path: Path) -> None:
    one, two = tmp_path / "one.sqlite3", tmp_path / "two.sqlite3"
    for path in (one, two):
        run(path, "new", "Ann", "Bob", "Cy", "--first", "Ann", "--target", "20")
    outputs = [run(one, "play", "champ", "--roll", "3").output + run(one, "play", "look", "--roll", "20").output
               + run(one, "leave", "Cy").output + run(one, "play", "quart", "--roll", "20").output,
               run(two, "table", input="champ\n3\nlook\n20\nleave Cy\nquart\n20\n").output]
    boards = [[line for line in out.splitlines() if line.startswith("Scores, target 20: ")] for out in outputs]
    # the table also shows the board while a word waits for its roll; every board of the one-shot commands
    # appears at the table, in order, and both end on the same one
    assert len(boards[0]) == 4 and len(boards[1]) == 7
    rest = iter(boards[1])
    assert all(any(board == other for other in rest) for board in boards[0])
    assert boards[0][-1] == boards[1][-1]


def test_log_and_export_carry_the_corrections(db: Path) -> None:
    started(db)
    run(db, "play", "look", "--roll", "7")
    run(db, "undo")
    run(db, "redo")
    run(db, "amend", "--roll", "2")
    exported = json.loads(run(db, "export").output)
    assert [c["type"] for c in exported["corrections"]] == ["undo", "redo", "amend"]
    assert exported["corrections"][2] | {"at": ""} == {"at": "", "type": "amend", "seq": 3, "action": 1,
                                                        "player": "Cindi", "old": 7, "new": 2}
    logged = json.loads(run(db, "log", "--json").output)
    assert [c["words"] for c in logged["corrections"]][:2] == ["Undid Cindi's LOOK: 4 points, roll 7.",
                                                               "Redid Cindi's LOOK: 4 points, roll 7."]
    assert "Corrections:" in run(db, "log").output


def test_log_says_older_and_unknown_corrections(db: Path) -> None:
    """``log`` reads each stored correction as the engine's ``Correction``: an amendment recorded before actions
    were numbered is said by its event, and a kind this version does not know (a newer one wrote it) as recorded."""
    started(db)
    run(db, "play", "look", "--roll", "7")
    run(db, "amend", "--roll", "2")
    older = {"type": "amend", "seq": 3, "player": "Cindi", "old": 2, "new": 5}
    newer = {"type": "swap", "seq": 3}
    with sqlite3.connect(db) as conn:
        for n, record in enumerate((older, newer), start=1):
            conn.execute("INSERT INTO corrections (game_id, n, at, data) VALUES (1, ?, '2026-12-01T21:00:00Z', ?)",
                         (n, json.dumps(record)))
    conn.close()
    words = [c["words"] for c in json.loads(run(db, "log", "--json").output)["corrections"]]
    assert words == ["Amended the roll of action 1 (Cindi) from 7 to 2; every later action was checked again.",
                     "Amended the roll of event 3 (Cindi) from 2 to 5; every later action was checked again.",
                     str(newer)]


# -- issue 20: every word playable, whose action ---------------------------------------------------

def events_of(db: Path) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(run(db, "export").output)["events"]
    return found


def test_a_command_that_is_a_word_asks_and_can_be_played(db: Path) -> None:
    started(db)
    out = run(db, "table", input="undo\nw\n12\nstatus\nw\n20\ndiscard\nc\n/quit\n").output
    assert "UNDO: play the word, or undo the last action?" in out
    assert "STATUS: play the word, or show the scores?" in out
    assert "DISCARD: play the word, or discard the hand?" in out
    words = [(e["player"], e["word"], e["allowed"]) for e in events_of(db) if e["type"] == "word_played"]
    assert words == [("Cindi", "UNDO", False), ("Paul", "STATUS", False)]
    assert [e["player"] for e in events_of(db) if e["type"] == "discarded"] == ["Sue"]


def test_a_slash_always_means_the_command_and_a_bang_only_a_real_overrule(db: Path) -> None:
    started(db)
    out = run(db, "table", input="look\n7\n/undo\nundo!\n12\n/quit\n").output
    assert "Undid Cindi's LOOK" in out and "play the word, or" not in out
    words = [(e["word"], e["allowed"]) for e in events_of(db) if e["type"] == "word_played"]
    assert words == [("UNDO", False)]  # legal and holdable: no overrule recorded
    out = run(db, "table", input="/cat\n/pass\n/quit\n").output
    assert "'/cat' is not a command" in out and "'/pass' is not a command" in out  # a slash is never a word
    assert [e["word"] for e in events_of(db) if e["type"] == "word_played"] == ["UNDO"]


def test_a_command_word_that_is_not_a_word_runs_at_once(db: Path) -> None:
    started(db)
    out = run(db, "table", input="q\n").output
    assert "play the word" not in out and "The game is saved" in out


def test_play_as_a_player_whose_turn_it_is_not_is_refused(db: Path) -> None:
    started(db)
    before = digest(db)
    result = run(db, "play", "mint", "--roll", "11", "--as", "Paul")
    assert result.exit_code == 1 and "it is Cindi's turn, not Paul's" in result.output
    assert digest(db) == before
    for command in (["discard", "--as", "sue"], ["roll", "3", "--as", "Sue"]):
        assert run(db, *command).exit_code == 1 and digest(db) == before
    assert run(db, "play", "mint", "--roll", "11", "--as", "cindi").exit_code == 0
    assert [e["player"] for e in events_of(db) if e["type"] == "word_played"] == ["Cindi"]
    assert "'Zed' is not playing" in run(db, "play", "cat", "--roll", "3", "--as", "Zed").output


def test_the_table_is_told_what_another_device_did_and_asked_again(db: Path) -> None:
    from referee.actions import Referee
    from referee.engine import GameChanged, Seen
    from referee.store import Store

    run(db, "new", "Ann", "Bob", "Cy", "--first", "Cy")
    store = Store(db)
    referee = Referee(store, lambda: __import__("dictionaries.dictionary").dictionary.open_for_command())
    _, game = store.load(None)
    seen = Seen.of(game)
    referee.play(referee.prepare(None, "oral"), roll=12)  # another device, first
    with pytest.raises(GameChanged) as refused:
        referee.play(referee.prepare(None, "cat"), seen=seen)
    assert str(refused.value) == "Cy played ORAL meanwhile; it is Ann's turn now"
    referee.undo(None)
    with pytest.raises(GameChanged, match="the host undid Cy's ORAL"):
        referee.play(referee.prepare(None, "cat"), seen=Seen.of(game))


def test_whole_names_with_spaces_work_at_the_table(db: Path) -> None:
    run(db, "new", "Ann Lee", "Bob Ray", "--first", "ann lee", "--spell-binding")
    out = run(db, "table", input="discard oclnusm\nbob ray column\n/quit\n").output
    assert "Bob Ray names COLUMN" in out, out
    assert [e["by"] for e in events_of(db) if e["type"] == "bind_named"] == ["Bob Ray"]  # as the game spells it
    out = run(db, "table", input="leave ANN LEE\n").output
    assert "Ann Lee leaves the game" in out and "Bob Ray is the last player with pawns and wins!" in out


def test_a_number_at_the_word_prompt_is_a_roll_typed_too_early(db: Path) -> None:
    started(db)
    out = run(db, "table", input="12\n٣\n/quit\n").output
    assert "12 looks like a roll, but Cindi has not played a word yet" in out
    assert not [e for e in events_of(db) if e["type"] == "word_played"]


def test_in_spanish_a_command_word_asks_and_whose_turn_is_said(db: Path) -> None:
    started(db)
    out = run(db, "--lang", "es", "table", input="undo\np\n12\n/salir\n").output
    assert "UNDO: ¿jugar la palabra, o deshacer la última acción?" in out
    assert [e["word"] for e in events_of(db) if e["type"] == "word_played"] == ["UNDO"]
    refused = run(db, "--lang", "es", "play", "mint", "--roll", "11", "--as", "Sue").output
    assert "le toca a Paul, no a Sue" in refused


# -- issue 20: plain answers at the prompt, in English and in Spanish ------------------------------

def test_a_roll_that_is_not_a_number_reads_the_same_piped_or_typed(db: Path) -> None:
    started(db)
    out = run(db, "play", "look", input="twelve\n12\n").output
    assert "'twelve' is not a roll: type a number from 1 to 20" in out and "integer" not in out
    assert "Cindi rolls 12" in out
    out = run(db, "--lang", "es", "play", "champ", input="doce\n12\n").output
    assert "'doce' no es una tirada: escribe un número del 1 al 20" in out and "integer" not in out


def test_at_the_table_a_roll_out_of_range_and_a_word_read_alike(db: Path) -> None:
    started(db)
    out = run(db, "table", input="look\n21\nabc\n٣\n12\n/quit\n").output
    assert "Not understood: '21' is not a roll: type a number from 1 to 20" in out
    assert "Not understood: 'abc' is not a roll: type a number from 1 to 20" in out
    assert "Not understood: '٣' is not a roll" in out and "Refused" not in out and "Cindi rolls 12" in out


def test_no_answer_at_the_table_meets_clicks_developer_wording(db: Path) -> None:
    # An arrow key typed where the terminal has no line editing arrives as its escape sequence.
    started(db)
    out = run(db, "table", input="tae\x1b[Dk\nlook now\n/nope\nundo 1 2\namend x\nlook\n12\n/quit\n").output
    assert "Invalid value" not in out and "Error:" not in out and "Usage:" not in out
    assert "Not understood: 'tae\\x1b[Dk' has characters that are not letters" in out
    assert "Not understood: 'look now': type one word, or 'discard LETTERS'" in out
    assert "Not understood: '/nope' is not a command; type 'help'" in out
    assert "Not understood: Type 'undo' or 'undo N' (N actions)" in out
    assert out.count("Not understood: ") == 5 and "Cindi rolls 12" in out


def test_nothing_is_judged_once_the_game_is_over(db: Path) -> None:
    run(db, "new", "Ann", "Bob", "--first", "Ann", "--target", "5")
    run(db, "play", "champ", "--roll", "20")
    for lang, over in (("en", "The game is over: Ann won"), ("es", "La partida ha terminado")):
        result = run(db, "--lang", lang, "play", "zxq", "--roll", "3")
        assert result.exit_code == 1 and over in result.output, result.output
        assert "ZXQ" not in result.output  # no verdict before the refusal


def test_a_discard_folds_accents_as_a_play_does(db: Path) -> None:
    started(db, "--psychotherapy")
    assert run(db, "discard", "aeiouÉs").exit_code == 0
    assert events_of(db)[-1]["letters"].upper() == "AEIOUES"


@pytest.mark.parametrize("lang, said", [("en", "mixes letters of different scripts"),
                                        ("es", "mezcla letras de alfabetos distintos")])
def test_names_that_look_the_same_are_refused_with_a_reason(db: Path, lang: str, said: str) -> None:
    result = run(db, "--lang", lang, "new", "Ana", "Аna", "--first", "Ana")  # a Cyrillic А
    assert result.exit_code == 2 and said in result.output and not db.exists()
    result = run(db, "--lang", lang, "new", "Ana", "ΑΝΑ", "--first", "Ana")  # all Greek
    assert result.exit_code == 2 and "'Ana'" in result.output and "'ΑΝΑ'" in result.output


def test_a_long_name_is_cut_in_the_message(db: Path) -> None:
    result = run(db, "new", "Ann", "x" * 10_000, "--first", "Ann")
    assert result.exit_code == 2 and "x" * 40 + "…" in result.output and len(result.output) < 1000


def test_spell_binding_says_the_best_word_only_when_the_table_missed_one(tmp_path: Path, dictionary) -> None:  # type: ignore[no-untyped-def]
    from referee.actions import Referee
    from referee.engine import Options, RollOff, Setup
    from referee.store import Store

    referee = Referee(Store(tmp_path / "g.db"), lambda: dictionary)
    for named, hinted in (("retains", False), ("stain", True)):
        gid = referee.start(Setup(players=("Ann", "Bob"), options=Options(spell_binding=True)),
                            RollOff(first="Ann")).game_id
        referee.discard(gid, "retains")
        referee.bind(referee.prepare(gid, named), "Bob")
        notes = " ".join(referee.bind_done(gid).notes)
        assert ("The best word the letters RETAINS allowed" in notes) is hinted, notes


# -- issue 20: Spanish without English left in -------------------------------------------------------

def spanish(db: Path, *args: str) -> str:
    """What a real ``uw-referee --lang es`` prints (help texts are chosen when the commands are loaded)."""
    exe = [sys.executable, "-c", "from referee.quick import main; main()", "--lang", "es", "--db", str(db)]
    done = subprocess.run([*exe, *args], capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    return done.stdout + done.stderr


@pytest.mark.slow  # real processes
def test_spanish_help_and_usage_have_spanish_placeholders(db: Path) -> None:
    play_help = spanish(db, "play", "--help")
    assert "[OPCIONES] PALABRA" in play_help and "WORD" not in play_help and "INTEGER" not in play_help
    undo_help = spanish(db, "undo", "--help")
    assert "las últimas ACCIONES acciones" in undo_help and "ACTIONS" not in undo_help
    check_help = spanish(db, "check", "--help")
    assert "Juzga PALABRAS" in check_help and "WORDS" not in check_help
    new_help = spanish(db, "new", "--help")
    assert "NOMBRES..." in new_help and "--first NOMBRE" in new_help and "ARCHIVO" in new_help
    assert not re.search(r"\b(NAMES?|FILE|PATH)\b", new_help)
    amend_help = spanish(db, "amend", "--help")
    assert "obligatorio" in amend_help and "required" not in amend_help and "[ACCIÓN]" in amend_help
    bad = spanish(db, "check", "ta2ps")
    assert "Valor no válido para PALABRA" in bad and "WORD" not in bad


def test_spanish_deck_name_and_discard_example(db: Path) -> None:
    out = run(db, "--lang", "es", "check", "pizzazz").output
    assert "mazo estándar" in out and "standard" not in out
    run(db, "new", "Ana", "Beto", "--first", "Ana", "--psychotherapy")
    out = run(db, "--lang", "es", "table", input="descartar\n/salir\n").output
    assert "por ejemplo: OCLNUSM" in out and "discard" not in out


@pytest.mark.parametrize("typed, command", [("deshacer", "undo"), ("estado", "status"), ("descartar", "discard"),
                                            ("corregir", "amend")])
def test_a_spanish_table_word_at_the_shell_names_its_command(db: Path, typed: str, command: str) -> None:
    result = run(db, "--lang", "es", typed)
    # both commands name the database the game is in (not the default one), as typed
    assert result.exit_code == 2 and f"en la consola es '{command}' ('uw-referee --db {db} {command}')" in result.output
    assert f"dentro de 'uw-referee --db {db} table'" in result.output
    assert result.output.count("uw-referee ") == 2  # no other command suggested

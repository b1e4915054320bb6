"""Short runs of the kill test and the concurrent tables (reliability/), the bounded wait for a
locked database, and proofs that their checkers catch what they look for."""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.store import Store
from reliability.common import Outcome, Snapshot, integrity, run_referee, snapshot
from reliability.concurrency import Report as TablesReport
from reliability.concurrency import Sent, check_game, hold_lock_while, run_concurrency
from reliability.kill_test import Command, KillTestFailure, classify, run_kill_test

pytestmark = pytest.mark.slow  # real uw-referee processes killed, raced and soaked

# -- kill test ------------------------------------------------------------------------------------


def test_kill_test_short(tmp_path: Path) -> None:
    """12 SIGKILLs in a long game: integrity ok, nothing lost, nothing half-applied, the game goes on."""
    report = run_kill_test(tmp_path / "games.sqlite3", kills=12, seed=7)
    assert report.kills == 12 and report.kills_aimed >= 3 and report.kills_random >= 3  # both kinds land (which kind a kill is depends on timing)
    assert report.killed_after_commit + report.killed_before_commit == 12
    assert (report.actions_lost, report.half_applied, report.continue_failures, report.failures) == (0, 0, 0, [])
    assert report.integrity_checks >= report.kills and report.export_checks >= 1
    assert report.words_played >= 5


def _played(events: list[tuple[str, str, int | None]]) -> list[tuple[str, dict[str, Any]]]:
    """Stored-like events of the main game after its set-up: (type, player, roll)."""
    out: list[tuple[str, dict[str, Any]]] = [("t0", {"type": "created"}), ("t1", {"type": "roll_off"})]
    for i, (kind, player, roll) in enumerate(events):
        event: dict[str, Any] = {"type": kind, "player": player}
        if kind == "word_played":
            event.update(word=f"W{i}", score=4)
        if kind == "sanity_rolled":
            event["roll"] = roll
        out.append((f"t{i + 2}", event))
    return out


def test_kill_checker_catches_a_half_applied_play_and_a_lost_action() -> None:
    before = Snapshot({1: _played([("discarded", "Ann", None)])})
    play = Command("play_roll", ("play", "look", "--roll", "20"), word="LOOK", roll=20, player="Bob")
    whole = before.events(1) + [("x", {"type": "word_played", "player": "Bob", "word": "LOOK"}),
                                ("x", {"type": "sanity_rolled", "player": "Bob", "roll": 20})]
    assert classify(before, Snapshot({1: whole}), play) is True
    assert classify(before, before, play) is False
    with pytest.raises(KillTestFailure, match="HALF-APPLIED"):
        classify(before, Snapshot({1: whole[:-1]}), play)        # the play without its roll
    with pytest.raises(KillTestFailure, match="LOST"):
        classify(before, Snapshot({1: whole[:2] + whole[3:]}), play)  # a recorded discard vanished
    new = Command("new", ("new", "A", "B", "--first", "A"))
    with pytest.raises(KillTestFailure, match="half-created"):
        classify(before, Snapshot({1: before.events(1), 2: [("x", {"type": "created", "setup": {"players": ["A", "B"]}})]}),
                 new)


# -- concurrent tables ----------------------------------------------------------------------------

def test_concurrent_tables_short(tmp_path: Path) -> None:
    """Two games, two terminals each, at once: nothing lost or doubled, turns kept, no raw lock error."""
    report = run_concurrency(tmp_path / "games.sqlite3", games=2, terminals=2, commands=8, parallel=4, seed=3)
    assert report.failures == []
    assert report.commands == 32 and report.ok >= 8 and report.errors == 0 and report.locked_messages == 0
    assert (report.lost, report.duplicated, report.refused_but_recorded, report.turn_order_violations,
            report.replay_failures) == (0, 0, 0, 0, 0)
    assert report.integrity == "ok"


def _sent(game: int, kind: str, word: str | None, code: int) -> Sent:
    stderr = "" if code == 0 else "Refused: it is not your turn. Nothing was changed."
    return Sent(game, "t", kind, word, Outcome((), code, "", stderr, 0.1))


def _real_game(*steps: tuple[str, str, int | None]) -> list[tuple[str, dict[str, Any]]]:
    """Events as the referee stores them: a game of Ann, Bob and Cy, then (type, player, roll) steps."""
    from referee.engine import Discarded, Game, RollOff, SanityRolled, Setup, WordPlayed

    game = Game(Setup(players=("Ann", "Bob", "Cy")))
    game.apply(RollOff(first="Ann"))
    for i, (kind, player, roll) in enumerate(steps):
        if kind == "word_played":
            game.apply(WordPlayed(player, ("LOOK", "TAPS", "CHAMP")[i % 3], (4, 10, 15)[i % 3], True))
        elif kind == "sanity_rolled":
            game.apply(SanityRolled(player, roll or 20))
        else:
            game.apply(Discarded(player))
    return [(f"t{i}", e.to_dict()) for i, e in enumerate(game.events)]


def test_tables_checker_catches_lost_doubled_and_out_of_turn_actions() -> None:
    events = _real_game(("word_played", "Ann", None), ("sanity_rolled", "Ann", 20), ("discarded", "Bob", None))
    sent = [_sent(1, "play_roll", "LOOK", 0), _sent(1, "discard", None, 0)]
    report = TablesReport()
    check_game(1, events, sent, report)
    assert report.failures == [] and report.actions_recorded == 2
    lost = TablesReport()
    check_game(1, events, [*sent, _sent(1, "play_roll", "RUM", 0)], lost)
    assert lost.lost == 2 and lost.failures           # RUM's play and roll exited 0 but are not there
    refused = TablesReport()
    check_game(1, events, [_sent(1, "play_roll", "LOOK", 1), _sent(1, "discard", None, 0)], refused)
    assert refused.refused_but_recorded == 1          # a refused play is in the record
    doubled = TablesReport()
    check_game(1, events + events[2:4], sent, doubled)
    assert doubled.duplicated >= 1
    out_of_turn = events[:2] + [("t", {**e, "player": "Bob"}) for _, e in events[2:4]]
    order = TablesReport()
    check_game(1, out_of_turn, sent[:1], order)
    assert order.turn_order_violations == 1 and order.replay_failures == 1


def test_lock_held_within_the_bound_waits_then_succeeds(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    assert run_referee(db, "new", "Ann", "Bob", "--first", "Ann").code == 0
    result = hold_lock_while(db, 1.5, "discard")
    assert result.outcome.code == 0, result.outcome.describe()
    assert result.waited_s >= 1.4 and result.recorded
    assert "locked" not in result.outcome.stderr


def test_lock_held_past_the_bound_gives_one_clear_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's own path with the bound shortened to 0.5 s (the real 10 s: reliability/concurrency.py)."""
    db = tmp_path / "games.sqlite3"
    assert run_referee(db, "new", "Ann", "Bob", "--first", "Ann").code == 0
    before = snapshot(db)
    monkeypatch.setattr(Store.__init__, "__kwdefaults__", {**(Store.__init__.__kwdefaults__ or {}), "timeout": 0.5})
    import sqlite3

    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        results = [CliRunner().invoke(cli, ["--db", str(db), *args]) for args in (["discard"], ["play", "taps", "--roll", "5"],
                                                                                  ["undo"], ["new", "C", "D", "--first", "C"])]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    for result in results:
        assert result.exit_code == 1, result.output
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert lines[-1].startswith("Error: ") and "is busy" in lines[-1] and "try again" in lines[-1], result.output
        assert "database is locked" not in result.output and "Traceback" not in result.output
    assert snapshot(db).games == before.games and integrity(db) == "ok"


def test_outcome_counts_are_consistent() -> None:
    """The concurrency report's result classes: exit 0, a rules refusal, the busy line, anything else."""
    busy = Outcome((), 1, "", "Error: x is busy: another uw-referee kept it locked for 10 s. Nothing was changed; "
                               "try again.\n", 10.0)
    raw = Outcome((), 1, "", "sqlite3.OperationalError: database is locked\n", 10.0)
    kinds = Counter(Sent(1, "t", "discard", None, o).result for o in (
        Outcome((), 0, "", "", 0.1), Outcome((), 1, "", "Refused: no. Nothing was changed.\n", 0.1), busy, raw))
    assert kinds == Counter({"ok": 1, "refused": 1, "busy": 1, "error": 1})

"""The game-flow library's corrections (issue 9): amend, redo, leave, and Spell Binding with nothing to bind."""
from __future__ import annotations

from pathlib import Path

import pytest

from dictionaries.dictionary import Dictionary
from referee.actions import AmendRefused, Referee, RequestError
from referee.engine import NothingToUndo, Options, Phase, RollOff, RulesError, Setup
from referee.store import Store


@pytest.fixture()
def referee(tmp_path: Path, dictionary: Dictionary) -> Referee:
    return Referee(Store(tmp_path / "g.sqlite3"), lambda: dictionary)


def start(referee: Referee, **options: bool) -> int:
    setup = Setup(players=("Ann", "Bob"), options=Options(**options), card_accounting=True)
    return referee.start(setup, RollOff(first="Ann")).game_id


def play(referee: Referee, gid: int, word: str, roll: int) -> None:
    referee.play(referee.prepare(gid, word, roll=roll), roll=roll)


def test_amend_the_latest_roll_and_one_by_its_number(referee: Referee) -> None:
    gid = start(referee)
    play(referee, gid, "champ", 16)
    play(referee, gid, "look", 7)
    amended = referee.amend(gid, 2)
    assert (amended.seq, amended.old, amended.new, amended.player) == (5, 7, 2, "Bob")
    assert amended.state.player("Bob").pawns == 4
    amended = referee.amend(gid, 3, at=2)  # event 2 is CHAMP: its roll is event 3
    assert amended.seq == 3 and amended.state.player("Ann").pawns == 4 and amended.state.player("Ann").score == 15
    _, corrections = referee.store.corrections(gid)
    assert [(c["type"], c["seq"], c["old"], c["new"]) for _, c in corrections] == [("amend", 5, 7, 2),
                                                                                    ("amend", 3, 16, 3)]


def test_an_amendment_that_makes_a_later_action_impossible_is_refused_and_changes_nothing(referee: Referee) -> None:
    gid = Referee.start(referee, Setup(players=("Ann", "Bob"), target=15), RollOff(first="Ann")).game_id
    play(referee, gid, "champ", 3)  # 15 would reach the target: the failed roll scores 0
    play(referee, gid, "look", 7)
    before = referee.store.history(gid)[2]
    with pytest.raises(AmendRefused, match="event 4 .*becomes impossible: the game is over: Ann won"):
        referee.amend(gid, 20, at=3)
    assert referee.store.history(gid)[2] == before
    with pytest.raises(RulesError, match="already 7"):
        referee.amend(gid, 7)
    with pytest.raises(RulesError, match="no roll to amend"):
        referee.amend(gid, 7, at=1)


def test_amending_is_for_physical_dice(tmp_path: Path, referee: Referee) -> None:
    result = referee.start(Setup(players=("Ann", "Bob"), dice="virtual", seed=3))
    referee.play(referee.prepare(result.game_id, "champ"))
    with pytest.raises(RequestError, match="virtual dice"):
        referee.amend(result.game_id, 5)


def test_redo_is_gone_once_the_table_takes_a_new_action(referee: Referee) -> None:
    gid = start(referee)
    play(referee, gid, "champ", 16)
    referee.undo(gid)
    assert referee.redo(gid).state.player("Ann").score == 15
    referee.undo(gid)
    referee.discard(gid)
    with pytest.raises(NothingToUndo, match="nothing to redo"):
        referee.redo(gid)


def test_spell_binding_with_nothing_to_bind_goes_on_at_once(referee: Referee) -> None:
    gid = start(referee, spell_binding=True)
    result = referee.discard(gid, "bcdfghj")
    assert "No legal unused word can be made from BCDFGHJ: Spell Binding has nothing to bind." in result.notes
    assert result.state.phase is Phase.ACTION and result.state.current.name == "Bob"  # type: ignore[union-attr]
    result = referee.discard(gid, "oclnusm")
    assert result.state.phase is Phase.SPELL_BINDING


def test_leave_through_the_library(referee: Referee) -> None:
    gid = start(referee)
    result = referee.leave(gid, "bob")
    assert result.state.is_over() and result.outcome is not None and result.outcome.winner == "Ann"

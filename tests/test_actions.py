"""The game-flow library's corrections (issue 9): amend, redo, leave, and Spell Binding with nothing to bind."""
from __future__ import annotations

from pathlib import Path

import pytest

from dictionaries.dictionary import Dictionary
from dictionaries.i18n import say
from referee.actions import AmendRefused, Referee, RequestError, Result
from referee.engine import NothingToUndo, Options, Phase, RollOff, RulesError, Seen, Setup
from referee.store import Store


@pytest.fixture()
def referee(tmp_path: Path, dictionary: Dictionary) -> Referee:
    return Referee(Store(tmp_path / "g.sqlite3"), lambda: dictionary)


def start(referee: Referee, **options: bool) -> int:
    setup = Setup(players=("Ann", "Bob"), options=Options(**options), card_accounting=True)
    return referee.start(setup, RollOff(first="Ann")).game_id


def play(referee: Referee, gid: int, word: str, roll: int) -> None:
    referee.play(referee.prepare(gid, word), roll=roll)


def test_amend_the_latest_roll_and_one_by_its_number(referee: Referee) -> None:
    gid = start(referee)
    play(referee, gid, "champ", 16)
    play(referee, gid, "look", 7)
    amended = referee.amend(gid, 2)
    assert (amended.seq, amended.old, amended.new, amended.player) == (5, 7, 2, "Bob")
    assert amended.state.player("Bob").pawns == 4
    amended = referee.amend(gid, 3, at=1)  # action 1 is CHAMP with its roll (events 2 and 3)
    assert amended.seq == 3 and amended.state.player("Ann").pawns == 4 and amended.state.player("Ann").score == 15
    _, corrections = referee.store.corrections(gid)
    assert [(c["type"], c["seq"], c["old"], c["new"]) for _, c in corrections] == [("amend", 5, 7, 2),
                                                                                    ("amend", 3, 16, 3)]


def test_an_amendment_that_makes_a_later_action_impossible_is_refused_and_changes_nothing(referee: Referee) -> None:
    gid = Referee.start(referee, Setup(players=("Ann", "Bob"), target=15), RollOff(first="Ann")).game_id
    play(referee, gid, "champ", 3)  # 15 would reach the target: the failed roll scores 0
    play(referee, gid, "look", 7)
    before = referee.store.history(gid)[2]
    with pytest.raises(AmendRefused, match="in action 1, action 2 .*becomes impossible: the game is over: Ann won"):
        referee.amend(gid, 20, at=1)
    assert referee.store.history(gid)[2] == before
    with pytest.raises(RulesError, match="already 7"):
        referee.amend(gid, 7)
    with pytest.raises(RulesError, match="action 0 is the set-up"):
        referee.amend(gid, 7, at=0)


def test_amending_is_for_physical_dice(referee: Referee) -> None:
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
    assert result.state.phase is Phase.ACTION and result.state.current.name == "Bob"  # type: ignore[union-attr]  # under way: there is a current player
    result = referee.discard(gid, "oclnusm")
    assert result.state.phase is Phase.SPELL_BINDING


def test_leave_through_the_library(referee: Referee) -> None:
    gid = start(referee)
    result = referee.leave(gid, "bob")
    assert result.state.is_over() and result.outcome is not None and result.outcome.winner == "Ann"


# -- issue 20: corrections always work -------------------------------------------------------------

def test_an_amended_roll_drops_a_psychotherapy_that_can_no_longer_happen(referee: Referee) -> None:
    gid = start(referee, psychotherapy=True)
    play(referee, gid, "cat", 3)       # Ann fails: 4 pawns
    play(referee, gid, "dog", 20)
    referee.discard(gid, "bdfghjw")
    referee.roll(gid, skip=True)       # Psychotherapy offered to Ann, who has lost a pawn: skipped
    amended = referee.amend(gid, 13, at=1)  # CAT passes after all: Ann never lost a pawn
    assert any("Ann's skipped Psychotherapy is dropped" in say(note) for note in amended.notes)
    assert amended.state.player("Ann").pawns == 5 and amended.state.current.name == "Bob"  # type: ignore[union-attr]  # under way: there is a current player
    kinds = [e.kind for _, e in referee.store.history(gid)[2]]
    assert "psychotherapy_rolled" not in kinds


def test_an_amended_roll_that_now_offers_psychotherapy_counts_it_as_skipped(referee: Referee) -> None:
    gid = start(referee, psychotherapy=True)
    play(referee, gid, "cat", 13)
    play(referee, gid, "dog", 20)
    referee.discard(gid, "bdfghjw")    # Ann has all her pawns: no Psychotherapy
    play(referee, gid, "mint", 20)
    amended = referee.amend(gid, 3, at=1)
    assert any("counts as skipped" in say(note) for note in amended.notes)
    assert amended.state.player("Ann").pawns == 4 and amended.state.player("Bob").score == 4 + 11  # MINT stands


def test_amending_keeps_what_can_be_redone(referee: Referee) -> None:
    gid = start(referee)
    play(referee, gid, "champ", 16)
    play(referee, gid, "look", 7)
    referee.undo(gid)
    referee.amend(gid, 2, at=1)
    redone = referee.redo(gid)
    assert [e.kind for e in redone.restored] == ["word_played", "sanity_rolled"]
    assert redone.state.player("Ann").pawns == 4 and redone.state.player("Bob").score == 4


def test_a_roll_off_roll_is_amended_by_name_and_round_until_the_first_action(referee: Referee) -> None:
    setup = Setup(players=("Ann", "Bob"))
    gid = referee.start(setup, RollOff(((("Ann", 3), ("Bob", 3)), (("Ann", 5), ("Bob", 2))))).game_id
    assert referee.store.load(gid)[1].state.current.name == "Ann"  # type: ignore[union-attr]  # under way: there is a current player
    amended = referee.amend_roll_off(gid, "bob", 2, 6)
    assert amended.state.current.name == "Bob" and amended.action == 0  # type: ignore[union-attr]  # under way: there is a current player
    with pytest.raises(AmendRefused, match="still tied"):
        referee.amend_roll_off(gid, "Ann", 2, 6)
    play(referee, gid, "cat", 12)
    with pytest.raises(RulesError, match="only until the game's first action"):
        referee.amend_roll_off(gid, "Bob", 2, 1)


def test_a_roll_off_amendment_that_decides_an_earlier_round_drops_the_later_ones(referee: Referee) -> None:
    setup = Setup(players=("Ann", "Bob", "Cy"))
    gid = referee.start(setup, RollOff(((("Ann", 12), ("Bob", 15), ("Cy", 15)), (("Bob", 9), ("Cy", 4))))).game_id
    amended = referee.amend_roll_off(gid, "Ann", 1, 16)  # refused before: "later rounds are not needed"
    assert amended.state.current.name == "Ann"  # type: ignore[union-attr]  # under way: there is a current player
    assert [str(n) for n in amended.notes] == ["Round 2 of the roll-off is no longer needed: dropped."]
    roll_off = referee.store.history(gid)[2][1][1]
    assert roll_off == RollOff(((("Ann", 16), ("Bob", 15), ("Cy", 15)),))
    # Bob tied with Ann now needs a round nobody rolled: refused, with the reason, and nothing changes.
    with pytest.raises(AmendRefused, match="still tied between Ann, Bob"):
        referee.amend_roll_off(gid, "Bob", 1, 16)
    assert referee.store.history(gid)[2][1][1] == roll_off


def test_actions_are_numbered_the_same_with_spell_binding(referee: Referee) -> None:
    gid = start(referee, spell_binding=True)
    referee.discard(gid, "bcdfghk")    # nothing to bind: the referee closes Spell Binding itself
    play(referee, gid, "cat", 20)
    amended = referee.amend(gid, 5, at=2)  # the table's second action, as without Spell Binding
    assert (amended.action, amended.player, amended.old) == (2, "Bob", 20)


def test_a_pass_in_spell_binding_is_recorded_and_the_phones_naming_closes_when_all_acted(referee: Referee) -> None:
    from referee.moves import PassBinding

    gid = referee.start(Setup(players=("Ann", "Bob", "Cy"), options=Options(spell_binding=True)),
                        RollOff(((("Ann", 9), ("Bob", 2), ("Cy", 1)),))).game_id
    discarded = referee.discard(gid, "oclnusm")
    assert discarded.state.binding_waits_for({"ann", "bob", "cy"}) == ["Bob", "Cy"]
    assert discarded.state.binding_waits_for({"bob"}) == ["Bob"]  # only the players on phones are waited for
    passed = referee.act(gid, PassBinding("cy"), seen=discarded.game.version)
    assert isinstance(passed, Result)
    assert passed.notes == ("Cy names no word from Ann's discard.",)
    assert referee.close_when_all_acted(passed, {"ann", "bob", "cy"}) == passed  # Bob has yet to name or pass
    with pytest.raises(RulesError, match="already named a word or passed"):
        referee.act(gid, PassBinding("Cy"), seen=passed.game.version)
    with pytest.raises(RulesError, match="only the other players"):
        referee.act(gid, PassBinding("Ann"), seen=passed.game.version)
    named = referee.bind(referee.prepare(gid, "column"), "Bob", seen=Seen.of(passed.game))
    closed = referee.close_when_all_acted(named, {"ann", "bob", "cy"})
    assert closed.state.pending is not None and closed.state.pending.word == "COLUMN"
    assert referee.undo(gid).state.phase.value == "spell_binding"  # the close, then the naming, undone as actions


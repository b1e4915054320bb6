"""The engine's part of issue 9 against RULES.txt section 6: card accounting, a player leaving, virtual
rolls after an undo, and words for people (the target total, "needs a 20", nothing drawn after the end)."""
from __future__ import annotations

import pytest

from dictionaries.deck import STANDARD
from referee.engine import (
    CardsRefused,
    Discarded,
    Game,
    Options,
    PlayerLeft,
    RollOff,
    RulesError,
    SanityRolled,
    Setup,
    State,
    WordPlayed,
    WordRefused,
    WrongPhase,
)


def new_game(*names: str, cards: bool = True, **options: bool) -> Game:
    game = Game(Setup(players=names or ("Ann", "Bob", "Cy"), options=Options(**options), card_accounting=cards))
    game.apply(RollOff(first=(names or ("Ann",))[0]))
    return game


def word(player: str, text: str, *, legal: bool = True, allowed: bool = False, reasons: tuple[str, ...] = ()
         ) -> WordPlayed:
    return WordPlayed(player, text, STANDARD.score(text), legal, reasons, allowed)


def play(game: Game, player: str, text: str, roll: int, *, legal: bool = True, allowed: bool = False) -> list[str]:
    notes = game.apply(word(player, text, legal=legal, allowed=allowed))
    return notes + game.apply(SanityRolled(player, roll))


def same_state(game: Game) -> State:
    """The state after a round trip through a snapshot (what the store keeps)."""
    return State.from_snapshot(game.state.to_snapshot())


# -- card accounting ------------------------------------------------------------------------------

def test_a_word_needing_a_card_face_up_in_the_discard_pile_is_refused_and_names_the_letter() -> None:
    game = new_game()
    play(game, "Ann", "QUART", 15)
    with pytest.raises(CardsRefused, match="the only Q is in the discard pile") as err:
        game.apply(word("Bob", "QUARTZ"))
    assert err.value.codes == ("discard_pile",)
    with pytest.raises(CardsRefused, match="the only Q is in the discard pile"):
        game.apply(Discarded("Bob", "XQZVWKJ"))
    assert game.state.current.name == "Bob"  # type: ignore[union-attr]  # refused: nothing changed


def test_counts_below_the_deck_say_how_many_can_be_in_a_hand() -> None:
    game = new_game()
    play(game, "Ann", "PEP", 20)  # both P face up
    with pytest.raises(CardsRefused, match="all 2 Ps are in the discard pile"):
        game.apply(word("Bob", "TAP"))
    play(game, "Bob", "HAH", 20)  # two of the three H
    with pytest.raises(CardsRefused, match="2 of the 3 Hs are in the discard pile, so at most 1"):
        game.apply(word("Cy", "HUSH"))
    play(game, "Cy", "THE", 20)  # one H is still in the draw pile or a hand: fine


def test_the_table_may_overrule_the_card_count_and_it_is_recorded() -> None:
    game = new_game()
    play(game, "Ann", "QUART", 15)
    notes = play(game, "Bob", "QUARTZ", 12, allowed=True)
    assert "the table overrules the card count: the only Q is in the discard pile" in notes[0]
    assert game.events[-2].allowed  # type: ignore[attr-defined]
    notes = game.apply(Discarded("Cy", "XQZVWKJ", allowed=True))
    assert "the table overrules the card count" in notes[0]


def test_a_word_refused_by_the_dictionary_names_the_card_count_too() -> None:
    game = new_game()
    play(game, "Ann", "QUART", 15)
    with pytest.raises(WordRefused, match="a proper noun; and Bob cannot hold it: the only Q") as err:
        game.apply(word("Bob", "QATAR", legal=False, reasons=("proper_noun",)))
    assert err.value.codes == ("proper_noun", "discard_pile")


def test_a_reshuffle_clears_the_count() -> None:
    game = new_game("Ann", "Bob")
    play(game, "Ann", "QUART", 15)
    assert game.state.face_up["Q"] == 1
    turn = "Bob"
    while game.state.draw_pile >= 7:
        game.apply(Discarded(turn))
        turn = "Ann" if turn == "Bob" else "Bob"
    assert game.state.face_up["Q"] == 1
    notes = game.apply(Discarded(turn))
    assert any("shuffle" in n for n in notes) and game.state.face_up == {}
    play(game, "Ann" if turn == "Bob" else "Bob", "QUIZ", 20)


def test_discarded_letters_count_and_eliminated_hands_do_not() -> None:
    game = new_game()
    game.apply(Discarded("Ann", "BCDFGHK"))
    with pytest.raises(CardsRefused, match="the only K"):
        game.apply(word("Bob", "KIT"))
    assert same_state(game).face_up == game.state.face_up


def test_games_without_card_accounting_replay_as_before() -> None:
    game = new_game(cards=False)
    play(game, "Ann", "QUART", 15)
    play(game, "Bob", "QUARTZ", 12)
    assert Setup.from_dict({k: v for k, v in game.setup.to_dict().items() if k != "card_accounting"}) == game.setup


# -- a player leaves ------------------------------------------------------------------------------

def test_a_player_who_leaves_is_out_and_the_hand_goes_to_the_discard_pile() -> None:
    game = new_game()
    discard = game.state.discard_pile
    notes = game.apply(PlayerLeft("Cy"))
    cy = game.state.player("Cy")
    assert cy.out and cy.left and cy.hand == 0 and game.state.discard_pile == discard + 7
    assert "Cy leaves the game with 0 points." in notes
    play(game, "Ann", "CHAMP", 20)
    play(game, "Bob", "LOOK", 20)
    assert game.state.current.name == "Ann"  # type: ignore[union-attr]  # Cy's turn is skipped
    assert same_state(game).player("Cy").left
    with pytest.raises(RulesError, match="already left"):
        game.apply(PlayerLeft("cy"))


def test_the_player_whose_turn_it_is_may_leave_before_the_roll() -> None:
    game = new_game()
    game.apply(word("Ann", "CHAMP"))
    notes = game.apply(PlayerLeft("Ann"))
    assert "CHAMP was not rolled for: it scores nothing." in notes
    assert game.state.current.name == "Bob" and game.state.player("Ann").score == 0  # type: ignore[union-attr]


def test_the_last_but_one_leaving_ends_the_game() -> None:
    game = new_game()
    play(game, "Ann", "CHAMP", 20)
    game.apply(PlayerLeft("Bob"))
    notes = game.apply(PlayerLeft("Ann"))
    assert game.state.is_over() and game.state.winner == "Cy"
    assert game.state.outcome is not None and game.state.outcome.termination.value == "last_standing"
    assert notes[-1] == "Cy is the last player with pawns and wins!"


def test_a_player_who_leaves_during_last_words_takes_no_final_turn() -> None:
    game = Game(Setup(players=("Ann", "Bob", "Cy"), target=10, options=Options(last_words=True)))
    game.apply(RollOff(first="Ann"))
    play(game, "Ann", "CHAMP", 20)
    assert game.state.last_words == [1, 2]
    game.apply(PlayerLeft("Cy"))  # not Cy's turn: Cy's final turn is dropped
    notes = play(game, "Bob", "LOOK", 20)
    assert game.state.is_over() and game.state.winner == "Ann"
    assert not any("draws" in n for n in notes)  # nothing about drawing once the game has ended


def test_the_current_player_leaving_during_last_words_passes_the_final_turn_on() -> None:
    game = Game(Setup(players=("Ann", "Bob", "Cy"), target=10, options=Options(last_words=True)))
    game.apply(RollOff(first="Ann"))
    play(game, "Ann", "CHAMP", 20)
    game.apply(PlayerLeft("Bob"))
    assert game.state.current.name == "Cy"  # type: ignore[union-attr]
    game.apply(PlayerLeft("Cy"))
    assert game.state.winner == "Ann"


def test_nobody_leaves_before_the_roll_off() -> None:
    game = Game(Setup(players=("Ann", "Bob")))
    with pytest.raises(WrongPhase):
        game.apply(PlayerLeft("Ann"))


# -- virtual rolls after an undo, and words ---------------------------------------------------------

def test_a_virtual_roll_after_an_undo_is_a_new_roll_and_replays_identically() -> None:
    game = Game(Setup(players=("Ann", "Bob"), dice="virtual", seed=7))
    rolls = []
    for generation in range(6):
        game.generation = generation
        rolls.append(game.virtual_roll())
    assert len(set(rolls)) > 1
    again = Game(Setup(players=("Ann", "Bob"), dice="virtual", seed=7))
    again.generation = 3
    assert again.virtual_roll() == rolls[3]


def test_a_failed_target_word_gives_the_total_it_would_have_reached() -> None:
    game = Game(Setup(players=("Ann", "Bob"), target=10))
    game.apply(RollOff(first="Ann"))
    notes = play(game, "Ann", "CHAMP", 3)
    assert "CHAMP would have reached 15 (the target is 10): it scores 0." in notes


def test_waiting_for_a_roll_says_what_the_roll_needs() -> None:
    game = new_game()
    game.apply(word("Ann", "WIZARD"[:6]))
    assert "(needs a 20)" in game.state.waiting_for()


# -- the end (RULES.txt 6: when the game ends, nobody draws, however it ended) -----------------------

def test_a_game_ended_by_last_words_draws_nothing_on_its_last_turn() -> None:
    game = Game(Setup(players=("Ann", "Bob"), target=10, options=Options(last_words=True), card_accounting=False))
    game.apply(RollOff(first="Ann"))
    play(game, "Ann", "QUARTZ", 20)      # Ann reaches the target: Bob's final turn
    draw, bob = game.state.draw_pile, game.state.player("Bob")
    play(game, "Bob", "SUN", 20)         # the game ends with it
    assert game.state.is_over() and game.state.draw_pile == draw and bob.hand == 7 - 3


def test_a_game_ended_by_the_target_draws_nothing_either() -> None:
    game = Game(Setup(players=("Ann", "Bob"), target=10, card_accounting=False))
    game.apply(RollOff(first="Ann"))
    draw = game.state.draw_pile
    play(game, "Ann", "QUARTZ", 20)
    assert game.state.is_over() and game.state.draw_pile == draw and game.state.player("Ann").hand == 1


def test_a_last_words_game_recorded_before_the_ruling_replays_as_it_was() -> None:
    setup = Setup(players=("Ann", "Bob"), target=10, options=Options(last_words=True), card_accounting=False)
    recorded = {k: v for k, v in setup.to_dict().items() if k != "ending_draw"}  # as an older version wrote it
    old = Setup.from_dict(recorded)
    assert old.ending_draw and old.to_dict() == recorded  # its kept state stays byte for byte
    assert setup.to_dict()["ending_draw"] is False and Setup.from_dict(setup.to_dict()) == setup
    game = Game(old)
    game.apply(RollOff(first="Ann"))
    play(game, "Ann", "QUARTZ", 20)
    play(game, "Bob", "SUN", 20)
    assert game.state.is_over() and game.state.player("Bob").hand == 7  # the last player drew, as then

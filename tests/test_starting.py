"""A new game's set-up from a table's choices (``referee.starting``): what ``uw-referee new`` and the hosted
board's form share."""
from __future__ import annotations

from pathlib import Path

import pytest

from dictionaries.deck import DOUBLE
from referee.engine import Options, Setup
from referee.events import SetupError, UnknownPlayer
from referee.starting import ChoiceError, first_roll_off, new_setup


def test_the_choices_make_the_set_up() -> None:
    setup = new_setup(("Ann", "Bob"), options=("oath", "last_words"), target=50, level=70, dice="virtual", seed=4,
                      card_accounting=False)
    assert setup.players == ("Ann", "Bob") and setup.target == 50 and setup.level == 70 and setup.seed == 4
    assert setup.options.oath and setup.options.last_words and not setup.options.psychotherapy
    assert not setup.card_accounting and setup.deck.name == "standard"
    assert new_setup(("Ann", "Bob")).seed == 0  # physical dice roll nothing
    assert 0 <= new_setup(("Ann", "Bob"), dice="virtual").seed < 2**31  # virtual dice without a seed: a random one
    assert new_setup(tuple("ABCDEFG"), deck=DOUBLE).deck.size == 192


@pytest.mark.parametrize(("names", "choices", "error", "said"), [
    (("Ann", "Bob"), {"options": ("oath", "fog")}, ChoiceError, "unknown optional rule 'fog'"),
    (("Ann", "Bob"), {"dice": "d6"}, ChoiceError, "unknown dice 'd6'"),
    (("Ann", "Bob"), {"seed": 1}, ChoiceError, "--seed is for virtual dice"),
    (("Ann", "ann"), {}, SetupError, "used twice"),
    (("Ann",), {}, SetupError, "2 to 8"),
    (tuple("ABCDEFG"), {}, SetupError, "larger deck"),
    (("Ann", "\u0410nn"), {}, SetupError, "look"),  # look-alike names (check_names)
])
def test_a_choice_that_does_not_fit_is_refused_in_words(names: tuple[str, ...], choices: dict[str, object],
                                                        error: type[Exception], said: str) -> None:
    from dictionaries.i18n import message_of, say

    with pytest.raises(error) as refused:
        new_setup(names, **choices)  # type: ignore[arg-type]
    assert said in say(message_of(refused.value))


def test_the_first_player_is_the_roll_off_the_table_made() -> None:
    setup = new_setup(("Ann", "Bob"))
    assert first_roll_off(setup, "bob").first == "Bob"  # type: ignore[union-attr]
    assert first_roll_off(setup, None) is None
    with pytest.raises(UnknownPlayer):
        first_roll_off(setup, "Zed")
    with pytest.raises(ChoiceError):
        first_roll_off(new_setup(("Ann", "Bob"), dice="virtual"), "Ann")


@pytest.mark.parametrize("players", [("-x", "Bob"), ("Ann", "--target")])
def test_the_next_game_command_runs_for_names_that_begin_with_a_dash(tmp_path: Path, players: tuple[str, str]) -> None:
    """A name may begin with '-' (a phone can join as '-x'): the suggested ``new`` puts the names after '--', so
    typed as printed it starts the same table rather than failing as an unknown option."""
    import shlex

    from cli_support import run

    from referee.starting import same_table_args

    setup = Setup(players=players, target=50, options=Options(spell_binding=True))
    command, *args = shlex.split(same_table_args(setup))  # the roll-off is the new game's own: told, not suggested
    result = run(tmp_path / "g.sqlite3", command, "--first", players[1], *args)
    assert result.exit_code == 0, result.output
    assert f"Game 1: {players[0]}, {players[1]}. Target 50" in result.output


def test_the_leave_command_a_phone_asks_for_runs_for_a_name_that_begins_with_a_dash(tmp_path: Path) -> None:
    import shlex

    from cli_support import run

    from referee.asking import asked_command

    db = tmp_path / "g.sqlite3"
    run(db, "new", "Bob", "Cy", "--first", "Bob", "--", "-x", check=True)
    result = run(db, *shlex.split(asked_command("leave", "-x", None)))
    assert result.exit_code == 0 and "-x leaves the game" in result.output, result.output

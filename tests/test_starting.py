"""A new game's set-up from a table's choices (``referee.starting``): what ``uw-referee new`` and the hosted
board's form share."""
from __future__ import annotations

import pytest

from dictionaries.deck import DOUBLE
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

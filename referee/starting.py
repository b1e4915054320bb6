"""A new game's set-up from a table's choices, as ``uw-referee new`` and the hosted board's start form make it:
one place that turns names, optional rules, dice, deck and target into a checked ``Setup`` and its roll-off.

The checks are the engine's (``Setup`` refuses a count of players, an empty, repeated or too long name, a deck too
small; ``check_names`` names that look alike); this module adds only what the choices themselves allow (a seed is
for virtual dice, the first player for physical ones) and the roll-off the table already made (``first``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from dictionaries.i18n import msg

if TYPE_CHECKING:
    from dictionaries.deck import Deck
    from referee.events import RollOff, Setup

#: The optional rules a game may switch on, by the names ``Options`` gives them (``--oath``, ``--spell-binding``...).
OPTION_NAMES = ("oath", "spell_binding", "psychotherapy", "last_words")
DICE = ("physical", "virtual")


class ChoiceError(ValueError):
    """Choices that go together badly (a seed for physical dice): the message says which (a usage error)."""


def new_setup(names: tuple[str, ...], *, options: tuple[str, ...] = (), target: int = 100, level: int | None = None,
              deck: Deck | None = None, dice: str = "physical", seed: int | None = None,
              card_accounting: bool = True) -> Setup:
    """The checked set-up of a game for ``names`` in seat order (a ``SetupError`` names what the rules refuse;
    a ``ChoiceError`` a choice that does not exist or fit). Virtual dice without a seed get a random one."""
    import random

    from dictionaries import DEFAULT_LEVEL
    from dictionaries.deck import STANDARD
    from referee.events import Options, Setup
    from referee.rules import check_names

    unknown = [o for o in options if o not in OPTION_NAMES]
    if unknown:
        raise ChoiceError(msg("unknown optional rule {name}: one of {names}", name=repr(unknown[0][:40]),
                              names=", ".join(OPTION_NAMES)))
    if dice not in DICE:
        raise ChoiceError(msg("unknown dice {dice}: physical or virtual", dice=repr(str(dice)[:40])))
    if seed is not None and dice != "virtual":
        raise ChoiceError(msg("--seed is for virtual dice: add --dice virtual"))
    if seed is None:
        seed = random.SystemRandom().randrange(2**31) if dice == "virtual" else 0
    setup = Setup(players=tuple(names), target=target, level=DEFAULT_LEVEL if level is None else level,
                  deck=STANDARD if deck is None else deck, dice=dice, card_accounting=card_accounting, seed=seed,
                  options=Options(**{name: name in options for name in OPTION_NAMES}))
    check_names(setup.players)
    return setup


def first_roll_off(setup: Setup, first: str | None) -> RollOff | None:
    """The roll-off the table already made (``first`` goes first, by any case of the name; an ``UnknownPlayer``
    when it names nobody at the table), or None: the referee rolls it off (virtual dice only)."""
    from referee.events import RollOff
    from referee.rules import Game

    if first is None:
        return None
    if setup.dice == "virtual":
        raise ChoiceError(msg("--first is for physical dice: with virtual dice the referee rolls off"))
    return RollOff(first=Game(setup).state.player(first).name)


def same_table_args(setup: Setup) -> str:
    """The arguments of ``uw-referee new`` (quoted for the shell) for the next game of the table that played
    ``setup``: the same players in the same seats and the same choices (the roll-off is the new game's own)."""
    import shlex

    from dictionaries import DEFAULT_LEVEL

    words = [f"--{name.replace('_', '-')}" for name in OPTION_NAMES if getattr(setup.options, name)]
    if setup.target != 100:
        words += ["--target", str(setup.target)]
    if setup.level != DEFAULT_LEVEL:
        words += ["--level", str(setup.level)]
    if setup.deck.name == "double":  # (a deck from a file is the table's to name again)
        words += ["--deck", "double"]
    if setup.dice != "physical":
        words += ["--dice", setup.dice]
    if not setup.card_accounting:
        words.append("--no-card-accounting")
    names = [shlex.quote(name) for name in setup.players]
    if any(name.startswith("-") for name in setup.players):  # a name like '-x' after '--', or it reads as an option
        return " ".join(["new", *words, "--", *names])
    return " ".join(["new", *names, *words])


__all__ = ["DICE", "OPTION_NAMES", "ChoiceError", "first_roll_off", "new_setup", "same_table_args"]

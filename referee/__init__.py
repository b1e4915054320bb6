"""The referee for Unspeakable Words: a pure rules engine, an event store, the game flow as a library,
and its faces (the ``uw-referee`` commands, the ``table`` loop, the live board).

The front door (docs/library.md)::

    from referee import Referee, Store, Setup, RollOff
    referee = Referee(Store("games.sqlite3"), open_for_command)
    game = referee.start(Setup(players=("Ann", "Bob")), RollOff(first="Ann"))

``Referee`` takes a table's actions (start, prepare and play, roll, discard, bind, undo, redo, amend,
leave) over a ``Store`` (the games database) and returns values (``Result``, ``Amended``) that say what
happened and what the game ``Waiting`` for now; a refusal is a ``RulesError`` (nothing changed). The
names are loaded when first used, so ``import referee`` costs nothing a command does not need.
"""
from __future__ import annotations

import os

from dictionaries.i18n import register_catalog
from unspeakable_words import __version__

register_catalog("referee", os.path.join(os.path.dirname(os.path.abspath(__file__)), "locale"))

TYPE_CHECKING = False
if TYPE_CHECKING:  # the checkers see the names; at run time they load when first used (``__getattr__``)
    from typing import Any

    from referee.actions import Amended, AmendRefused, Prepared, Referee, RequestError, Result, Waiting
    from referee.engine import (
        BadLetters,
        BadRoll,
        CardsRefused,
        GameChanged,
        GameOver,
        NothingToUndo,
        Options,
        Outcome,
        Phase,
        RollOff,
        RulesError,
        Seen,
        Setup,
        SetupError,
        UnknownPlayer,
        WordRefused,
        WrongPhase,
    )
    from referee.store import NoGame, Store, StoreError

#: Each public name and the module that defines it.
_EXPORTS = {
    "Referee": "referee.actions", "Result": "referee.actions", "Amended": "referee.actions",
    "Prepared": "referee.actions", "Waiting": "referee.actions", "RequestError": "referee.actions",
    "AmendRefused": "referee.actions",
    "Store": "referee.store", "StoreError": "referee.store", "NoGame": "referee.store",
    "Setup": "referee.engine", "Options": "referee.engine", "RollOff": "referee.engine", "Outcome": "referee.engine",
    "Phase": "referee.engine", "Seen": "referee.engine", "RulesError": "referee.engine",
    "SetupError": "referee.engine", "WrongPhase": "referee.engine", "GameOver": "referee.engine",
    "UnknownPlayer": "referee.engine", "WordRefused": "referee.engine", "CardsRefused": "referee.engine",
    "BadRoll": "referee.engine", "BadLetters": "referee.engine", "NothingToUndo": "referee.engine",
    "GameChanged": "referee.engine",
}

__all__ = [
    "__version__", "Referee", "Result", "Amended", "Prepared", "Waiting", "RequestError", "AmendRefused", "Store",
    "StoreError", "NoGame", "Setup", "Options", "RollOff", "Outcome", "Phase", "Seen", "RulesError", "SetupError",
    "WrongPhase", "GameOver", "UnknownPlayer", "WordRefused", "CardsRefused", "BadRoll", "BadLetters",
    "NothingToUndo", "GameChanged",
]


def __getattr__(name: str) -> Any:
    """Load a public name from its module when it is first used (PEP 562)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'referee' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)

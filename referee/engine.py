"""The rules engine's public face: a game is its set-up plus a list of events; its state comes from replaying them.

Pure: no SQLite, no Click, no dictionary. An event stores the facts decided when it happened (the verdict, the
score, a table override), so a replay never asks the dictionary again. Three rooms behind this name:
``referee.events`` (the set-up, the events, the corrections and the errors), ``referee.state`` (what they add up
to) and ``referee.rules`` (``Game.apply``, which checks every rule and ruling of RULES.txt before it changes
anything, so a refused event leaves the game as it was). Import from here, as programs and the tests do.
"""
from __future__ import annotations

from dictionaries.rules import DIE, HAND_SIZE, MIN_WORD_LETTERS, PAWNS  # the rule numbers, offered here as always
from referee.events import (
    EVENT_TYPES,
    MAX_NAME,
    MAX_PLAYERS,
    MAX_PLAYERS_STANDARD,
    MIN_PLAYERS,
    BadLetters,
    BadRoll,
    BindDone,
    BindNamed,
    CardsRefused,
    Correction,
    CorrectionKind,
    Created,
    Discarded,
    Event,
    GameChanged,
    GameOver,
    NothingToUndo,
    NotTheirTurn,
    NotYours,
    Options,
    PlayerLeft,
    PsychotherapyRolled,
    RollOff,
    RulesError,
    SanityRolled,
    Setup,
    SetupError,
    UnknownPlayer,
    WordPlayed,
    WordRefused,
    WrongPhase,
    event_from_dict,
    generation_of,
)
from referee.rules import (
    Game,
    Seen,
    action_starts,
    check_names,
    check_roll,
    check_roll_off,
    is_letters,
    name_skeleton,
    redo_events,
    undo_events,
    undo_point,
)
from referee.state import (
    DiscardWindow,
    Outcome,
    Pending,
    Phase,
    Player,
    State,
    Termination,
    Waiting,
    waiting,
)

__all__ = [
    "DIE", "HAND_SIZE", "MIN_WORD_LETTERS", "PAWNS",
    "BadLetters", "BadRoll", "BindDone", "BindNamed", "CardsRefused", "Correction", "CorrectionKind", "Created",
    "DiscardWindow", "Discarded", "EVENT_TYPES", "Event", "Game", "GameChanged", "GameOver", "NotTheirTurn", "NotYours", "MAX_NAME",
    "MAX_PLAYERS", "MAX_PLAYERS_STANDARD", "MIN_PLAYERS", "NothingToUndo", "Options", "Outcome", "Pending", "Phase",
    "Player", "PlayerLeft", "PsychotherapyRolled", "RollOff", "RulesError", "SanityRolled", "Seen", "Setup",
    "SetupError", "State", "Termination", "Waiting", "UnknownPlayer", "WordPlayed", "WordRefused", "WrongPhase",
    "action_starts", "check_names", "check_roll", "check_roll_off", "event_from_dict", "generation_of",
    "is_letters", "name_skeleton", "redo_events", "undo_events", "undo_point", "waiting",
]

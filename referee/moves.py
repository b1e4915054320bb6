"""What a face asks the referee to do, one value per action (and a word judged ahead, ``Prepared``), for its one
write path (``Referee.act``): the CLI, ``table``, the phones, the host's page, the hosted API and the library all
name their action with these."""
from __future__ import annotations

from referee.values import value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dictionaries.verdict import Verdict
    from referee.events import Setup


@value(frozen=True)
class Prepared:
    """A word judged for a game by ``Referee.prepare``, before any lock is taken: the game, its set-up and the
    verdict. Only the referee that judged it plays it (a verdict made elsewhere is refused)."""

    game_id: int
    setup: Setup
    verdict: Verdict
    judged_by: object = None


@value(frozen=True)
class Play:
    """Play a word (as typed, judged in the write with the game's level and deck, or ``Prepared``), with its
    sanity roll when it is known (physical dice); ``allow``: the table overrules a refusal."""

    word: str | Prepared
    roll: int | None = None
    allow: bool = False


@value(frozen=True)
class Roll:
    """The roll the game waits for: a sanity check or Psychotherapy (``skip``: the discarder does not roll)."""

    value: int | None = None
    skip: bool = False


@value(frozen=True)
class Discard:
    """Discard the hand (its ``letters`` when Spell Binding or Psychotherapy need them)."""

    letters: str | None = None
    allow: bool = False


@value(frozen=True)
class Bind:
    """Spell Binding: ``by`` names ``word`` from the discarded letters (empty: the seat that acts)."""

    word: str | Prepared
    by: str = ""
    allow: bool = False


@value(frozen=True)
class CloseBinding:
    """Close Spell Binding."""


@value(frozen=True)
class Undo:
    """Take back the last ``actions`` actions."""

    actions: int = 1


@value(frozen=True)
class Redo:
    """Put back the last ``actions`` undone actions."""

    actions: int = 1


@value(frozen=True)
class Leave:
    """A player leaves the game."""

    name: str


@value(frozen=True)
class Amend:
    """Correct a past roll: the latest, or the one of the action numbered ``at``."""

    roll: int
    at: int | None = None


@value(frozen=True)
class AmendRollOff:
    """Correct ``name``'s roll in round ``round`` of the roll-off."""

    name: str
    round: int
    roll: int


Move = Play | Roll | Discard | Bind | CloseBinding | Undo | Redo | Leave | Amend | AmendRollOff
#: The moves that are the turn's player's alone: a seat makes them only on its own turn.
TURN_MOVES = (Play, Roll, Discard, CloseBinding)
#: The moves a seat may make on its own (the others it asks the host for).
SEAT_MOVES = (*TURN_MOVES, Bind, Undo)

__all__ = ["Amend", "AmendRollOff", "Bind", "CloseBinding", "Discard", "Leave", "Move", "Play", "Prepared", "Redo",
           "Roll",
           "SEAT_MOVES", "TURN_MOVES", "Undo"]

"""The state of a game: its players, piles, turn and phase, what the game waits for, and how it ended; kept
as a snapshot beside the events (``to_snapshot``/``from_snapshot``) and shown as a view (``view``).
"""
from __future__ import annotations

import enum

from dictionaries.i18n import Message
from dictionaries.rules import DIE, HAND_SIZE, PAWNS
from referee.events import _QUIET, _UNSAID, _UNSAID_WAITING, Setup, UnknownPlayer
from referee.notes import refusal
from referee.values import as_dict, field, value
from referee.words import cut, waiting_words

TYPE_CHECKING = False  # importing typing costs more than a status command: the names are for the checkers
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


class Phase(str, enum.Enum):  # noqa: UP042 - str(): 'Phase.X' kept as it was (StrEnum's is the value)
    """What the game waits for now."""

    ROLL_OFF = "roll_off"            # waiting for the roll-off
    ACTION = "action"                # waiting for a word or a discard
    SANITY = "sanity"                # waiting for a sanity roll
    SPELL_BINDING = "spell_binding"  # others may name words from a discarded hand
    PSYCHOTHERAPY = "psychotherapy"  # waiting for a psychotherapy roll (or a pass)
    LAST_WORDS = "last_words"        # waiting for a word or a discard, on a final turn
    OVER = "over"



# -- outcome --------------------------------------------------------------------------------------

class Termination(str, enum.Enum):  # noqa: UP042 - as Phase
    """Why a game ended."""

    TARGET = "target"              # a player passed the sanity check that reached the target
    LAST_WORDS = "last_words"      # Last Words were played out: the highest score won
    LAST_STANDING = "last_standing"  # every other player lost all their pawns


@value(frozen=True)
class Outcome:
    """How a game ended: why, and who won (like python-chess's ``Outcome``)."""

    termination: Termination
    winner: str
    score: int

    def to_dict(self) -> dict[str, Any]:
        return {"termination": self.termination.value, "winner": self.winner, "score": self.score}


# -- state ----------------------------------------------------------------------------------------

@value()
class Player:
    name: str
    score: int = 0
    pawns: int = PAWNS
    out: bool = False
    hand: int = HAND_SIZE
    score_changed_at: int = 0  # event number of the last change of score (Last Words ties)
    left: bool = False         # out because the player left the game

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "score": self.score, "pawns": self.pawns, "out": self.out, "left": self.left}


@value()
class Pending:
    """A word on the table awaiting its sanity roll."""

    player: int
    word: str
    score: int
    forced: bool = False  # forced by Spell Binding: the hand was already discarded


@value()
class DiscardWindow:
    player: int
    letters: str | None
    named: list[tuple[str, str, int]] = field(default_factory=list)  # (by, word, score), legal only
    passed: list[str] = field(default_factory=list)  # the players who name no word (BindPassed)


@value()
class State:
    """Everything the table needs to know, derived from the events."""

    setup: Setup
    phase: Phase
    players: list[Player]
    turn: int | None = None
    used_words: list[str] = field(default_factory=list)
    draw_pile: int = 0
    discard_pile: int = 0
    winner: str | None = None
    pending: Pending | None = None
    window: DiscardWindow | None = None
    last_words: list[int] | None = None   # seats still owed a final turn
    reached: str | None = None             # who reached the target first (Last Words)
    outcome: Outcome | None = None
    events: int = 0
    notes: list[str] = field(default_factory=list)  # what the last event did, and what the table does
    #: Card accounting: the letters known to lie face up in the discard pile since the last reshuffle.
    face_up: dict[str, int] = field(default_factory=dict)

    # -- queries ----------------------------------------------------------------------------------

    @property
    def current(self) -> Player | None:
        return None if self.turn is None else self.players[self.turn]

    def player(self, name: str) -> Player:
        for p in self.players:  # events name players as they are written: found without folding, mostly
            if p.name == name:
                return p
        folded = name.casefold()
        for p in self.players:
            if p.name.casefold() == folded:  # no two players' names fold alike (Setup)
                return p
        raise UnknownPlayer(refusal("unknown_player", name=cut(name), players=", ".join(p.name for p in self.players)))

    def seat(self, name: str) -> int:
        return self.players.index(self.player(name))

    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def is_used(self, word: str) -> bool:
        """Whether ``word`` was played in this game. The words are kept in a set beside ``used_words``,
        brought up to date with the words appended since (the engine only appends): a replay of n plays
        costs n look-ups, not n scans of a growing list."""
        used = self.used_words
        kept: tuple[list[str], int, set[str]] | None = self.__dict__.get("_used_set")
        if kept is None or kept[0] is not used or kept[1] > len(used):
            kept = (used, 0, set())
        if kept[1] < len(used):
            kept[2].update(used[kept[1]:])
            kept = (used, len(used), kept[2])
        self.__dict__["_used_set"] = kept
        return word.upper() in kept[2]

    def can_oath(self, player: Player) -> bool:
        """The Unspellable Oath: with exactly one pawn left, any letters may be played."""
        return self.setup.options.oath and player.pawns == 1

    def binding_waits_for(self, seated: Iterable[str]) -> list[str]:
        """During Spell Binding, the players of ``seated`` (names, any case: those playing from a phone) the naming
        still waits for: every other player still in the game who has neither named a word nor passed. Empty at
        any other time."""
        window = self.window
        if self.phase is not Phase.SPELL_BINDING or window is None or self.current is None:
            return []
        seats = {name.casefold() for name in seated}
        acted = {by for by, _, _ in window.named} | set(window.passed)
        return [p.name for p in self.players if p is not self.current and not p.out and p.name.casefold() in seats
                and p.name not in acted]

    def waiting_for(self) -> Message:
        """What the game waits for, in plain words (``waiting``, said by ``referee.words.waiting_words``)."""
        if _UNSAID.get() or _QUIET.get():
            return _UNSAID_WAITING  # Game.told drops it unread; a quiet replay says nothing
        return waiting_words(waiting(self))

    def to_dict(self) -> dict[str, Any]:
        options = as_dict(self.setup.options)
        return {
            "phase": self.phase.value,
            "turn": None if self.current is None or self.is_over() else self.current.name,
            "target": self.setup.target,
            "options": options,
            "level": self.setup.level,
            "deck": self.setup.deck.name,
            "dice": self.setup.dice,
            "players": [p.to_dict() for p in self.players],
            "winner": self.winner,
            "used_words": list(self.used_words),
            "draw_pile": self.draw_pile,
            "discard_pile": self.discard_pile,
            "waiting_for": self.waiting_for(),
            "outcome": self.outcome.to_dict() if self.outcome else None,
        }

    def view(self) -> dict[str, Any]:
        """What a status display needs, as JSON values: ``to_dict()``, the deck's size, and what the game waits
        for as a message a reader can translate (``waiting``)."""
        return {"state": self.to_dict(), "deck_size": self.setup.deck.size, "waiting": self.waiting_for().to_json()}

    def to_snapshot(self) -> dict[str, Any]:
        """Everything of the state as JSON values, so a store can keep it instead of replaying."""
        return {
            "setup": self.setup.to_dict(), "phase": self.phase.value,
            "players": [as_dict(p) for p in self.players], "turn": self.turn,
            "used_words": list(self.used_words), "draw_pile": self.draw_pile, "discard_pile": self.discard_pile,
            "winner": self.winner, "pending": as_dict(self.pending) if self.pending else None,
            "window": as_dict(self.window) if self.window else None, "last_words": self.last_words,
            "reached": self.reached, "outcome": self.outcome.to_dict() if self.outcome else None,
            "events": self.events, "face_up": dict(self.face_up),
        }

    @classmethod
    def from_snapshot(cls, data: dict[str, Any]) -> State:
        """The inverse of ``to_snapshot`` (raises ValueError, KeyError or TypeError on a bad snapshot)."""
        window = data["window"]
        outcome = data["outcome"]
        return cls(
            setup=Setup.from_dict(data["setup"]), phase=Phase(data["phase"]),
            players=[Player(**p) for p in data["players"]], turn=data["turn"],
            used_words=list(data["used_words"]), draw_pile=data["draw_pile"], discard_pile=data["discard_pile"],
            winner=data["winner"], pending=Pending(**data["pending"]) if data["pending"] else None,
            window=DiscardWindow(window["player"], window["letters"], [(by, word, score) for by, word, score in window["named"]],
                                 list(window.get("passed", ())))
            if window else None,
            last_words=data["last_words"], reached=data["reached"],
            outcome=Outcome(Termination(outcome["termination"]), outcome["winner"], outcome["score"]) if outcome else None,
            events=data["events"], face_up=dict(data.get("face_up", {})),
        )


@value(frozen=True)
class Waiting:
    """What a game waits for, as a value: the one answer (``waiting``) that the CLI, the board and the players'
    service each say in their words; ``text`` is the referee's sentence for it (``referee.words.waiting_words``).

    ``player``: whose turn (None before the roll-off and at the end); ``word`` and ``score``: the word awaiting its
    sanity roll and what it scores; ``needs``: the lowest roll that passes the sanity check, or beats Psychotherapy;
    ``letters`` and ``value``: the discarded letters (Spell Binding, Psychotherapy) and the hand's value;
    ``final``: a final turn of Last Words; ``oath``: the Unspellable Oath allows any letters; ``winner`` and
    ``points``: who won, with how many points."""

    phase: Phase
    player: str | None
    word: str | None = None
    needs: int | None = None
    letters: str | None = None
    score: int | None = None
    value: int | None = None
    final: bool = False
    oath: bool = False
    winner: str | None = None
    points: int | None = None

    @property
    def is_roll(self) -> bool:
        return self.phase in (Phase.SANITY, Phase.PSYCHOTHERAPY)

    @property
    def text(self) -> Message:
        return waiting_words(self)


def waiting(state: State) -> Waiting:
    """What ``state`` waits for: the one function every front door asks."""
    phase = state.phase
    if phase is Phase.OVER:
        assert state.winner is not None
        return Waiting(phase, None, winner=state.winner, points=state.player(state.winner).score)
    current = state.current
    if phase is Phase.ROLL_OFF or current is None:
        return Waiting(phase, None)
    name = current.name
    if phase is Phase.SANITY:
        assert state.pending is not None
        score = state.pending.score
        return Waiting(phase, name, state.pending.word, min(max(score, 1), DIE), score=score)
    if phase in (Phase.SPELL_BINDING, Phase.PSYCHOTHERAPY):
        assert state.window is not None
        letters = state.window.letters
        value = state.setup.deck.score(letters) if phase is Phase.PSYCHOTHERAPY and letters is not None else None
        needs = value + 1 if value is not None and letters else None
        return Waiting(phase, name, letters=letters, needs=needs, value=value)
    return Waiting(phase, name, final=phase is Phase.LAST_WORDS, oath=state.can_oath(current))

"""The facts of a game: its set-up, the events that happen in it, the corrections a table makes to them, and the
errors the rules raise. Pure values, each read back from the JSON the store keeps (``event_from_dict``,
``Correction.from_dict``); ``referee.state`` is what they add up to and ``referee.rules`` applies them.
"""
from __future__ import annotations

import enum
from contextvars import ContextVar

from dictionaries.deck import STANDARD, STANDARD_POINTS, Deck, custom_deck, deck_name
from dictionaries.i18n import Message
from dictionaries.rules import HAND_SIZE
from referee.notes import refusal
from referee.values import as_dict, fields_of, value
from referee.words import cut

TYPE_CHECKING = False  # importing typing costs more than a status command: the names are for the checkers
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, ClassVar

#: True while ``Game.replay(..., words=False)`` applies events whose words nobody reads: the engine's
#: sentences are then not made (making them is most of a replay's cost). Context variables, so a
#: replay in one thread or greenlet leaves every other one's sentences whole.
_QUIET: ContextVar[bool] = ContextVar("uw_quiet_replay", default=False)
#: True while ``Game.told`` replays: the sentence of what the game waits for, which closes the notes
#: of each event and which ``log`` drops, is not made.
_UNSAID: ContextVar[bool] = ContextVar("uw_waiting_unsaid", default=False)
_UNSAID_WAITING = Message("", {})


MIN_PLAYERS, MAX_PLAYERS, MAX_PLAYERS_STANDARD = 2, 8, 6
MAX_NAME = 32  # "Bartholomew Featherstonehaugh" (29) fits: the board shrinks or cuts a long name


# -- errors ---------------------------------------------------------------------------------------

class RulesError(ValueError):
    """An action the rules refuse. The message names the input and the reason."""


class SetupError(RulesError):
    """A game that cannot be set up this way."""


class WrongPhase(RulesError):
    """An action that does not fit what the game is waiting for."""


class GameOver(WrongPhase):
    """Any action after the game has ended."""


class UnknownPlayer(RulesError):
    """A name that is not at this table."""


class WordRefused(RulesError):
    """A word the rules do not allow here (the reasons are in the message)."""

    def __init__(self, message: str, codes: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.codes = codes


class BadRoll(RulesError):
    """A die roll outside 1..20."""


class BadLetters(RulesError):
    """Discarded letters that cannot be the hand."""


class NothingToUndo(RulesError):
    """Undo past the start of the game."""


class CardsRefused(RulesError):
    """A play or discard needing cards that lie face up in the discard pile (card accounting)."""

    def __init__(self, message: str, letters: str) -> None:
        super().__init__(message)
        self.codes = ("discard_pile",)
        self.letters = letters


# -- set-up ---------------------------------------------------------------------------------------

class GameChanged(RulesError):
    """The game moved on between what the table saw and its action (another device acted first):
    the action was refused and the message says what happened meanwhile (RULES.txt 6, whose action)."""


class NotTheirTurn(GameChanged):
    """An action named for a player (``--as``, a phone's seat) on another's turn, the game as they saw it."""


class NotYours(RulesError):
    """A seat's undo of an action that is not its own last one (another write came since, or its player is out or
    left the game): refused, nothing changed; the host may undo it. ``seat`` names the seat."""

    def __init__(self, message: object, seat: str) -> None:
        super().__init__(message)
        self.seat = seat


@value(frozen=True)
class Options:
    """The optional rules in play (rulebook): the Unspellable Oath, Spell Binding, Psychotherapy, Last Words."""

    oath: bool = False
    spell_binding: bool = False
    psychotherapy: bool = False
    last_words: bool = False


@value(frozen=True)
class Setup:
    """Everything fixed when the game is created."""

    players: tuple[str, ...]
    target: int = 100
    options: Options = Options()
    level: int = 60
    deck: Deck = STANDARD
    dice: str = "physical"
    seed: int = 0
    #: Card accounting (RULES.txt 6): on by default, as in ``uw-referee new``; games recorded before it replay
    #: without it (``from_dict``).
    card_accounting: bool = True
    #: The end (RULES.txt 6): nobody draws when the game ends. Games recorded before that ruling replay as they
    #: were, the last player of a Last Words game drawing back to 7 (``from_dict``), so their kept state holds.
    ending_draw: bool = False

    def __post_init__(self) -> None:
        """Refuse a set-up no game can be played with, when it is built (not at its first action)."""
        from dictionaries import LEVELS

        names = self.players
        if not isinstance(names, tuple) or not all(isinstance(n, str) for n in names):
            raise SetupError(refusal("players_tuple_names", players=names))
        if isinstance(self.level, bool) or self.level not in LEVELS:
            raise SetupError(refusal("dictionary_size_one", level=self.level, levels=", ".join(map(str, LEVELS))))
        if not isinstance(self.options, Options) or not all(isinstance(v, bool) for v in as_dict(self.options).values()):
            raise SetupError(refusal("options_options_true_false", options=self.options))
        if not isinstance(self.deck, Deck):
            raise SetupError(refusal("deck_not_deck", deck=self.deck))
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise SetupError(refusal("seed_whole_number", seed=self.seed))
        if not isinstance(self.card_accounting, bool) or not isinstance(self.ending_draw, bool):
            raise SetupError(refusal("card_accounting_true_false", value=self.card_accounting))
        if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
            raise SetupError(refusal("players_count", n=len(names), least=MIN_PLAYERS, most=MAX_PLAYERS))
        if len(names) > MAX_PLAYERS_STANDARD and self.deck.size <= STANDARD.size:
            raise SetupError(refusal("players_need_larger_deck", n=len(names), deck=deck_name(self.deck.name), size=self.deck.size))
        seen: set[str] = set()
        for name in names:
            if not name or not name.strip() or name != name.strip() or not name.isprintable() or len(name) > MAX_NAME:
                raise SetupError(refusal("player_name_printable_characters", name=cut(name), most=MAX_NAME))
            if name.casefold() in seen:
                raise SetupError(refusal("player_name_used_twice", name=cut(name)))
            seen.add(name.casefold())
        if self.deck.size < HAND_SIZE * len(names):
            raise SetupError(refusal("deck_has_cards_too", deck=deck_name(self.deck.name), size=self.deck.size, hand=HAND_SIZE, n=len(names)))
        if not isinstance(self.target, int) or isinstance(self.target, bool) or self.target < 1:
            raise SetupError(refusal("target_whole_number_points", target=self.target))
        if dict(self.deck.points) != STANDARD_POINTS:
            changed = sorted(c for c in STANDARD_POINTS if self.deck.points.get(c) != STANDARD_POINTS[c])
            raise SetupError(refusal("deck_changes_points", deck=deck_name(self.deck.name), letters=", ".join(changed)))
        if self.dice not in ("physical", "virtual"):
            raise SetupError(refusal("dice_physical_virtual", dice=self.dice))

    def to_dict(self) -> dict[str, Any]:
        data = {
            "players": list(self.players), "target": self.target, "options": as_dict(self.options),
            "level": self.level, "dice": self.dice, "seed": self.seed, "card_accounting": self.card_accounting,
            "deck": {"name": self.deck.name, "counts": dict(self.deck.counts), "points": dict(self.deck.points)},
        }
        if not self.ending_draw:  # only games created under the ruling say so: older ones stay byte for byte
            data["ending_draw"] = False
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Setup:
        deck = data["deck"]
        return cls(players=tuple(data["players"]), target=data["target"], options=Options(**data["options"]),
                   level=data["level"], dice=data["dice"], seed=data["seed"],
                   card_accounting=bool(data.get("card_accounting", False)),
                   ending_draw=bool(data.get("ending_draw", True)),
                   deck=custom_deck(deck["name"], deck["counts"], deck["points"]))


# -- events ---------------------------------------------------------------------------------------

@value(frozen=True)
class Event:
    """A fact recorded in the game. ``kind`` names it in the store."""

    kind: ClassVar[str] = ""
    #: True for events that start an action as the table sees it (undo counts these).
    starts_action: ClassVar[bool] = True

    def to_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in fields_of(self)}
        return {"type": self.kind, **{k: (list(v) if isinstance(v, tuple) else v) for k, v in data.items()}}


@value(frozen=True)
class Created(Event):
    kind: ClassVar[str] = "created"
    setup: Setup

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "setup": self.setup.to_dict()}


@value(frozen=True)
class RollOff(Event):
    """The roll-off: each round maps the players who rolled to their roll. Or ``first`` chosen by the table."""

    kind: ClassVar[str] = "roll_off"
    rounds: tuple[tuple[tuple[str, int], ...], ...] = ()
    first: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "rounds": [[list(r) for r in rnd] for rnd in self.rounds], "first": self.first}


@value(frozen=True)
class WordPlayed(Event):
    """A word put down, with the verdict facts of that moment."""

    kind: ClassVar[str] = "word_played"
    player: str
    word: str
    score: int
    legal: bool
    reasons: tuple[str, ...] = ()   # the dictionary's reason codes when not legal
    allowed: bool = False            # the table overrode the dictionary's verdict (and the card count)


@value(frozen=True)
class SanityRolled(Event):
    kind: ClassVar[str] = "sanity_rolled"
    starts_action: ClassVar[bool] = False
    player: str
    roll: int


@value(frozen=True)
class Discarded(Event):
    kind: ClassVar[str] = "discarded"
    player: str
    letters: str | None = None
    allowed: bool = False            # the table overrode the card count


@value(frozen=True)
class BindNamed(Event):
    """Spell Binding: another player names a word formable from the discarded letters."""

    kind: ClassVar[str] = "bind_named"
    by: str
    word: str
    score: int
    legal: bool
    reasons: tuple[str, ...] = ()
    allowed: bool = False            # the table overrode the dictionary's verdict


@value(frozen=True)
class BindPassed(Event):
    """Spell Binding: another player names no word (on a phone, the naming closes once every other player named a
    word or passed)."""

    kind: ClassVar[str] = "bind_passed"
    by: str


@value(frozen=True)
class BindDone(Event):
    """Spell Binding: the table has named all the words it will."""

    kind: ClassVar[str] = "bind_done"
    #: The referee closed it at once: the discarded letters allow no legal unused word (issue 9, point 8).
    nothing_to_bind: bool = False

    @property
    def starts_action(self) -> bool:  # type: ignore[override]  # a class constant elsewhere: here it depends on the event
        """Closed by the referee at once, it belongs to the discard (an undo takes both back)."""
        return not self.nothing_to_bind


@value(frozen=True)
class PsychotherapyRolled(Event):
    """Psychotherapy: the discarder's roll against the hand's value, or ``None`` to pass."""

    kind: ClassVar[str] = "psychotherapy_rolled"
    starts_action: ClassVar[bool] = False
    player: str
    roll: int | None = None


@value(frozen=True)
class PlayerLeft(Event):
    """A player leaves the game (RULES.txt 6): out as if the last pawn were lost."""

    kind: ClassVar[str] = "player_left"
    player: str


#: The method of ``Game`` that applies each kind of event.
EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls for cls in (Created, RollOff, WordPlayed, SanityRolled, Discarded, BindNamed, BindPassed, BindDone,
                              PsychotherapyRolled, PlayerLeft)
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """The inverse of ``Event.to_dict`` (for the store)."""
    kind = data.get("type")
    cls = EVENT_TYPES.get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise ValueError(refusal("unknown_event_type", kind=kind))
    if cls is Created:
        return Created(Setup.from_dict(data["setup"]))
    if cls is RollOff:
        return RollOff(tuple(tuple((name, roll) for name, roll in rnd) for rnd in data["rounds"]), data.get("first"))
    values = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k != "type"}
    return cls(**values)


# -- corrections ----------------------------------------------------------------------------------

class CorrectionKind(enum.StrEnum):
    """What a table's correction did to the game's events (recorded beside them, for ``log`` and ``export``)."""

    UNDO = "undo"    # took back the last actions (they go on the redo stack)
    REDO = "redo"    # put back undone actions
    AMEND = "amend"  # corrected a past roll; later actions were checked again


@value(frozen=True)
class Correction:
    """A correction as recorded: its kind, and for an undo or a redo the actions asked for and the events taken
    back or put back; for an amendment the event and action corrected (and the roll-off's round), whose roll
    it was, and the roll before and after. ``to_dict`` gives the record the store keeps, key for key."""

    kind: CorrectionKind
    actions: int | None = None
    events: tuple[Event, ...] = ()
    seq: int | None = None
    action: int | None = None
    round: int | None = None
    player: str | None = None
    old: int | None = None
    new: int | None = None
    #: Who made it, as the store records it beside the correction (not part of ``to_dict``, nor of an export): a
    #: seat's player's name, '' for the host or the terminal, None when not recorded (a correction made before).
    by: str | None = None

    @property
    def is_undo(self) -> bool:
        """An undo starts a new generation: virtual rolls after it are new rolls (``Game.generation``)."""
        return self.kind is CorrectionKind.UNDO

    def to_dict(self) -> dict[str, Any]:
        if self.kind is not CorrectionKind.AMEND:
            return {"type": self.kind.value, "actions": self.actions, "events": [e.to_dict() for e in self.events]}
        data: dict[str, Any] = {"type": self.kind.value, "seq": self.seq, "action": self.action}
        if self.round is not None:
            data["round"] = self.round
        data.update(player=self.player, old=self.old, new=self.new)
        return data

    @staticmethod
    def kind_of(data: dict[str, Any]) -> CorrectionKind:
        """The kind of a recorded correction, without making its events; a ValueError names an unknown one."""
        try:
            return CorrectionKind(str(data.get("type")))
        except ValueError:
            raise ValueError(refusal("unknown_correction_type", kind=data.get("type"))) from None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Correction:
        """The inverse of ``to_dict``; a ValueError names a record of no known kind."""
        kind = cls.kind_of(data)
        return cls(kind, data.get("actions"), tuple(event_from_dict(e) for e in data.get("events", ())),
                   data.get("seq"), data.get("action"), data.get("round"), data.get("player"), data.get("old"),
                   data.get("new"), data.get("by"))


def generation_of(kinds: Iterable[CorrectionKind]) -> int:
    """A game's generation from the kinds of its corrections: how many undos it has had (``Game.generation``;
    virtual rolls after an undo are new rolls)."""
    return sum(1 for kind in kinds if kind is CorrectionKind.UNDO)



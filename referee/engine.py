"""The rules engine: a game is its set-up plus a list of events; its state comes from replaying them.

Pure: no SQLite, no Click, no dictionary. An event stores the facts decided when it happened (the
verdict, the score, a table override), so a replay never asks the dictionary again. Every rule and
ruling of RULES.md is here; ``Game.apply`` checks everything before it changes anything, so a
refused event leaves the game as it was.
"""
from __future__ import annotations

import enum
from collections import Counter
from contextvars import ContextVar

from dictionaries.deck import STANDARD, STANDARD_POINTS, Deck, custom_deck, deck_name
from dictionaries.i18n import Message
from dictionaries.rules import DIE, HAND_SIZE, MIN_WORD_LETTERS, PAWNS
from referee.values import as_dict, field, fields_of, value
from referee.words import cannot_words, cut, join_clauses, join_list, meanwhile_words, over_words, reasons_words

#: True while ``Game.replay(..., words=False)`` applies events whose words nobody reads: the engine's
#: sentences are then not made (making them is most of a replay's cost). Context variables, so a
#: replay in one thread or greenlet leaves every other one's sentences whole.
_QUIET: ContextVar[bool] = ContextVar("uw_quiet_replay", default=False)
#: True while ``Game.told`` replays: the sentence of what the game waits for, which closes the notes
#: of each event and which ``log`` drops, is not made.
_UNSAID: ContextVar[bool] = ContextVar("uw_waiting_unsaid", default=False)
_UNSAID_WAITING = Message("", {})


def msg(template: str, /, **params: Any) -> Message:
    """``dictionaries.i18n.msg``, or the bare template during a quiet replay (``Game.replay``)."""
    if _QUIET.get():
        return template  # type: ignore[return-value]  # read by no one: the replay discards it
    return Message(template, params)  # i18n.msg's body: one call less per sentence


def nmsg(singular: str, plural: str, n: int, /, **params: Any) -> Message:
    """``dictionaries.i18n.nmsg``, or the bare template during a quiet replay."""
    if _QUIET.get():
        return singular  # type: ignore[return-value]  # read by no one: the replay discards it
    return Message(singular, {"n": n, **params}, plural, n)  # i18n.nmsg's body: one call less per sentence


TYPE_CHECKING = False  # importing typing costs more than a status command: the names are for the checkers
if TYPE_CHECKING:
    from typing import Any, Callable, ClassVar, Iterable

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
    the action was refused and the message says what happened meanwhile (RULES.md 6, whose action)."""


class Phase(str, enum.Enum):
    """What the game waits for now."""

    ROLL_OFF = "roll_off"            # waiting for the roll-off
    ACTION = "action"                # waiting for a word or a discard
    SANITY = "sanity"                # waiting for a sanity roll
    SPELL_BINDING = "spell_binding"  # others may name words from a discarded hand
    PSYCHOTHERAPY = "psychotherapy"  # waiting for a psychotherapy roll (or a pass)
    LAST_WORDS = "last_words"        # waiting for a word or a discard, on a final turn
    OVER = "over"


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
    #: Card accounting (RULES.md 6): on by default, as in ``uw-referee new``; games recorded before it replay
    #: without it (``from_dict``).
    card_accounting: bool = True
    #: The end (RULES.md 6): nobody draws when the game ends. Games recorded before that ruling replay as they
    #: were, the last player of a Last Words game drawing back to 7 (``from_dict``), so their kept state holds.
    ending_draw: bool = False

    def __post_init__(self) -> None:
        """Refuse a set-up no game can be played with, when it is built (not at its first action)."""
        from dictionaries import LEVELS

        names = self.players
        if not isinstance(names, tuple) or not all(isinstance(n, str) for n in names):
            raise SetupError(msg("players must be a tuple of names, not {players!r}", players=names))
        if isinstance(self.level, bool) or self.level not in LEVELS:
            raise SetupError(msg("dictionary size {level!r} must be one of {levels}", level=self.level,
                                 levels=", ".join(map(str, LEVELS))))
        if not isinstance(self.options, Options) or not all(isinstance(v, bool) for v in as_dict(self.options).values()):
            raise SetupError(msg("options {options!r} must be Options(...) of true or false", options=self.options))
        if not isinstance(self.deck, Deck):
            raise SetupError(msg("deck {deck!r} must be a Deck", deck=self.deck))
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise SetupError(msg("seed {seed!r} must be a whole number", seed=self.seed))
        if not isinstance(self.card_accounting, bool) or not isinstance(self.ending_draw, bool):
            raise SetupError(msg("card_accounting {value!r} must be true or false", value=self.card_accounting))
        if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
            raise SetupError(nmsg("{n} player: the game takes {least} to {most}",
                                  "{n} players: the game takes {least} to {most}",
                                  len(names), least=MIN_PLAYERS, most=MAX_PLAYERS))
        if len(names) > MAX_PLAYERS_STANDARD and self.deck.size <= STANDARD.size:
            raise SetupError(msg("{n} players need a larger deck than the {deck} deck of {size} cards: use --deck "
                                 "double or a custom deck", n=len(names), deck=deck_name(self.deck.name), size=self.deck.size))
        seen: set[str] = set()
        for name in names:
            if not name or not name.strip() or name != name.strip() or not name.isprintable() or len(name) > MAX_NAME:
                raise SetupError(msg("player name {name!r} must be 1 to {most} printable characters, no outer "
                                     "spaces", name=cut(name), most=MAX_NAME))
            if name.casefold() in seen:
                raise SetupError(msg("player name {name!r} is used twice", name=cut(name)))
            seen.add(name.casefold())
        if self.deck.size < HAND_SIZE * len(names):
            raise SetupError(msg("the {deck} deck has {size} cards, too few to deal {hand} to {n} players",
                                 deck=deck_name(self.deck.name), size=self.deck.size, hand=HAND_SIZE, n=len(names)))
        if not isinstance(self.target, int) or isinstance(self.target, bool) or self.target < 1:
            raise SetupError(msg("target {target!r} must be a whole number of points, at least 1", target=self.target))
        if dict(self.deck.points) != STANDARD_POINTS:
            changed = sorted(c for c in STANDARD_POINTS if self.deck.points.get(c) != STANDARD_POINTS[c])
            raise SetupError(msg("the {deck} deck changes the points of {letters}: in a game points never change "
                                 "(RULES.md); a custom deck gives letter counts only",
                                 deck=deck_name(self.deck.name), letters=", ".join(changed)))
        if self.dice not in ("physical", "virtual"):
            raise SetupError(msg("dice {dice!r} must be 'physical' or 'virtual'", dice=self.dice))

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
    """A player leaves the game (RULES.md 6): out as if the last pawn were lost."""

    kind: ClassVar[str] = "player_left"
    player: str


#: The method of ``Game`` that applies each kind of event.
_HANDLERS: dict[type[Event], str] = {
    RollOff: "_apply_roll_off", WordPlayed: "_apply_word", SanityRolled: "_apply_sanity",
    Discarded: "_apply_discard", BindNamed: "_apply_bind_named", BindDone: "_apply_bind_done",
    PsychotherapyRolled: "_apply_psychotherapy", PlayerLeft: "_apply_left",
}

EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls for cls in (Created, RollOff, WordPlayed, SanityRolled, Discarded, BindNamed, BindDone,
                              PsychotherapyRolled, PlayerLeft)
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """The inverse of ``Event.to_dict`` (for the store)."""
    kind = data.get("type")
    cls = EVENT_TYPES.get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise ValueError(msg("unknown event type {kind!r}", kind=kind))
    if cls is Created:
        return Created(Setup.from_dict(data["setup"]))
    if cls is RollOff:
        return RollOff(tuple(tuple((name, roll) for name, roll in rnd) for rnd in data["rounds"]), data.get("first"))
    values = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k != "type"}
    return cls(**values)


# -- corrections ----------------------------------------------------------------------------------

class CorrectionKind(str, enum.Enum):
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
            return CorrectionKind(data.get("type"))
        except ValueError:
            raise ValueError(msg("unknown correction type {kind!r}", kind=data.get("type"))) from None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Correction:
        """The inverse of ``to_dict``; a ValueError names a record of no known kind."""
        kind = cls.kind_of(data)
        return cls(kind, data.get("actions"), tuple(event_from_dict(e) for e in data.get("events", ())),
                   data.get("seq"), data.get("action"), data.get("round"), data.get("player"), data.get("old"),
                   data.get("new"))


def generation_of(kinds: Iterable[CorrectionKind]) -> int:
    """A game's generation from the kinds of its corrections: how many undos it has had (``Game.generation``;
    virtual rolls after an undo are new rolls)."""
    return sum(1 for kind in kinds if kind is CorrectionKind.UNDO)


# -- outcome --------------------------------------------------------------------------------------

class Termination(str, enum.Enum):
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
        raise UnknownPlayer(msg("{name!r} is not playing; the players are {players}", name=cut(name),
                                players=", ".join(p.name for p in self.players)))

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

    def waiting_for(self) -> Message:
        """What the game waits for, in plain words."""
        if _UNSAID.get() or _QUIET.get():
            return _UNSAID_WAITING  # Game.told drops it unread; a quiet replay says nothing
        cur = self.current
        if self.phase is Phase.OVER:
            assert self.winner is not None
            return nmsg("The game is over: {player} won with {n} point.", "The game is over: {player} won with {n} points.",
                        self.player(self.winner).score, player=self.winner)
        if self.phase is Phase.ROLL_OFF:
            return msg("Waiting for the roll-off.")
        assert cur is not None
        if self.phase is Phase.SANITY:
            assert self.pending is not None
            score, word = self.pending.score, self.pending.word
            if score <= 1:
                return msg("Waiting for {player}'s sanity roll for {word} (any roll passes).", player=cur.name, word=word)
            if score >= DIE:
                return msg("Waiting for {player}'s sanity roll for {word} (needs a 20).", player=cur.name, word=word)
            if score in (8, 11, 18):  # "an 8": English's article; other languages translate both alike
                return msg("Waiting for {player}'s sanity roll for {word} (needs an {score} or more, or a 20).",
                           player=cur.name, word=word, score=score)
            return msg("Waiting for {player}'s sanity roll for {word} (needs a {score} or more, or a 20).",
                       player=cur.name, word=word, score=score)
        if self.phase is Phase.SPELL_BINDING:
            assert self.window is not None
            return msg("Spell Binding: the others may name words from {player}'s discard {letters}.",
                       player=cur.name, letters=self.window.letters)
        if self.phase is Phase.PSYCHOTHERAPY:
            assert self.window is not None and self.window.letters is not None
            value = self.setup.deck.score(self.window.letters)
            return msg("Psychotherapy: {player} may roll against the hand's value {value} (higher than {value} "
                       "regains a pawn), or pass.", player=cur.name, value=value)
        final, oath = self.phase is Phase.LAST_WORDS, self.can_oath(cur)
        if final and oath:
            return msg("{player}'s turn (final turn: Last Words): play a word or discard the hand. The Unspellable "
                       "Oath: any letters may be played.", player=cur.name)
        if final:
            return msg("{player}'s turn (final turn: Last Words): play a word or discard the hand.", player=cur.name)
        if oath:
            return msg("{player}'s turn: play a word or discard the hand. The Unspellable Oath: any letters may be "
                       "played.", player=cur.name)
        return msg("{player}'s turn: play a word or discard the hand.", player=cur.name)

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
            window=DiscardWindow(window["player"], window["letters"], [(by, word, score) for by, word, score in window["named"]])
            if window else None,
            last_words=data["last_words"], reached=data["reached"],
            outcome=Outcome(Termination(outcome["termination"]), outcome["winner"], outcome["score"]) if outcome else None,
            events=data["events"], face_up=dict(data.get("face_up", {})),
        )


# -- the game -------------------------------------------------------------------------------------

class Game:
    """A game: the events so far and the state they give. ``apply`` is the only way to change it."""

    #: When a list, ``apply`` appends each event's notes to it: what a writer (the store) keeps of the last
    #: actions' words beside its snapshot, so that a reader need not replay the game to say them.
    said: list[list[str]] | None = None

    def __init__(self, setup: Setup) -> None:
        #: The events this object holds: all of them after a replay, only the new ones after ``resume``.
        self.events: list[Event] = []
        #: How many events came before ``events[0]`` (0 unless resumed from a snapshot).
        self.base = 0
        #: How many undos the game has had: a virtual roll after an undo is a new roll (RULES.md 6).
        self.generation = 0
        self.state = State(setup=setup, phase=Phase.ROLL_OFF, players=[Player(n) for n in setup.players])
        self._apply_created(Created(setup))
        self.events.append(Created(setup))
        self.state.events = 1

    @classmethod
    def resume(cls, state: State) -> Game:
        """A game carried on from a state kept after ``state.events`` events, without replaying them."""
        game = cls.__new__(cls)
        game.events = []
        game.base = state.events
        game.generation = 0
        game.state = state
        return game

    @property
    def count(self) -> int:
        """How many events the game has had, the creation included."""
        return self.base + len(self.events)

    @property
    def new_events(self) -> list[Event]:
        """The events applied since the game was resumed (all of them for a replayed game)."""
        return self.events

    @classmethod
    def replay(cls, events: Iterable[Event], words: bool = True) -> Game:
        """The game those events give; the same events always give the same state.

        ``words=False``: what each event but the last did is not said in words (``state.notes`` holds
        the last one's, as after any replay); the same state for about a third of the cost. An event
        refused on the way is replayed again with words, so the refusal is the one a full replay gives."""
        iterator = iter(events)
        first = next(iterator, None)
        if not isinstance(first, Created):
            raise RulesError(msg("a game's first event must be its creation"))
        game = cls(first.setup)
        if words:
            for event in iterator:
                game.apply(event)
            return game
        rest = list(iterator)
        token = _QUIET.set(True)
        try:
            for event in rest[:-1]:
                game.apply(event)
        except Exception:  # noqa: BLE001 - whatever it was, the replay with words raises it as it is
            failed = True
        else:
            failed = False
        finally:
            _QUIET.reset(token)
        if failed:
            return cls.replay([first, *rest])
        if rest:
            game.apply(rest[-1])
        return game

    @classmethod
    def told(cls, events: list[Event]) -> list[list[str]]:
        """For each event, what it did in words, as ``uw-referee log`` says it: its notes without the
        closing sentence of what the game then waits for (the creation says nothing). One replay, and
        the closing sentences, dropped anyway, are not made; a refused event is replayed again with
        them, so the refusal is the one a replay gives."""
        def rows() -> list[list[str]]:
            game = cls.replay(events[:1])
            told: list[list[str]] = [[]]
            for event in events[1:]:
                notes = game.apply(event)
                told.append(notes[:-1] if not game.state.is_over() else notes)
            return told

        token = _UNSAID.set(True)
        try:
            return rows()
        except Exception:  # noqa: BLE001 - whatever it was, the replay with every sentence raises it as it is
            pass
        finally:
            _UNSAID.reset(token)
        return rows()

    @property
    def setup(self) -> Setup:
        return self.state.setup

    # -- dice -------------------------------------------------------------------------------------

    def virtual_roll(self, salt: int = 0) -> int:
        """A virtual d20, reproducible from the game's seed and the number of events so far."""
        import random  # only games with virtual dice roll

        key = f"{self.setup.seed}:{self.count}:{salt}" + (f":{self.generation}" if self.generation else "")
        return random.Random(key).randint(1, DIE)

    def roll_off_virtual(self) -> RollOff:
        """Roll the roll-off with virtual dice: the tied highest re-roll until one is highest."""
        contenders = list(self.setup.players)
        rounds = []
        salt = 0
        while True:
            rolls = []
            for name in contenders:
                salt += 1
                rolls.append((name, self.virtual_roll(salt)))
            rounds.append(tuple(rolls))
            top = max(r for _, r in rolls)
            contenders = [n for n, r in rolls if r == top]
            if len(contenders) == 1:
                return RollOff(tuple(rounds))

    # -- applying events --------------------------------------------------------------------------

    def apply(self, event: Event) -> list[str]:
        """Check ``event`` against the rules, then record it. Returns what happened, in plain words.

        Internal to the library: the verdict facts an event carries (a word's legality and reasons) are
        trusted as recorded, since a replay needs them without the dictionary. A program plays words
        through ``referee.Referee``, which judges them itself (docs/library.md)."""
        state = self.state
        if isinstance(event, Created):
            raise WrongPhase(msg("the game is already created"))
        if state.phase is Phase.OVER:
            assert self.state.winner is not None
            raise GameOver(nmsg("the game is over: {player} won with {n} point", "the game is over: {player} won with "
                                "{n} points", state.player(self.state.winner).score, player=self.state.winner))
        handler = getattr(self, _HANDLERS[type(event)])  # a KeyError for anything but the kinds of event below
        notes: list[str] = []
        handler(event, notes)
        self.events.append(event)
        state.events = self.count
        state.notes = notes
        if self.said is not None:
            self.said.append(notes)
        return notes

    def _expect(self, *phases: Phase, refusal: Callable[[], Message]) -> None:
        """WrongPhase saying ``refusal()`` ("cannot discard now.") and what the game waits for instead (the
        sentence is made only for a refusal: every event passes here)."""
        if self.state.phase not in phases:
            raise WrongPhase(msg("{refusal} {waiting}", refusal=refusal(), waiting=self.state.waiting_for()))

    def _apply_created(self, event: Created) -> None:
        setup = event.setup
        self.state.draw_pile = setup.deck.size - HAND_SIZE * len(setup.players)

    def _apply_roll_off(self, event: RollOff, notes: list[str]) -> None:
        self._expect(Phase.ROLL_OFF, refusal=lambda: msg("cannot roll off now."))
        state = self.state
        if event.first is not None:
            if event.rounds:
                raise RulesError(msg("give either the roll-off rolls or the first player, not both"))
            first = state.seat(event.first)
            notes.append(msg("{player} goes first, as the table rolled.", player=state.players[first].name))
        else:
            first = self.state.seat(check_roll_off(event.rounds, self.setup.players))
            for number, rnd in enumerate(event.rounds, start=1):
                rolls = ", ".join(f"{n} {r}" for n, r in rnd)
                notes.append(msg("Roll-off: {rolls}.", rolls=rolls) if number == 1 else
                             msg("Re-roll {number}: {rolls}.", number=number - 1, rolls=rolls))
            notes.append(msg("{player} rolled highest and goes first.", player=state.players[first].name))
        state.turn = first
        state.phase = Phase.ACTION
        notes.append(state.waiting_for())

    def _check_player(self, name: str, doing: str, word: str = "") -> Player:
        """The player whose turn it is, or WrongPhase naming whose turn it is instead."""
        state = self.state
        player = state.player(name)
        assert state.current is not None
        if player is not state.current:
            raise WrongPhase(msg("it is {current}'s turn, not {player}'s: {refusal}", current=state.current.name,
                                 player=player.name, refusal=cannot_words(doing, player.name, word)))
        return player

    def _apply_word(self, event: WordPlayed, notes: list[str]) -> None:
        self._expect(Phase.ACTION, Phase.LAST_WORDS, refusal=lambda: msg("cannot play {word} now.", word=event.word))
        state = self.state
        player = self._check_player(event.player, "play", event.word)
        if not is_letters(event.word):
            raise WordRefused(msg("{word!r} is not a word of letters A-Z", word=event.word))
        word = event.word.upper()
        oath = state.can_oath(player)
        self._check_word_fits(word, player.hand, oath)
        face_up = self._face_up_refusal(word)
        if not (event.legal or event.allowed or oath):
            reasons = reasons_words(event.reasons, state.setup.level)
            if face_up:
                raise WordRefused(msg("{word} is not allowed: it is {reasons}; and {player} cannot hold it: {cards}",
                                      word=word, reasons=reasons, player=player.name, cards=face_up),
                                  (*event.reasons, "discard_pile"))
            raise WordRefused(msg("{word} is not allowed: it is {reasons}", word=word, reasons=reasons), event.reasons)
        expected = state.setup.deck.score(word)
        if event.score != expected:
            raise RulesError(msg("{word} scores {expected} with this deck, not {score}", word=word, expected=expected,
                                 score=event.score))
        if face_up and not event.allowed:
            raise CardsRefused(msg("{player} cannot hold {word}: {cards}", player=player.name, word=word,
                                   cards=face_up), word)
        state.used_words.append(word)
        player.hand -= len(word)
        state.discard_pile += len(word)
        self._lay_face_up(word)
        state.pending = Pending(state.turn, word, event.score)  # type: ignore[arg-type]
        state.phase = Phase.SANITY
        if not _QUIET.get():  # a quiet replay says nothing
            notes.append(self._play_note(event, player.name, word, face_up, oath))
        notes.append(state.waiting_for())

    def _play_note(self, event: WordPlayed, name: str, word: str, face_up: Message | None, oath: bool) -> Message:
        """"Ann plays CHAMP for 15 points.", saying what the table overrules, if anything."""
        n = event.score
        dictionary = event.allowed and not event.legal
        cards = event.allowed and face_up
        reasons = reasons_words(event.reasons, self.state.setup.level) if dictionary else None  # said only then
        if dictionary and cards:
            return nmsg("{player} plays {word} for {n} point (the table overrules the dictionary: {word} is {reasons}; "
                        "and the card count: {cards}).",
                        "{player} plays {word} for {n} points (the table overrules the dictionary: {word} is {reasons}; "
                        "and the card count: {cards}).", n, player=name, word=word, reasons=reasons, cards=face_up)
        if dictionary:
            return nmsg("{player} plays {word} for {n} point (the table overrules the dictionary: {word} is {reasons}).",
                        "{player} plays {word} for {n} points (the table overrules the dictionary: {word} is {reasons}).",
                        n, player=name, word=word, reasons=reasons)
        if cards:
            return nmsg("{player} plays {word} for {n} point (the table overrules the card count: {cards}).",
                        "{player} plays {word} for {n} points (the table overrules the card count: {cards}).",
                        n, player=name, word=word, cards=face_up)
        if oath and not event.legal:
            return nmsg("{player} plays {word} for {n} point (the Unspellable Oath).",
                        "{player} plays {word} for {n} points (the Unspellable Oath).", n, player=name, word=word)
        return nmsg("{player} plays {word} for {n} point.", "{player} plays {word} for {n} points.", n,
                    player=name, word=word)

    def _face_up_refusal(self, letters: str) -> Message | None:
        """Card accounting: why ``letters`` cannot be in a hand, in words, or None when they can."""
        state = self.state
        if not state.setup.card_accounting:
            return None
        problems: list[Message] = []
        for letter, needed in sorted(Counter(letters).items()):
            held = state.setup.deck.counts.get(letter, 0)
            seen = state.face_up.get(letter, 0)
            if seen and needed > held - seen:
                if held == 1:
                    problems.append(msg("the only {letter} is in the discard pile", letter=letter))
                elif seen == held:
                    problems.append(msg("all {held} {letter}s are in the discard pile", held=held, letter=letter))
                else:
                    problems.append(nmsg("{seen} of the {held} {letter}s are in the discard pile, so at most {n} can "
                                         "be in a hand", "{seen} of the {held} {letter}s are in the discard pile, so "
                                         "at most {n} can be in a hand", held - seen, seen=seen, held=held,
                                         letter=letter))
        return join_clauses(problems) if problems else None

    def _lay_face_up(self, letters: str) -> None:
        for letter in letters:
            self.state.face_up[letter] = self.state.face_up.get(letter, 0) + 1

    def _check_word_fits(self, word: str, hand: int, oath: bool) -> None:
        state = self.state
        shortest = 1 if oath else MIN_WORD_LETTERS
        if not shortest <= len(word) <= min(hand, HAND_SIZE):
            raise WordRefused(nmsg("{word} has {n} letter; a word here needs {least} to {most}",
                                   "{word} has {n} letters; a word here needs {least} to {most}",
                                   len(word), word=word, least=shortest, most=min(hand, HAND_SIZE)),
                              ("too_short",) if len(word) < shortest else ("too_long",))
        over = state.setup.deck.over_limit(word)
        if over:
            raise WordRefused(msg("{word} needs {letters}", word=word, letters=over_words(over)), ("deck_limit",))
        if state.is_used(word):
            raise WordRefused(msg("{word} was already played in this game", word=word), ("used",))

    def _apply_sanity(self, event: SanityRolled, notes: list[str]) -> None:
        self._expect(Phase.SANITY, refusal=lambda: msg("cannot roll a sanity check now."))
        state = self.state
        player = self._check_player(event.player, "sanity")
        check_roll(event.roll)
        pending = state.pending
        assert pending is not None
        passed = event.roll == DIE or event.roll >= pending.score
        target = state.setup.target
        reaches = player.score + pending.score >= target
        if passed:
            notes.append(msg("{player} rolls {roll} and passes the sanity check for {word}.", player=player.name,
                             roll=event.roll, word=pending.word))
        else:
            notes.append(msg("{player} rolls {roll} and fails the sanity check for {word}.", player=player.name,
                             roll=event.roll, word=pending.word))
        if reaches and not passed:
            notes.append(msg("{word} would have reached {score} (the target is {target}): it scores 0.",
                             word=pending.word, score=player.score + pending.score, target=target))
        else:
            player.score += pending.score
            if pending.score:
                player.score_changed_at = self.count
            notes.append(nmsg("{player} scores {scored}: {n} point.", "{player} scores {scored}: {n} points.",
                              player.score, player=player.name, scored=pending.score))
        state.pending = None
        if not passed:
            player.pawns -= 1
            notes.append(nmsg("{player} loses a pawn: {n} left.", "{player} loses a pawn: {n} left.", player.pawns,
                              player=player.name)
                         if player.pawns else
                         msg("{player} loses the last pawn and is out of the game.", player=player.name))
        if passed and reaches:
            self._reach_target(player, notes)
        self._end_turn(player, notes)

    def _reach_target(self, player: Player, notes: list[str]) -> None:
        state = self.state
        if not state.setup.options.last_words:
            self._win(player, notes, msg("{player} reaches {score} and wins!", player=player.name, score=player.score),
                      Termination.TARGET)
            return
        if state.last_words is None:
            state.reached = player.name
            seats = [(state.turn + k) % len(state.players) for k in range(1, len(state.players))]  # type: ignore[operator]
            state.last_words = [s for s in seats if not state.players[s].out]
            if state.last_words:
                notes.append(msg("{player} reaches {score}! Last Words: every other player still in gets one more "
                                 "turn ({players}).", player=player.name, score=player.score,
                                 players=", ".join(state.players[s].name for s in state.last_words)))
            else:
                notes.append(msg("{player} reaches {score}! Last Words: every other player still in gets one more "
                                 "turn (none).", player=player.name, score=player.score))

    def _win(self, player: Player, notes: list[str], why: Message, termination: Termination) -> None:
        state = self.state
        state.winner = player.name
        state.outcome = Outcome(termination, player.name, player.score)
        state.phase = Phase.OVER
        state.pending = None
        state.window = None
        notes.append(why)

    def _draw(self, player: Player, wanted: int, notes: list[str]) -> None:
        """Draw ``wanted`` cards, telling the table when to reshuffle the discard pile."""
        state = self.state
        first = min(wanted, state.draw_pile)
        state.draw_pile -= first
        rest = wanted - first
        if rest and state.discard_pile:
            shuffled = state.discard_pile
            state.draw_pile, state.discard_pile = shuffled, 0
            state.face_up = {}
            second = min(rest, state.draw_pile)
            state.draw_pile -= second
            drawn = first + second
            if first:
                notes.append(nmsg("{player} draws {n} card; then the draw pile is empty: shuffle the {shuffled} "
                                  "discards into a new draw pile, then {player} draws {second} more.",
                                  "{player} draws {n} cards; then the draw pile is empty: shuffle the {shuffled} "
                                  "discards into a new draw pile, then {player} draws {second} more.",
                                  first, player=player.name, shuffled=shuffled, second=second))
            else:
                notes.append(msg("The draw pile is empty: shuffle the {shuffled} discards into a new draw pile, then "
                                 "{player} draws {second} more.", player=player.name, shuffled=shuffled, second=second))
        else:
            drawn = first
            notes.append(nmsg("{player} draws {n} card.", "{player} draws {n} cards.", drawn, player=player.name))
        if drawn < wanted:
            notes.append(nmsg("Both piles are empty: {player} holds {n} card.",
                              "Both piles are empty: {player} holds {n} cards.", player.hand + drawn,
                              player=player.name))
        player.hand += drawn

    def _end_turn(self, player: Player, notes: list[str]) -> None:
        """After the sanity check or the discard: eliminations, drawing, the next turn."""
        state = self.state
        if state.phase is Phase.OVER:
            return
        if player.pawns == 0:
            player.out = True
            if player.hand:
                notes.append(nmsg("{player}'s remaining {n} card goes to the discard pile; {player} draws nothing.",
                                  "{player}'s remaining {n} cards go to the discard pile; {player} draws nothing.",
                                  player.hand, player=player.name))
            if self._hand_out_and_last_standing(player, notes):
                return
        elif self._last_turn_of_game():  # the game ends now: nobody draws, however it ended (RULES.md 6, the end)
            if self.setup.ending_draw:  # a game recorded before that ruling replays as it was
                self._draw(player, HAND_SIZE - player.hand, [])
        else:
            self._draw(player, HAND_SIZE - player.hand, notes)  # back up to 7 (a new hand after a discard)
        self._next_turn(notes)

    def _hand_out_and_last_standing(self, player: Player, notes: list[str]) -> bool:
        """A player who is out: the hand goes to the discard pile; True when that leaves one player with
        pawns, who has then won (RULES.md 4; also when a player leaves, RULES.md 6)."""
        state = self.state
        state.discard_pile += player.hand
        player.hand = 0
        standing = [p for p in state.players if not p.out]
        if len(standing) != 1:
            return False
        self._win(standing[0], notes, msg("{player} is the last player with pawns and wins!", player=standing[0].name),
                  Termination.LAST_STANDING)
        return True

    def _last_turn_of_game(self) -> bool:
        """True when the turn ending now is the last of Last Words (the game ends with it)."""
        state = self.state
        if state.last_words is None:
            return False
        return not [s for s in state.last_words if s != state.turn and not state.players[s].out]

    def _next_turn(self, notes: list[str]) -> None:
        state = self.state
        state.window = None
        assert state.turn is not None
        if state.last_words is not None:
            # The turn just ended is done (a final turn, or the reacher's own); players out get none.
            state.last_words = [s for s in state.last_words if s != state.turn and not state.players[s].out]
            self._next_last_words_turn(notes)
            return
        n = len(state.players)
        for step in range(1, n + 1):
            seat = (state.turn + step) % n
            if not state.players[seat].out:
                state.turn = seat
                break
        state.phase = Phase.ACTION
        notes.append(state.waiting_for())

    def _next_last_words_turn(self, notes: list[str]) -> None:
        """Last Words: the next final turn still owed, or the end of the game when none is left."""
        state = self.state
        if not state.last_words:
            self._finish_last_words(notes)
            return
        state.turn = state.last_words[0]
        state.phase = Phase.LAST_WORDS
        notes.append(state.waiting_for())

    def _finish_last_words(self, notes: list[str]) -> None:
        """Last Words are over: the highest score wins; a tie goes to who reached it first."""
        state = self.state
        standing = [p for p in state.players if not p.out]
        best = max(p.score for p in standing)
        tied = [p for p in standing if p.score == best]
        winner = min(tied, key=lambda p: p.score_changed_at)
        if len(tied) > 1:
            why = nmsg("Last Words are over: {player} wins with {n} point (tied at {n}; {player} reached it first)!",
                       "Last Words are over: {player} wins with {n} points (tied at {n}; {player} reached it first)!",
                       best, player=winner.name)
        else:
            why = nmsg("Last Words are over: {player} wins with {n} point!",
                       "Last Words are over: {player} wins with {n} points!", best, player=winner.name)
        self._win(winner, notes, why, Termination.LAST_WORDS)

    def _apply_discard(self, event: Discarded, notes: list[str]) -> None:
        self._expect(Phase.ACTION, Phase.LAST_WORDS, refusal=lambda: msg("cannot discard now."))
        state = self.state
        player = self._check_player(event.player, "discard")
        options = state.setup.options
        if event.letters is not None and not is_letters(event.letters):
            raise BadLetters(msg("{letters!r} must be letters A-Z", letters=event.letters))
        letters = event.letters.upper() if event.letters is not None else None
        if letters is None and (options.spell_binding or options.psychotherapy):
            raise BadLetters(msg("with Spell Binding or Psychotherapy on, the discard needs the hand's letters "
                                 "(for example: OCLNUSM)"))
        face_up = None
        if letters is not None:
            if len(letters) != player.hand:
                raise BadLetters(nmsg("{player} holds {n} card, but {letters} is {count} letters",
                                      "{player} holds {n} cards, but {letters} is {count} letters",
                                      player.hand, player=player.name, letters=letters, count=len(letters)))
            over = state.setup.deck.over_limit(letters)
            if over:
                raise BadLetters(msg("{letters} cannot be a hand: {detail}", letters=letters, detail=over_words(over)))
            face_up = self._face_up_refusal(letters)
            if face_up and not event.allowed:
                raise CardsRefused(msg("{letters} cannot be {player}'s hand: {cards}", letters=letters,
                                       player=player.name, cards=face_up), letters)
        state.discard_pile += player.hand
        if letters:
            self._lay_face_up(letters)
        if letters and face_up:
            notes.append(msg("{player} discards the hand ({letters}; the table overrules the card count: {cards}).",
                             player=player.name, letters=letters, cards=face_up))
        elif letters:
            notes.append(msg("{player} discards the hand ({letters}).", player=player.name, letters=letters))
        else:
            notes.append(msg("{player} discards the hand.", player=player.name))
        player.hand = 0
        state.window = DiscardWindow(state.turn, letters)  # type: ignore[arg-type]
        if options.spell_binding:
            state.phase = Phase.SPELL_BINDING
            notes.append(state.waiting_for())
        else:
            self._after_binding(player, notes)

    def _after_binding(self, player: Player, notes: list[str]) -> None:
        state = self.state
        if state.setup.options.psychotherapy and player.pawns < PAWNS:
            state.phase = Phase.PSYCHOTHERAPY
            notes.append(state.waiting_for())
            return
        if state.setup.options.psychotherapy:
            notes.append(nmsg("{player} has all {n} pawn: no Psychotherapy roll.",
                              "{player} has all {n} pawns: no Psychotherapy roll.", PAWNS, player=player.name))
        self._end_turn(player, notes)

    def _apply_bind_named(self, event: BindNamed, notes: list[str]) -> None:
        self._expect(Phase.SPELL_BINDING, refusal=lambda: msg("cannot name {word} for Spell Binding now.", word=event.word))
        state = self.state
        window = state.window
        assert window is not None and window.letters is not None and state.current is not None
        namer = state.player(event.by)
        if namer is state.current:
            raise WordRefused(msg("{player} discarded; only the other players may name words", player=namer.name))
        if namer.out:
            raise WordRefused(msg("{player} is out of the game and cannot name words", player=namer.name))
        if not is_letters(event.word):
            raise WordRefused(msg("{word!r} is not a word of letters A-Z", word=event.word))
        word = event.word.upper()
        missing = Counter(word) - Counter(window.letters)
        if missing:
            more = join_list([msg("{n} more {letter}", n=n, letter=c) for c, n in sorted(missing.items())])
            raise WordRefused(msg("{word} cannot be made from {letters}: it needs {more}", word=word,
                                  letters=window.letters, more=more))
        self._check_word_fits(word, HAND_SIZE, False)
        reasons = reasons_words(event.reasons, state.setup.level)
        if not event.legal and not event.allowed:
            raise WordRefused(msg("{word} is not a legal word: it is {reasons}", word=word, reasons=reasons),
                              event.reasons)
        if any(w == word for _, w, _ in window.named):
            raise WordRefused(msg("{word} was already named", word=word))
        expected = state.setup.deck.score(word)
        if event.score != expected:
            raise RulesError(msg("{word} scores {expected} with this deck, not {score}", word=word, expected=expected,
                                 score=event.score))
        window.named.append((namer.name, word, event.score))
        if event.allowed and not event.legal:
            notes.append(nmsg("{namer} names {word} ({n} point) from {player}'s discard (the table overrules the "
                              "dictionary: {word} is {reasons}).",
                              "{namer} names {word} ({n} points) from {player}'s discard (the table overrules the "
                              "dictionary: {word} is {reasons}).", event.score, namer=namer.name, word=word,
                              player=state.current.name, reasons=reasons))
        else:
            notes.append(nmsg("{namer} names {word} ({n} point) from {player}'s discard.",
                              "{namer} names {word} ({n} points) from {player}'s discard.", event.score,
                              namer=namer.name, word=word, player=state.current.name))
        notes.append(state.waiting_for())

    def _apply_bind_done(self, event: BindDone, notes: list[str]) -> None:
        self._expect(Phase.SPELL_BINDING, refusal=lambda: msg("cannot close Spell Binding now."))
        state = self.state
        window = state.window
        player = state.current
        assert window is not None and player is not None
        if event.nothing_to_bind and window.named:
            raise RulesError(msg("words were named: Spell Binding has something to bind"))
        if event.nothing_to_bind:
            notes.append(msg("No legal unused word can be made from {letters}: Spell Binding has nothing to bind.",
                             letters=window.letters))
            self._after_binding(player, notes)
            return
        if not window.named:
            notes.append(msg("Spell Binding: no word was named."))
            self._after_binding(player, notes)
            return
        best = max(window.named, key=lambda named: named[2])  # max keeps the first on a tie: named first wins
        by, word, score = best
        state.used_words.append(word)
        state.pending = Pending(state.turn, word, score, forced=True)  # type: ignore[arg-type]
        state.phase = Phase.SANITY
        notes.append(nmsg("Spell Binding: {player} must play {word} for {n} point (named by {namer}).",
                          "Spell Binding: {player} must play {word} for {n} points (named by {namer}).", score,
                          player=player.name, word=word, namer=by))
        notes.append(state.waiting_for())

    def _apply_psychotherapy(self, event: PsychotherapyRolled, notes: list[str]) -> None:
        self._expect(Phase.PSYCHOTHERAPY, refusal=lambda: msg("cannot roll for Psychotherapy now."))
        state = self.state
        player = self._check_player(event.player, "psychotherapy")
        window = state.window
        assert window is not None and window.letters is not None
        value = state.setup.deck.score(window.letters)
        if event.roll is None:
            notes.append(msg("{player} does not roll for Psychotherapy.", player=player.name))
        else:
            check_roll(event.roll)
            if event.roll > value and player.pawns < PAWNS:
                player.pawns += 1
                notes.append(msg("{player} rolls {roll}, higher than {value}: regains a pawn ({pawns}).",
                                 player=player.name, roll=event.roll, value=value, pawns=player.pawns))
            else:
                notes.append(msg("{player} rolls {roll}, not higher than {value}: nothing happens.",
                                 player=player.name, roll=event.roll, value=value))
        self._end_turn(player, notes)


    def _apply_left(self, event: PlayerLeft, notes: list[str]) -> None:
        """A player leaves (RULES.md 6): out as if the last pawn were lost; the game goes on without them."""
        state = self.state
        if state.phase is Phase.ROLL_OFF:
            raise WrongPhase(msg("the game has not started: set it up again without that player"))
        player = state.player(event.player)
        if player.out:
            raise RulesError(msg("{player} has already left the game", player=player.name) if player.left else
                             msg("{player} is already out of the game", player=player.name))
        seat = state.players.index(player)
        current = seat == state.turn
        player.out = True
        player.left = True
        notes.append(nmsg("{player} leaves the game with {n} point.", "{player} leaves the game with {n} points.",
                          player.score, player=player.name))
        if current and state.pending is not None:
            notes.append(msg("{word} was not rolled for: it scores nothing.", word=state.pending.word))
            state.pending = None
        if current and state.window is not None:
            state.window = None
        if player.hand:
            notes.append(nmsg("{player}'s {n} card goes to the discard pile.",
                              "{player}'s {n} cards go to the discard pile.", player.hand, player=player.name))
        if self._hand_out_and_last_standing(player, notes):
            return
        if state.last_words is not None:
            state.last_words = [s for s in state.last_words if s != seat]
            if current or not state.last_words:
                self._next_last_words_turn(notes)
            else:
                notes.append(state.waiting_for())
            return
        if current:
            self._next_turn(notes)
            return
        notes.append(state.waiting_for())


@value(frozen=True)
class Seen:
    """What the table saw when it decided an action (RULES.md 6, whose action): how many events the game
    had, whose turn it was, how many undos it had had. A field left None is not checked:
    ``Seen(player="Ann")`` only says the action is Ann's (``--as Ann``)."""

    events: int | None = None
    player: str | None = None
    undos: int | None = None

    @classmethod
    def of(cls, game: Game) -> Seen:
        """What a table looking at ``game`` sees."""
        current = game.state.current
        player = None if current is None or game.state.is_over() else current.name
        return cls(game.count, player, game.generation)

    def moved(self, game: Game) -> bool:
        """True when ``game`` is no longer what was seen (more or fewer events, another undo)."""
        return ((self.events is not None and game.count != self.events)
                or (self.undos is not None and game.generation != self.undos))

    def unseen(self, events: list[Event], corrections: list[Correction]) -> tuple[list[Event], list[Correction]]:
        """What happened to a game since it was seen, from its events and corrections: the corrections from the
        first undo not seen, if it was undone meanwhile; else the actions taken (or redone) since."""
        undos = [i for i, c in enumerate(corrections) if c.is_undo]
        seen_undos = len(undos) if self.undos is None else self.undos
        if seen_undos < len(undos):
            return [], corrections[undos[seen_undos]:]
        return events[self.events or len(events):], []

    def check(self, game: Game, meanwhile: tuple[list[Event], list[Correction]] | None = None) -> None:
        """Refuse (``GameChanged``) when ``game`` moved on from what was seen or it is not the named player's
        turn; ``meanwhile`` is what happened since (``unseen``: the events and the corrections), said in the
        refusal."""
        happened = None if meanwhile is None else meanwhile_words(*meanwhile)
        state = game.state
        if self.player is not None:
            state.player(self.player)  # an unknown name is refused by name
        current = state.current
        now = None if current is None or state.is_over() else current.name
        if not self.moved(game):
            if self.player is None or (now is not None and now.casefold() == self.player.casefold()):
                return
            if now is None:  # the same game, over or not started: what it waits for
                raise GameChanged(state.waiting_for())
            raise GameChanged(msg("it is {player}'s turn, not {named}'s", player=now,
                                  named=state.player(self.player).name))
        what = happened if happened is not None else msg("the game moved on")
        if now is None:
            raise GameChanged(msg("{what} meanwhile. {waiting}", what=what,
                                  waiting=state.waiting_for()))
        raise GameChanged(msg("{what} meanwhile; it is {player}'s turn now", what=what,
                              player=now))


#: Letters of other scripts that look like Latin ones (a small part of Unicode's confusables): two names
#: that differ only by these look the same at the table.
_LOOKALIKES = str.maketrans({
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y",
    "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ӏ": "l", "ɡ": "g", "α": "a", "β": "b", "ε": "e", "ι": "i",
    "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ı": "i", "0": "o", "1": "l",
})


#: Capitals of other scripts that look like Latin capitals (before lower case makes them differ: Ν -> ν).
_LOOKALIKE_CAPITALS = str.maketrans({
    "А": "a", "В": "b", "Е": "e", "К": "k", "М": "m", "Н": "h", "О": "o", "Р": "p", "С": "c", "Т": "t", "У": "y",
    "Х": "x", "І": "i", "Ј": "j", "Ѕ": "s", "Α": "a", "Β": "b", "Ε": "e", "Ζ": "z", "Η": "h", "Ι": "i", "Κ": "k",
    "Μ": "m", "Ν": "n", "Ο": "o", "Ρ": "p", "Τ": "t", "Υ": "y", "Χ": "x",
})


def _scripts(name: str) -> set[str]:
    """The scripts of a name's letters (LATIN, CYRILLIC, GREEK...), from their Unicode names."""
    import unicodedata

    return {unicodedata.name(c, "UNKNOWN").split()[0] for c in name if c.isalpha()}


def name_skeleton(name: str) -> str:
    """What a name looks like: compatibility forms folded, lower case, look-alike letters made Latin."""
    import unicodedata

    return unicodedata.normalize("NFKC", name).translate(_LOOKALIKE_CAPITALS).casefold().translate(_LOOKALIKES)


def check_names(players: tuple[str, ...]) -> None:
    """Refuse names a table could not tell apart (RULES.md 6: whose action): a name mixing scripts whose
    letters look alike (a Cyrillic А in a Latin name), or two names that look the same."""
    for name in players:
        scripts = _scripts(name)
        if len(scripts) > 1:
            raise SetupError(msg("player name {name!r} mixes letters of different scripts, which can look alike: "
                                 "type it in one script", name=cut(name)))
    seen: dict[str, str] = {}
    for name in players:
        skeleton = name_skeleton(name)
        if skeleton in seen:
            raise SetupError(msg("player names {first!r} and {second!r} look the same: give them names the table "
                                 "can tell apart", first=cut(seen[skeleton]), second=cut(name)))
        seen[skeleton] = name


def is_letters(text: object) -> bool:
    """True for a non-empty string of the letters A-Z only (checked before any case change:
    ``"ß".upper()`` is ``"SS"``)."""
    return isinstance(text, str) and text.isascii() and text.isalpha()


def check_roll(roll: object) -> int:
    if not isinstance(roll, int) or isinstance(roll, bool) or not 1 <= roll <= DIE:
        raise BadRoll(msg("roll {roll!r} is not a d20 roll: give a whole number from 1 to {most}", roll=roll, most=DIE))
    return roll


def check_roll_off(rounds: tuple[tuple[tuple[str, int], ...], ...], players: tuple[str, ...]) -> str:
    """The winner of a roll-off; each round must be rolled by exactly those tied highest before."""
    if not rounds:
        raise RulesError(msg("the roll-off needs at least one round of rolls"))
    contenders = list(players)
    for number, rnd in enumerate(rounds, start=1):
        names = [name for name, _ in rnd]
        if sorted(n.casefold() for n in names) != sorted(n.casefold() for n in contenders):
            raise RulesError(msg("roll-off round {number} must be rolled by {players}, not {names}", number=number,
                                 players=", ".join(contenders), names=", ".join(names)))
        for _, roll in rnd:
            check_roll(roll)
        top = max(r for _, r in rnd)
        canon = {n.casefold(): n for n in contenders}
        contenders = [canon[n.casefold()] for n, r in rnd if r == top]
        if len(contenders) == 1:
            if number != len(rounds):
                raise RulesError(msg("the roll-off was decided in round {number}; later rounds are not needed",
                                     number=number))
            return contenders[0]
    raise RulesError(msg("the roll-off is still tied between {players}: they roll again", players=", ".join(contenders)))


def action_starts(events: list[Event]) -> list[int]:
    """Indexes of the events that start an action as the table sees it (a play with its roll is one)."""
    # The roll-off is part of the set-up: undoing it would leave a game no command can restart.
    return [i for i, e in enumerate(events) if e.starts_action and not isinstance(e, (Created, RollOff))]


def undo_point(events: list[Event], actions: int) -> int:
    """How many events remain after undoing the last ``actions`` actions."""
    if actions < 1:
        raise NothingToUndo(msg("undo needs a number of actions of at least 1, not {actions}", actions=actions))
    starts = action_starts(events)
    if actions > len(starts):
        raise NothingToUndo(nmsg("only {n} action can be undone, not {actions}: the set-up and the roll-off stay",
                                 "only {n} actions can be undone, not {actions}: the set-up and the roll-off stay",
                                 len(starts), actions=actions))
    return starts[-actions]


def undo_events(events: list[Event], redo: list[Event], actions: int) -> tuple[list[Event], list[Event], list[Event]]:
    """Undo as a change of the game's events (``Store.rewrite``): the events kept, the new redo stack (the events
    taken back on top of it) and the events taken back."""
    keep = undo_point(events, actions)
    return events[:keep], events[keep:] + redo, events[keep:]


def redo_events(events: list[Event], redo: list[Event], actions: int) -> tuple[list[Event], list[Event], list[Event]]:
    """Redo as a change of the game's events: the last ``actions`` undone actions put back in order; returns the
    events, the redo stack left and the events put back."""
    starts = action_starts([events[0], *redo])  # index 0 stands for the creation
    if actions < 1 or actions > len(starts):
        raise NothingToUndo(msg("there is nothing to redo") if not starts else
                            nmsg("only {n} undone action can be redone, not {actions}",
                                 "only {n} undone actions can be redone, not {actions}", len(starts),
                                 actions=actions))
    end = starts[actions] - 1 if actions < len(starts) else len(redo)
    return events + redo[:end], redo[end:], redo[:end]

"""What a table does to a game (start, play, roll, discard, bind, undo), over a store, as values.

Every face of the referee (the one-shot commands, the ``table`` loop, the board) calls these and
renders what they return; none of them applies events itself. Each write resumes the game once,
inside its write transaction. Refusals are ``RulesError``s (nothing changed); a request that does
not fit the game's set-up (a roll typed in a game with virtual dice) is a ``RequestError``.
"""
from __future__ import annotations

from dictionaries.dictionary import Dictionary
from dictionaries.i18n import message_of, msg, nmsg
from dictionaries.rules import DIE
from dictionaries.verdict import Verdict, judge
from referee.engine import (
    BindDone,
    BindNamed,
    Discarded,
    Event,
    Game,
    Outcome,
    Phase,
    PlayerLeft,
    PsychotherapyRolled,
    RollOff,
    RulesError,
    SanityRolled,
    Setup,
    State,
    WordPlayed,
)
from referee.engine import Created as Created_
from referee.store import Store
from referee.values import value
from referee.words import action_words

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


class RequestError(ValueError):
    """A request that does not fit this game's set-up or this moment (a usage error, not a rules refusal)."""


@value(frozen=True)
class Waiting:
    """What the game waits for, as a value; ``text`` says it in words."""

    phase: Phase
    player: str | None
    text: str
    word: str | None = None      # the word awaiting its sanity roll
    needs: int | None = None     # the lowest roll that passes the sanity check, or beats Psychotherapy
    letters: str | None = None   # the discarded letters (Spell Binding, Psychotherapy)

    @property
    def is_roll(self) -> bool:
        return self.phase in (Phase.SANITY, Phase.PSYCHOTHERAPY)


def waiting(state: State) -> Waiting:
    """What ``state`` waits for."""
    current = None if state.current is None or state.is_over() else state.current.name
    phase = state.phase
    if phase is Phase.SANITY and state.pending is not None:
        score = state.pending.score
        return Waiting(phase, current, state.waiting_for(), state.pending.word, min(max(score, 1), DIE))
    if phase in (Phase.SPELL_BINDING, Phase.PSYCHOTHERAPY) and state.window is not None:
        letters = state.window.letters
        needs = state.setup.deck.score(letters) + 1 if phase is Phase.PSYCHOTHERAPY and letters else None
        return Waiting(phase, current, state.waiting_for(), letters=letters, needs=needs)
    return Waiting(phase, current, state.waiting_for())


class _GameNow:
    """What every action's value says of the game it leaves: its state, what it waits for, how it ended."""

    game: Game

    @property
    def state(self) -> State:
        return self.game.state

    @property
    def waiting(self) -> Waiting:
        return waiting(self.game.state)

    @property
    def outcome(self) -> Outcome | None:
        return self.game.state.outcome


@value(frozen=True)
class Result(_GameNow):
    """What an action did: the game as it is now, what happened in words, and what comes next."""

    game_id: int
    game: Game
    notes: tuple[str, ...]
    verdict: Verdict | None = None
    removed: tuple[Event, ...] = ()


@value(frozen=True)
class Prepared:
    """A word judged for a game, before any lock is taken: the game, its set-up and the verdict."""

    game_id: int
    setup: Setup
    verdict: Verdict


@value(frozen=True)
class PlayCheck:
    """A word tried on the game as it is, before its roll is asked for."""

    game_id: int
    game: Game
    verdict: Verdict
    player: str


def _notes(notes: list[str], game: Game) -> tuple[str, ...]:
    """The notes without the last one, which says what the game waits for (``Result.waiting`` does that)."""
    return tuple(notes[:-1] if notes and not game.state.is_over() else notes)


class Referee:
    """The table's referee over one store. ``dictionary`` is called only when a word is judged."""

    def __init__(self, store: Store, dictionary: Callable[[], Dictionary]) -> None:
        self.store = store
        self._dictionary = dictionary

    # -- reading ----------------------------------------------------------------------------------

    def load(self, game_id: int | None) -> tuple[int, Game]:
        return self.store.load(game_id)

    # -- starting ---------------------------------------------------------------------------------

    def start(self, setup: Setup, roll_off: RollOff | None = None) -> Result:
        """Create the game with its roll-off (rolled by the referee when ``roll_off`` is None and dice are virtual)."""
        def build(game: Game) -> list[str]:
            event = roll_off if roll_off is not None else game.roll_off_virtual()
            return game.apply(event)

        if roll_off is None and setup.dice != "virtual":
            raise RequestError(msg("the roll-off needs the table's rolls or the first player with physical dice"))
        gid, game, notes = self.store.create(setup, build)
        return Result(gid, game, _notes(notes, game))

    # -- a turn -----------------------------------------------------------------------------------

    @staticmethod
    def _current(game: Game) -> str:
        state = game.state
        if state.is_over():
            raise RulesError(state.waiting_for())
        if state.current is None:
            raise RulesError(msg("the game has not started"))
        return state.current.name

    @staticmethod
    def _check_roll_request(setup: Setup, roll: int | None) -> None:
        if setup.dice == "virtual" and roll is not None:
            raise RequestError(msg("this game uses virtual dice: the referee rolls, so leave out the roll"))

    def prepare(self, game_id: int | None, word: str, *, roll: int | None = None) -> Prepared:
        """Resolve the game and judge ``word`` with its level and deck, before anything is written."""
        gid, setup = self.store.setup(game_id)
        self._check_roll_request(setup, roll)
        return Prepared(gid, setup, judge(self._dictionary(), word, setup.level, setup.deck))

    def check_play(self, prepared: Prepared, *, allow: bool = False) -> PlayCheck:
        """Try the word on the game as it is, without writing (a refusal raises RulesError).

        Used before asking the table for a physical roll, so that no lock is held while people roll.
        """
        _, game = self.store.load(prepared.game_id)
        player = self._current(game)
        verdict = prepared.verdict
        game.apply(WordPlayed(player, verdict.word, verdict.score, verdict.legal, verdict.codes, allow))
        return PlayCheck(prepared.game_id, game, verdict, player)

    def play(self, prepared: Prepared, *, roll: int | None = None, allow: bool = False) -> Result:
        """Play the prepared word for the player whose turn it is, with its sanity roll when it is known.

        With virtual dice the referee rolls; with physical dice and no ``roll`` the game then waits for it.
        """
        verdict = prepared.verdict
        self._check_roll_request(prepared.setup, roll)

        def action(game: Game) -> list[str]:
            player = self._current(game)
            notes = game.apply(WordPlayed(player, verdict.word, verdict.score, verdict.legal, verdict.codes, allow))
            if game.setup.dice == "virtual":
                notes = notes[:-1] + game.apply(SanityRolled(player, game.virtual_roll()))
            elif roll is not None:
                notes = notes[:-1] + game.apply(SanityRolled(player, roll))
            return notes

        gid, game, notes = self.store.act(prepared.game_id, action)
        return Result(gid, game, _notes(notes, game), verdict)

    def roll(self, game_id: int | None, value: int | None = None, *, skip: bool = False) -> Result:
        """The roll the game waits for: a sanity check, or Psychotherapy (``skip``: the discarder does not roll)."""
        if skip and value is not None:
            raise RequestError(msg("give a roll or skip it, not both"))

        def action(game: Game) -> list[str]:
            name = self._current(game)
            phase = game.state.phase
            if phase not in (Phase.SANITY, Phase.PSYCHOTHERAPY):
                raise RulesError(msg("no roll is awaited. {waiting}", waiting=game.state.waiting_for()))
            if skip:
                if phase is not Phase.PSYCHOTHERAPY:
                    raise RulesError(msg("only a Psychotherapy roll can be skipped; a sanity check must be rolled"))
                return game.apply(PsychotherapyRolled(name, None))
            self._check_roll_request(game.setup, value)
            rolled = game.virtual_roll() if game.setup.dice == "virtual" else value
            if rolled is None:
                raise RequestError(msg("give the roll, a number from 1 to {most}", most=DIE))
            event: Event = SanityRolled(name, rolled) if phase is Phase.SANITY else PsychotherapyRolled(name, rolled)
            return game.apply(event)

        gid, game, notes = self.store.act(game_id, action)
        return Result(gid, game, _notes(notes, game))

    def discard(self, game_id: int | None, letters: str | None = None, *, allow: bool = False) -> Result:
        """Discard the current player's hand (its ``letters`` when Spell Binding or Psychotherapy need them).

        With Spell Binding, when the letters allow no legal unused word, the referee says so and
        closes Spell Binding at once: there is nothing to bind (``allow``: the table overrules the card count).
        """
        def action(game: Game) -> list[str]:
            notes = game.apply(Discarded(self._current(game), letters, allow))
            window = game.state.window
            if game.state.phase is Phase.SPELL_BINDING and window is not None and window.letters:
                found = [w for w in self._dictionary().rack(window.letters, game.setup.level, game.setup.deck)
                         if not game.state.is_used(w.word)]
                if not found:
                    notes = notes[:-1] + game.apply(BindDone(nothing_to_bind=True))
            return notes

        gid, game, notes = self.store.act(game_id, action)
        return Result(gid, game, _notes(notes, game))

    def bind(self, prepared: Prepared, by: str, *, allow: bool = False) -> Result:
        """Spell Binding: ``by`` names the prepared word from the discarded letters (refused unless legal,
        or the table overrules the dictionary with ``allow``; the overrule is recorded)."""
        verdict = prepared.verdict
        event = BindNamed(by, verdict.word, verdict.score, verdict.legal, verdict.codes, allow)
        gid, game, notes = self.store.act(prepared.game_id, lambda g: g.apply(event))
        return Result(gid, game, _notes(notes, game), verdict)

    def bind_done(self, game_id: int | None) -> Result:
        """Close Spell Binding; says the best word the letters allowed, and rolls when dice are virtual."""
        def action(game: Game) -> list[str]:
            window = game.state.window
            letters = window.letters if window is not None else None
            notes = game.apply(BindDone())
            if letters:
                pending = game.state.pending
                best = [w for w in self._dictionary().rack(letters, game.setup.level, game.setup.deck)
                        if not game.state.is_used(w.word) or (pending is not None and pending.word == w.word)]
                if best:
                    notes.insert(-1, nmsg("The best word the letters {letters} allowed: {word} ({n} point).",
                                          "The best word the letters {letters} allowed: {word} ({n} points).",
                                          best[0].score, letters=letters, word=best[0].word))
            if game.setup.dice == "virtual" and game.state.phase is Phase.SANITY:
                notes = notes[:-1] + game.apply(SanityRolled(self._current(game), game.virtual_roll()))
            return notes

        gid, game, notes = self.store.act(game_id, action)
        return Result(gid, game, _notes(notes, game))

    # -- corrections ------------------------------------------------------------------------------

    def undo(self, game_id: int | None, actions: int = 1) -> Result:
        """Take back the last ``actions`` actions (a play with its roll is one); ``redo`` can put them back."""
        gid, game, removed = self.store.undo(game_id, actions)
        return Result(gid, game, (), removed=tuple(removed))

    def redo(self, game_id: int | None, actions: int = 1) -> Result:
        """Put back the last ``actions`` undone actions, in order (until the table takes a new action)."""
        gid, game, back = self.store.redo(game_id, actions)
        return Result(gid, game, (), removed=tuple(back))

    def leave(self, game_id: int | None, name: str) -> Result:
        """A player leaves the game (RULES.md 6)."""
        gid, game, notes = self.store.act(game_id, lambda g: g.apply(PlayerLeft(g.state.player(name).name)))
        return Result(gid, game, _notes(notes, game))

    def amend(self, game_id: int | None, roll: int, at: int | None = None) -> Amended:
        """Correct a past roll: the latest, or the one of the action numbered ``at`` in ``log``.

        Every later action is checked again in order; if one becomes impossible the amendment is
        refused with the reason (an ``AmendRefused``) and nothing changes. The amendment is recorded.
        """
        from referee.engine import check_roll

        check_roll(roll)

        def change(events: list[Event], redo: list[Event]
                   ) -> tuple[list[Event], list[Event], tuple[int, int, str, dict[str, Any]]]:
            if events and isinstance(events[0], Created_) and events[0].setup.dice == "virtual":
                raise RequestError(msg("this game uses virtual dice: the referee's rolls cannot be amended"))
            seq = _roll_at(events, at)
            old = events[seq]
            assert isinstance(old, (SanityRolled, PsychotherapyRolled))
            if old.roll == roll:
                raise RulesError(msg("the roll of event {seq} is already {roll}", seq=seq, roll=roll))
            fixed = SanityRolled(old.player, roll) if isinstance(old, SanityRolled) else \
                PsychotherapyRolled(old.player, roll)
            new = [*events[:seq], fixed, *events[seq + 1:]]
            game = Game.replay(new[:seq + 1])
            for index in range(seq + 1, len(new)):
                try:
                    game.apply(new[index])
                except RulesError as exc:
                    raise AmendRefused(msg("with {roll} instead of {old} at event {seq}, event {index} ({action}) "
                                           "becomes impossible: {why}", roll=roll, old=old.roll, seq=seq, index=index,
                                           action=action_words([new[index]]), why=message_of(exc))) from None
            return new, [], (seq, old.roll or 0, old.player, Game.replay(events).state.to_dict())

        def record(found: tuple[int, int, str, dict[str, Any]]) -> dict[str, object]:
            return {"type": "amend", "seq": found[0], "player": found[2], "old": found[1], "new": roll}

        gid, game, _, (seq, old, player, before) = self.store.rewrite(game_id, change, record)
        return Amended(gid, game, seq, player, old, roll, before)


class AmendRefused(RulesError):
    """An amended roll that would make a later action impossible (names the action and why)."""


@value(frozen=True)
class Amended(_GameNow):
    """What an amended roll did: which roll, from what to what, and the game as it now is."""

    game_id: int
    game: Game
    seq: int
    player: str
    old: int
    new: int
    before: dict[str, Any]   # the state before, as ``State.to_dict()`` (to say what changed)


def _roll_at(events: list[Event], at: int | None) -> int:
    """The index of the roll to amend: the latest, or the one of event ``at`` (a roll, or the play it follows)."""
    def is_roll(event: Event) -> bool:
        return isinstance(event, SanityRolled) or (isinstance(event, PsychotherapyRolled) and event.roll is not None)

    if at is None:
        for index in range(len(events) - 1, -1, -1):
            if is_roll(events[index]):
                return index
        raise RulesError(msg("no roll has been recorded in this game yet"))
    if not 0 <= at < len(events):
        raise RulesError(msg("there is no event {at} in this game; 'uw-referee log' numbers them", at=at))
    for index in (at, at + 1):
        if index < len(events) and is_roll(events[index]) and (index == at or events[at].starts_action):
            return index
    raise RulesError(msg("event {at} ({action}) has no roll to amend; 'uw-referee log' numbers the events", at=at,
                         action=action_words([events[at]])))


def history_notes(events: list[Event]) -> list[list[str]]:
    """For each event of a game, what it did in words, as ``log`` shows it (nothing for the creation)."""
    return Game.told(events)


__all__ = ["Referee", "Result", "Prepared", "PlayCheck", "Waiting", "RequestError", "waiting", "history_notes",
           "Amended", "AmendRefused"]

"""What a table does to a game (start, play, roll, discard, bind, undo), over a store, as values.

Every face of the referee (the one-shot commands, the ``table`` loop, the board's phones and host, the hosted
API, the library) writes through one entry point, ``Referee.act`` (a move of ``referee.moves``, who acts, the
version they saw), and renders what it returns; none of them applies events itself. Each write resumes the game
once, inside its one write transaction. Refusals are ``RulesError``s (nothing changed); a request that does not fit
the game's set-up (a roll typed in a game with virtual dice) is a ``RequestError``.

Over 500 lines: one shorthand and one implementation per thing a table does behind the one entry point, and the
amendments' re-checking of later actions (``amend``, ``_rederive``) shares the game-flow helpers the turns use.
"""
from __future__ import annotations

from dictionaries.dictionary import Dictionary
from dictionaries.i18n import Message, message_of, msg, nmsg
from dictionaries.rules import DIE
from dictionaries.verdict import Verdict, judge
from referee.engine import (
    BindDone,
    BindNamed,
    BindPassed,
    CardsRefused,
    Correction,
    CorrectionKind,
    Discarded,
    Event,
    Game,
    NotYours,
    Outcome,
    Phase,
    PlayerLeft,
    PsychotherapyRolled,
    RollOff,
    RulesError,
    SanityRolled,
    Seen,
    Setup,
    State,
    WordPlayed,
    WordRefused,
    action_starts,
    check_names,
    redo_events,
    undo_events,
)
from referee.engine import Created as Created_
from referee.moves import (
    SEAT_MOVES,
    Amend,
    AmendRollOff,
    Bind,
    CloseBinding,
    Discard,
    Leave,
    Move,
    PassBinding,
    Play,
    Prepared,
    Redo,
    Roll,
    Undo,
)
from referee.state import Waiting, waiting  # the one answer to what a game waits for, offered here too
from referee.store import Store
from referee.store_format import SeatKey, version_count
from referee.values import value
from referee.words import action_words

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any


class RequestError(ValueError):
    """A request that does not fit this game's set-up or this moment (a usage error, not a rules refusal)."""


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

    @property
    def version(self) -> str | None:
        """The game's version after the action (``Seen.version``): what the next write from this face sends."""
        return self.game.version


@value(frozen=True)
class Result(_GameNow):
    """What an action did: the game as it is now, what happened in words, and what comes next.

    ``removed``: the events an undo took back; ``restored``: the events a redo put back."""

    game_id: int
    game: Game
    notes: tuple[str, ...]
    verdict: Verdict | None = None
    removed: tuple[Event, ...] = ()
    restored: tuple[Event, ...] = ()

    @property
    def told(self) -> tuple[str, ...]:
        """What the table is told it did: its notes; an undo or a redo, which has none, in the words of ``log``."""
        from referee.words import correction_message

        if self.removed or self.restored:
            kind = CorrectionKind.UNDO if self.removed else CorrectionKind.REDO
            return (correction_message(Correction(kind, events=self.removed or self.restored)),)
        return self.notes


@value(frozen=True)
class PlayCheck:
    """A word tried on the game as it is, before its roll is asked for."""

    game_id: int
    game: Game
    verdict: Verdict
    player: str


def fold_letters(letters: str | None) -> str | None:
    """A hand's letters with their accents folded, as a word's are (``AEIOUÉS`` -> ``AEIOUES``); anything that is
    still not A-Z is left for the engine to refuse by name."""
    if letters is None or letters.isascii():
        return letters
    import unicodedata

    folded = "".join(c for c in unicodedata.normalize("NFKD", letters) if not unicodedata.combining(c))
    return folded if folded.isascii() and folded.isalpha() else letters


def _apply_allowing(game: Game, make: Callable[[bool], Event], allow: bool) -> list[str]:
    """Apply ``make(False)``; only when the dictionary or the card count refuses it and the table overrules
    (``allow``), ``make(True)``: an overrule is recorded only when one was needed (RULES.txt 6)."""
    if allow:
        try:
            return game.apply(make(False))
        except (WordRefused, CardsRefused):
            pass
    return game.apply(make(allow))


def _notes(notes: list[str], game: Game) -> tuple[str, ...]:
    """The notes without the last one, which says what the game waits for (``Result.waiting`` does that)."""
    return tuple(notes[:-1] if notes and not game.state.is_over() else notes)


class Referee:
    """The table's referee over one store. ``dictionary`` is called only when a word is judged."""

    def __init__(self, store: Store, dictionary: Callable[[], Dictionary]) -> None:
        self.store = store
        self._dictionary = dictionary
        self._token = object()  # marks the words this referee judged (``Prepared.judged_by``)

    # -- reading ----------------------------------------------------------------------------------

    def load(self, game_id: int | None) -> tuple[int, Game]:
        """The game (the most recently active one when ``game_id`` is None), resumed: what the players' service
        shows before a seat acts."""
        return self.store.load(game_id)

    # -- starting ---------------------------------------------------------------------------------

    def start(self, setup: Setup, roll_off: RollOff | None = None) -> Result:
        """Create the game with its roll-off (rolled by the referee when ``roll_off`` is None and dice are virtual)."""
        def build(game: Game) -> list[str]:
            event = roll_off if roll_off is not None else game.roll_off_virtual()
            return game.apply(event)

        if roll_off is None and setup.dice != "virtual":
            raise RequestError(msg("the roll-off needs the table's rolls or the first player with physical dice"))
        check_names(setup.players)  # at creation only: games already recorded replay as they were
        gid, game, notes = self.store.create(setup, build)
        return Result(gid, game, _notes(notes, game))

    # -- the one write path -----------------------------------------------------------------------

    def act(self, game_id: int | None, move: Move, *, seat: str | SeatKey | None = None,
            seen: Seen | str | None = None) -> Result | Amended:
        """Make ``move`` in the game, in ONE transaction of the store: the guard (the version the actor saw, the
        seat's rights), the rules, the events and their chain, the snapshot and summary, the seat's own-undo
        right, the redo stack and the boards' wake-up commit together or not at all. Every face calls this (the
        named methods below are its shorthands).

        ``seat``: the player's seat that acts (a phone: its name, or the ``SeatKey`` its request carried, found in
        the same transaction), None for the terminal or the host. A seat makes only
        ``SEAT_MOVES``; a turn's move only on its own turn, an undo only of its own last action while that action
        made the game as it is (``NotYours``). ``seen``: the version the actor saw (``Result.version``,
        ``Game.version``; a ``Seen``); a move decided on another version is refused (``GameChanged``) saying what
        happened meanwhile. Returns what a face needs to answer: the game, its new version, the notes."""
        guard = self._guard(move, seat, seen)
        if isinstance(move, Play):
            return self._play(game_id, move, guard, seat)
        if isinstance(move, Roll):
            return self._roll(game_id, move.value, move.skip, guard, seat)
        if isinstance(move, Discard):
            return self._discard(game_id, move.letters, move.allow, guard, seat)
        if isinstance(move, Bind):
            return self._bind(game_id, move, guard, seat)
        if isinstance(move, PassBinding):
            return self._pass_binding(game_id, move.by, guard, seat)
        if isinstance(move, CloseBinding):
            return self._bind_done(game_id, guard, seat)
        if isinstance(move, Undo):
            return self._undo(game_id, move.actions, guard, seat)
        if isinstance(move, Redo):
            return self._redo(game_id, move.actions, guard)
        if isinstance(move, Leave):
            return self._leave(game_id, move.name, guard)
        if isinstance(move, Amend):
            return self._amend(game_id, move.roll, move.at, guard)
        return self._amend_roll_off(game_id, move.name, move.round, move.roll, guard)

    @staticmethod
    def _guard(move: Move, seat: str | SeatKey | None, seen: Seen | str | None) -> Seen | None:
        """The turn guard for ``move``: the version seen (a seat's turn is checked by the store, which knows the
        seat's name only inside the write's transaction)."""
        if seat is not None and not isinstance(move, SEAT_MOVES):
            raise RequestError(msg("a seat cannot make this correction on its own; ask the host"))
        if isinstance(seen, str):
            if version_count(seen) is None:
                raise RequestError(msg("{seen!r} is not a game's version; send the version the game was read with",
                                       seen=seen[:40]))
            seen = Seen(version=seen)
        elif seen is not None and not isinstance(seen, Seen):  # an event count, bytes...: a caller's mistake, in words
            raise RequestError(msg("{seen!r} is not a game's version; send the version the game was read with",
                                   seen=seen))
        return seen

    def _words(self, game: Game, word: str | Prepared) -> Verdict:
        """The verdict on ``word``: judged by this referee's ``prepare`` before, or now in the write, with the
        game's level and deck."""
        if isinstance(word, Prepared):
            return self._judged(word)
        return judge(self._dictionary(), word, game.setup.level, game.setup.deck)

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
    def check_roll_given(setup: Setup, roll: int | None) -> None:
        """Refuse a roll typed for a game with virtual dice (a ``RequestError``): the referee rolls there."""
        if setup.dice == "virtual" and roll is not None:
            raise RequestError(msg("this game uses virtual dice: the referee rolls, so leave out the roll"))

    def prepare(self, game_id: int | None, word: str) -> Prepared:
        """Resolve the game and judge ``word`` with its level and deck, before anything is written.
        The roll, if any, is given once, to ``play``."""
        gid, game = self.store.load(game_id)  # one read: its set-up and whether it is over
        if game.state.is_over():  # nothing is judged once the game is over
            raise RulesError(game.state.waiting_for())
        setup = game.setup
        return Prepared(gid, setup, judge(self._dictionary(), word, setup.level, setup.deck), self._token)

    def _judged(self, prepared: Prepared) -> Verdict:
        """The verdict of a word this referee judged; any other is refused (the engine trusts verdicts)."""
        if not isinstance(prepared, Prepared) or prepared.judged_by is not self._token:
            raise RequestError(msg("play a word judged by this referee's prepare(), not a verdict made elsewhere"))
        return prepared.verdict

    def check_play(self, prepared: Prepared, *, allow: bool = False, seen: Seen | None = None) -> PlayCheck:
        """Try the word on the game as it is, without writing (a refusal raises RulesError).

        Used before asking the table for a physical roll, so that no lock is held while people roll.
        """
        _, game = self.store.load(prepared.game_id)
        if seen is not None:
            seen.check(game)
        player = self._current(game)
        verdict = self._judged(prepared)
        game.apply(WordPlayed(player, verdict.word, verdict.score, verdict.legal, verdict.codes, allow))
        return PlayCheck(prepared.game_id, game, verdict, player)

    def play(self, prepared: Prepared, *, roll: int | None = None, allow: bool = False,
             seen: Seen | None = None) -> Result:
        """Play the prepared word for the player whose turn it is, with its sanity roll when it is known.

        With virtual dice the referee rolls; with physical dice and no ``roll`` the game then waits for it.
        ``seen``: what the table saw when it chose the word (refused with ``GameChanged`` if the game moved on).
        """
        self._judged(prepared)
        return self._result(self.act(prepared.game_id, Play(prepared, roll, allow), seen=seen))

    @staticmethod
    def _result(done: Result | Amended) -> Result:
        assert isinstance(done, Result)
        return done

    def _play(self, game_id: int | None, move: Play, seen: Seen | None, seat: str | SeatKey | None) -> Result:
        roll, allow = move.roll, move.allow
        if isinstance(move.word, Prepared):
            self.check_roll_given(move.word.setup, roll)
            game_id = _prepared_game(game_id, move.word)
        judged: list[Verdict] = []

        def action(game: Game) -> list[str]:
            verdict = self._words(game, move.word)
            judged.append(verdict)
            self.check_roll_given(game.setup, roll)
            player = self._current(game)
            notes = _apply_allowing(game, lambda a: WordPlayed(player, verdict.word, verdict.score, verdict.legal,
                                                               verdict.codes, a), allow)
            if game.setup.dice == "virtual":
                notes = notes[:-1] + game.apply(SanityRolled(player, game.virtual_roll()))
            elif roll is not None:
                notes = notes[:-1] + game.apply(SanityRolled(player, roll))
            return notes

        gid, game, notes = self.store.act(game_id, action, seen, seat, turn=True)
        return Result(gid, game, _notes(notes, game), judged[-1])

    def roll(self, game_id: int | None, value: int | None = None, *, skip: bool = False,
             seen: Seen | None = None) -> Result:
        """The roll the game waits for: a sanity check, or Psychotherapy (``skip``: the discarder does not roll)."""
        return self._result(self.act(game_id, Roll(value, skip), seen=seen))

    def _roll(self, game_id: int | None, value: int | None, skip: bool, seen: Seen | None,
              seat: str | SeatKey | None) -> Result:
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
            self.check_roll_given(game.setup, value)
            rolled = game.virtual_roll() if game.setup.dice == "virtual" else value
            if rolled is None:
                raise RequestError(msg("give the roll, a number from 1 to {most}", most=DIE))
            event: Event = SanityRolled(name, rolled) if phase is Phase.SANITY else PsychotherapyRolled(name, rolled)
            return game.apply(event)

        gid, game, notes = self.store.act(game_id, action, seen, seat, turn=True)
        return Result(gid, game, _notes(notes, game))

    def discard(self, game_id: int | None, letters: str | None = None, *, allow: bool = False,
                seen: Seen | None = None) -> Result:
        """Discard the current player's hand (its ``letters`` when Spell Binding or Psychotherapy need them).

        With Spell Binding, when the letters allow no legal unused word, the referee says so and
        closes Spell Binding at once: there is nothing to bind (``allow``: the table overrules the card count).
        """
        return self._result(self.act(game_id, Discard(letters, allow), seen=seen))

    def _discard(self, game_id: int | None, letters: str | None, allow: bool, seen: Seen | None,
                 seat: str | SeatKey | None) -> Result:
        letters = fold_letters(letters)

        def action(game: Game) -> list[str]:
            player = self._current(game)
            notes = _apply_allowing(game, lambda a: Discarded(player, letters, a), allow)
            window = game.state.window
            if game.state.phase is Phase.SPELL_BINDING and window is not None and window.letters:
                found = [w for w in self._dictionary().rack(window.letters, game.setup.level, game.setup.deck)
                         if not game.state.is_used(w.word)]
                if not found:
                    notes = notes[:-1] + game.apply(BindDone(nothing_to_bind=True))
            return notes

        gid, game, notes = self.store.act(game_id, action, seen, seat, turn=True)
        return Result(gid, game, _notes(notes, game))

    def bind(self, prepared: Prepared, by: str, *, allow: bool = False, seen: Seen | None = None) -> Result:
        """Spell Binding: ``by`` names the prepared word from the discarded letters (refused unless legal,
        or the table overrules the dictionary with ``allow``; the overrule is recorded)."""
        self._judged(prepared)
        return self._result(self.act(prepared.game_id, Bind(prepared, by, allow), seen=seen))

    def _bind(self, game_id: int | None, move: Bind, seen: Seen | None, seat: str | SeatKey | None) -> Result:
        by, allow = move.by, move.allow
        if isinstance(move.word, Prepared):
            game_id = _prepared_game(game_id, move.word)
        judged: list[Verdict] = []

        def action(game: Game) -> list[str]:
            verdict = self._words(game, move.word)
            judged.append(verdict)
            # Recorded as the game spells the name, whatever case was typed (an unknown name: the engine says why).
            own = seat.name if isinstance(seat, SeatKey) else seat
            if own is not None and by and by.casefold() != own.casefold():  # a seat speaks for its own player only
                raise RequestError(msg("{seat} names words for themselves only; leave out the other player's name",
                                       seat=own))
            named = by or own or ""
            namer = next((p.name for p in game.state.players if p.name.casefold() == named.casefold()), named)
            return _apply_allowing(game, lambda a: BindNamed(namer, verdict.word, verdict.score, verdict.legal,
                                                             verdict.codes, a), allow)

        gid, game, notes = self.store.act(game_id, action, seen, seat)
        return Result(gid, game, _notes(notes, game), judged[-1])

    def _pass_binding(self, game_id: int | None, by: str, seen: Seen | None, seat: str | SeatKey | None) -> Result:
        def action(game: Game) -> list[str]:
            own = seat.name if isinstance(seat, SeatKey) else seat
            if own is not None and by and by.casefold() != own.casefold():  # a seat passes for its own player only
                raise RequestError(msg("{seat} passes for themselves only; leave out the other player's name",
                                       seat=own))
            return game.apply(BindPassed(game.state.player(by or own or "").name))

        gid, game, notes = self.store.act(game_id, action, seen, seat)
        return Result(gid, game, _notes(notes, game))

    def close_when_all_acted(self, result: Result, seated: Iterable[str]) -> Result:
        """Spell Binding from the phones: once every other player of ``seated`` still in the game has named a word or
        passed (``State.binding_waits_for``), the naming closes as the table's 'done' would, on the version the
        naming or the pass left; else ``result`` as it is. Its notes then say both."""
        state = result.game.state
        if state.phase is not Phase.SPELL_BINDING or state.binding_waits_for(seated):
            return result
        closed = self.act(result.game_id, CloseBinding(), seen=result.game.version)
        return Result(closed.game_id, closed.game, (*result.notes, *closed.notes), result.verdict)

    def bind_done(self, game_id: int | None, *, seen: Seen | None = None) -> Result:
        """Close Spell Binding; says the best word the letters allowed, and rolls when dice are virtual."""
        return self._result(self.act(game_id, CloseBinding(), seen=seen))

    def _bind_done(self, game_id: int | None, seen: Seen | None, seat: str | SeatKey | None) -> Result:
        def action(game: Game) -> list[str]:
            if seat is not None:  # a phone: the naming waits for the others' phones, or the host closes it
                raise RulesError(msg("Spell Binding closes once every other player has named a word or passed, or when "
                                     "the host closes it"))
            window = game.state.window
            letters = window.letters if window is not None else None
            notes = game.apply(BindDone())
            if letters:
                pending = game.state.pending
                best = [w for w in self._dictionary().rack(letters, game.setup.level, game.setup.deck)
                        if not game.state.is_used(w.word) or (pending is not None and pending.word == w.word)]
                # Said only when the table missed a better word (a forced word as good as the best is not a miss).
                if best and (pending is None or pending.score < best[0].score):
                    notes.insert(-1, nmsg("The best word the letters {letters} allowed: {word} ({n} point).",
                                          "The best word the letters {letters} allowed: {word} ({n} points).",
                                          best[0].score, letters=letters, word=best[0].word))
            if game.setup.dice == "virtual" and game.state.phase is Phase.SANITY:
                notes = notes[:-1] + game.apply(SanityRolled(self._current(game), game.virtual_roll()))
            return notes

        gid, game, notes = self.store.act(game_id, action, seen, seat, turn=True)
        return Result(gid, game, _notes(notes, game))

    # -- corrections ------------------------------------------------------------------------------

    def undo(self, game_id: int | None, actions: int = 1, *, seen: Seen | None = None) -> Result:
        """Take back the last ``actions`` actions (a play with its roll is one); ``redo`` can put them back."""
        return self._result(self.act(game_id, Undo(actions), seen=seen))

    def _undo(self, game_id: int | None, actions: int, seen: Seen | None, seat: str | SeatKey | None) -> Result:
        def change(events: list[Event], redo: list[Event]) -> tuple[list[Event], list[Event], list[Event]]:
            if seat is not None and actions != 1:  # a seat's own undo is of its last action: more are the host's
                name = seat.name if isinstance(seat, SeatKey) else seat
                raise NotYours(msg("{seat} can only undo their own last action, until the next player acts; ask the "
                                   "host for any other undo", seat=name), name)
            return undo_events(events, redo, actions)

        gid, game, _, removed = self.store.rewrite(
            game_id, change,
            lambda taken: Correction(CorrectionKind.UNDO, actions, tuple(taken)), seen, seat)
        return Result(gid, game, (), removed=tuple(removed))

    def redo(self, game_id: int | None, actions: int = 1, *, seen: Seen | None = None) -> Result:
        """Put back the last ``actions`` undone actions, in order (until the table takes a new action)."""
        return self._result(self.act(game_id, Redo(actions), seen=seen))

    def _redo(self, game_id: int | None, actions: int, seen: Seen | None) -> Result:
        gid, game, _, back = self.store.rewrite(
            game_id, lambda events, redo: redo_events(events, redo, actions),
            lambda put: Correction(CorrectionKind.REDO, actions, tuple(put)), seen)
        return Result(gid, game, (), restored=tuple(back))

    def leave(self, game_id: int | None, name: str, *, seen: Seen | None = None) -> Result:
        """A player leaves the game (RULES.txt 6)."""
        return self._result(self.act(game_id, Leave(name), seen=seen))

    def _leave(self, game_id: int | None, name: str, seen: Seen | None) -> Result:
        gid, game, notes = self.store.act(game_id, lambda g: g.apply(PlayerLeft(g.state.player(name).name)), seen)
        return Result(gid, game, _notes(notes, game))

    def amend(self, game_id: int | None, roll: int, at: int | None = None, *, seen: Seen | None = None) -> Amended:
        """Correct a past roll: the latest, or the one of the action numbered ``at`` (as ``log`` numbers the
        table's actions).

        Every later action is checked again in order, as if the right roll had been typed (RULES.txt 6):
        a Psychotherapy roll the corrected history no longer allows is dropped, one it would now offer
        but that was never rolled counts as skipped, and each is said in ``notes``. If a later action
        becomes impossible the amendment is refused (an ``AmendRefused``) and nothing changes. Undone
        actions stay ready to redo, checked again too; when they can no longer be, the notes say so.
        The amendment is recorded.
        """
        done = self.act(game_id, Amend(roll, at), seen=seen)
        assert isinstance(done, Amended)
        return done

    def _amend(self, game_id: int | None, roll: int, at: int | None, seen: Seen | None) -> Amended:
        from referee.engine import check_roll

        check_roll(roll)
        log = self.store.command("log", game_id)

        def change(events: list[Event], redo: list[Event]) -> tuple[list[Event], list[Event] | None, _Fix]:
            if events and isinstance(events[0], Created_) and events[0].setup.dice == "virtual":
                raise RequestError(msg("this game uses virtual dice: the referee's rolls cannot be amended"))
            seq, number = _roll_at(events, at, log)
            old = events[seq]
            assert isinstance(old, (SanityRolled, PsychotherapyRolled))
            if old.roll == roll:
                raise RulesError(msg("the roll of action {action} is already {roll}", action=number, roll=roll))
            fixed = SanityRolled(old.player, roll) if isinstance(old, SanityRolled) else \
                PsychotherapyRolled(old.player, roll)
            game = Game.replay([*events[:seq], fixed])
            numbers = action_numbers(events)
            notes: list[Message] = []

            def refuse(index: int, exc: RulesError) -> AmendRefused:
                return AmendRefused(msg("with {roll} instead of {old} in action {action}, action {later} ({what}) "
                                        "becomes impossible: {why}", roll=roll, old=old.roll, action=number,
                                        later=numbers[seq + 1 + index], what=action_words([events[seq + 1 + index]]),
                                        why=message_of(exc)))

            later = _rederive(game, events[seq + 1:], notes, refuse)
            new = [*events[:seq], fixed, *later]
            new_redo: list[Event] | None = None
            if redo:
                trial = Game.replay(new)
                try:
                    new_redo = _rederive(trial, redo, notes, None)
                except RulesError as exc:
                    new_redo = []
                    notes.append(msg("The undone actions can no longer be redone: {why}", why=message_of(exc)))
            return new, new_redo, _Fix(seq, number, old.roll or 0, old.player, Game.replay(events).state.to_dict(),
                                       tuple(notes))

        def record(fix: _Fix) -> Correction:
            return Correction(CorrectionKind.AMEND, seq=fix.seq, action=fix.action, player=fix.player, old=fix.old,
                              new=roll)

        gid, game, _, fix = self.store.rewrite(game_id, change, record, seen)
        return Amended(gid, game, fix.seq, fix.player, fix.old, roll, fix.before, fix.action, fix.notes)

    def amend_roll_off(self, game_id: int | None, name: str, round_: int, roll: int, *,
                       seen: Seen | None = None) -> Amended:
        """Correct ``name``'s roll in round ``round_`` of the roll-off, until the game's first action (RULES.txt 6,
        the roll-off); the roll-off is checked again (a new tie needs another round: refused, say so)."""
        done = self.act(game_id, AmendRollOff(name, round_, roll), seen=seen)
        assert isinstance(done, Amended)
        return done

    def _amend_roll_off(self, game_id: int | None, name: str, round_: int, roll: int, seen: Seen | None) -> Amended:
        from referee.engine import check_roll, check_roll_off

        check_roll(roll)

        def change(events: list[Event], _redo: list[Event]) -> tuple[list[Event], list[Event] | None, _Fix]:
            roll_off = events[1] if len(events) > 1 else None
            if not isinstance(roll_off, RollOff) or not roll_off.rounds:
                raise RulesError(msg("the table chose who goes first: the roll-off has no rolls to amend"))
            if len(events) > 2:
                raise RulesError(msg("the roll-off can be amended only until the game's first action; the seat "
                                     "order stands (undo to the start to change it)"))
            if not 1 <= round_ <= len(roll_off.rounds):
                raise RulesError(nmsg("the roll-off had {n} round, not {round}", "the roll-off had {n} rounds, not "
                                      "{round}", len(roll_off.rounds), round=round_))
            rolls = list(roll_off.rounds[round_ - 1])
            found = [i for i, (who, _) in enumerate(rolls) if who.casefold() == name.casefold()]
            if not found:
                raise RulesError(msg("{name!r} did not roll in round {round} of the roll-off; {players} did",
                                     name=shown_name(name), round=round_, players=", ".join(w for w, _ in rolls)))
            who, was = rolls[found[0]]
            if was == roll:
                raise RulesError(msg("{player}'s roll in round {round} of the roll-off is already {roll}", player=who,
                                     round=round_, roll=roll))
            rolls[found[0]] = (who, roll)
            rounds = (*roll_off.rounds[:round_ - 1], tuple(rolls), *roll_off.rounds[round_:])
            players = events[0].setup.players if isinstance(events[0], Created_) else ()
            # The roll decides an earlier round now: the rounds after it were rolled for nothing (RULES.txt 6).
            needed = _rounds_needed(rounds, players)
            dropped = tuple(range(needed + 1, len(rounds) + 1))
            rounds = rounds[:needed]
            try:
                check_roll_off(rounds, players)
            except RulesError as exc:
                raise AmendRefused(msg("with {roll} instead of {old}, the roll-off no longer stands: {why}", roll=roll,
                                       old=was, why=message_of(exc))) from None
            notes = (nmsg("Round {rounds} of the roll-off is no longer needed: dropped.",
                          "Rounds {rounds} of the roll-off are no longer needed: dropped.", len(dropped),
                          rounds=", ".join(map(str, dropped))),) if dropped else ()
            return [events[0], RollOff(rounds)], None, _Fix(1, 0, was, who, Game.replay(events).state.to_dict(),
                                                            notes)

        def record(fix: _Fix) -> Correction:
            return Correction(CorrectionKind.AMEND, seq=1, action=0, round=round_, player=fix.player, old=fix.old,
                              new=roll)

        gid, game, _, fix = self.store.rewrite(game_id, change, record, seen)
        return Amended(gid, game, fix.seq, fix.player, fix.old, roll, fix.before, 0, fix.notes)


def _rounds_needed(rounds: tuple[tuple[tuple[str, int], ...], ...], players: tuple[str, ...]) -> int:
    """How many of a roll-off's ``rounds`` decide it: up to the first round one player alone rolls highest in, among
    those it is rolled by (all of them, when none does; ``check_roll_off`` then says what is wrong)."""
    contenders = {name.casefold() for name in players}
    for number, rnd in enumerate(rounds, start=1):
        rolled = [(name, value) for name, value in rnd if name.casefold() in contenders]
        if not rolled:
            break
        top = max(value for _, value in rolled)
        contenders = {name.casefold() for name, value in rolled if value == top}
        if len(contenders) == 1:
            return number
    return len(rounds)


def _prepared_game(game_id: int | None, prepared: Prepared) -> int:
    """The game a prepared word is played in: the one it was judged for; another game named is refused (it would
    write to the game judged, not the one named)."""
    if game_id is not None and game_id != prepared.game_id:
        raise RequestError(msg("this word was judged for game {judged}, not game {game}; prepare it in the game it is "
                               "played in", judged=prepared.game_id, game=game_id))
    return prepared.game_id


def shown_name(name: str, most: int = 40) -> str:
    """A name typed by someone, cut for a message."""
    return name if len(name) <= most else name[:most] + "…"


@value(frozen=True)
class _Fix:
    """What an amendment found, for its record and its result."""

    seq: int
    action: int
    old: int
    player: str
    before: dict[str, Any]
    notes: tuple[str, ...]


def _rederive(game: Game, later: list[Event], notes: list[Message],
              refuse: Callable[[int, RulesError], RulesError] | None) -> list[Event]:
    """Apply ``later`` to ``game`` as the corrected history allows (RULES.txt 6, what an amendment carries with
    it): a Psychotherapy roll that can no longer happen is dropped; one the game now offers before another
    action counts as skipped. Returns the events kept; a refusal is ``refuse(index, error)`` when given."""
    kept: list[Event] = []
    for index, event in enumerate(later):
        state = game.state
        if isinstance(event, PsychotherapyRolled) and state.phase is not Phase.PSYCHOTHERAPY:
            notes.append(msg("{player}'s Psychotherapy roll is dropped: with the corrected roll it can no longer "
                             "happen.", player=event.player) if event.roll is not None else
                         msg("{player}'s skipped Psychotherapy is dropped: with the corrected roll it is no longer "
                             "offered.", player=event.player))
            continue
        if state.phase is Phase.PSYCHOTHERAPY and not isinstance(event, PsychotherapyRolled) and state.current:
            skipped = PsychotherapyRolled(state.current.name, None)
            game.apply(skipped)
            kept.append(skipped)
            notes.append(msg("{player} would now have had a Psychotherapy roll; it was never rolled, so it counts "
                             "as skipped.", player=skipped.player))
        try:
            game.apply(event)
        except RulesError as exc:
            raise (refuse(index, exc) if refuse is not None else exc) from None
        kept.append(event)
    return kept


class AmendRefused(RulesError):
    """An amended roll that would make a later action impossible (names the action and why)."""


@value(frozen=True)
class Amended(_GameNow):
    """What an amended roll did: which roll (its event ``seq`` and its ``action`` as the table numbers them),
    from what to what, what the corrected history changed beyond the scores (``notes``), and the game now."""

    game_id: int
    game: Game
    seq: int
    player: str
    old: int
    new: int
    before: dict[str, Any]   # the state before, as ``State.to_dict()`` (to say what changed)
    action: int = 0
    notes: tuple[str, ...] = ()


def action_numbers(events: list[Event]) -> list[int]:
    """For each event, the number of the table's action it belongs to (RULES.txt 6): 0 for the set-up and the
    roll-off, then 1, 2... for each action; a roll, or a step the referee takes itself (closing Spell Binding
    when nothing can be bound), belongs to the action before it."""
    starts = set(action_starts(events))
    numbers, number = [], 0
    for index in range(len(events)):
        if index in starts:
            number += 1
        numbers.append(number)
    return numbers


def _roll_at(events: list[Event], at: int | None, log: str) -> tuple[int, int]:
    """The index of the roll to amend and its action's number: the latest roll, or the roll of action ``at``
    (``log``: the command, in its quotes, that numbers the actions, naming the game's database)."""
    def is_roll(event: Event) -> bool:
        return isinstance(event, SanityRolled) or (isinstance(event, PsychotherapyRolled) and event.roll is not None)

    numbers = action_numbers(events)
    if at is None:
        for index in range(len(events) - 1, -1, -1):
            if is_roll(events[index]):
                return index, numbers[index]
        raise RulesError(msg("no roll has been recorded in this game yet"))
    if at == 0:
        raise RulesError(msg("action 0 is the set-up; a roll-off roll is amended with --roll-off NAME --round N"))
    if not 0 < at <= numbers[-1]:
        raise RulesError(msg("there is no action {at} in this game; {log} numbers them", at=at, log=log))
    rolls = [i for i, n in enumerate(numbers) if n == at and is_roll(events[i])]
    if not rolls:
        raise RulesError(msg("action {at} ({action}) has no roll to amend; {log} numbers the actions",
                             at=at, log=log, action=action_words([e for e, n in zip(events, numbers) if n == at])))
    return rolls[-1], at


def history_notes(events: list[Event]) -> list[list[str]]:
    """For each event of a game, what it did in words, as ``log`` shows it (nothing for the creation)."""
    return Game.told(events)


__all__ = ["Referee", "Result", "Prepared", "PlayCheck", "Waiting", "RequestError", "waiting", "history_notes",
           "Amended", "AmendRefused", "action_numbers"]

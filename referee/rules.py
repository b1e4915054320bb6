"""The rules: ``Game.apply`` checks an event against every rule and ruling of RULES.txt, then records it, so a
refused event leaves the game as it was; ``Seen`` guards whose action it is; the checks of names, rolls and the
roll-off; what undo and redo take back and put back.

Over 500 lines, on purpose: ``Game``'s handlers are one rule each, and they share the game's state and the
notes of what happened; split by event kind, each part would reach into the others' private steps.
"""
from __future__ import annotations

from collections import Counter

from dictionaries.i18n import Message
from dictionaries.rules import DIE, HAND_SIZE, MIN_WORD_LETTERS, PAWNS
from referee.events import (
    _QUIET,
    _UNSAID,
    BadLetters,
    BadRoll,
    BindDone,
    BindNamed,
    BindPassed,
    CardsRefused,
    Correction,
    Created,
    Discarded,
    Event,
    GameChanged,
    GameOver,
    NothingToUndo,
    NotTheirTurn,
    PlayerLeft,
    PsychotherapyRolled,
    RollOff,
    RulesError,
    SanityRolled,
    Setup,
    SetupError,
    WordPlayed,
    WordRefused,
    WrongPhase,
)
from referee.notes import Happened, refusal
from referee.state import DiscardWindow, Outcome, Pending, Phase, Player, State, Termination
from referee.values import value
from referee.words import cannot_words, cut, join_clauses, join_list, meanwhile_words, over_words, reasons_words

TYPE_CHECKING = False  # importing typing costs more than a status command: the names are for the checkers
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

def said(kind: str, /, **facts: Any) -> Message:
    """What an event did, as a value (``referee.notes.Happened``: a kind and its facts, said by the notes'
    renderer), or the bare kind during a quiet replay, whose notes no one reads (``Game.replay``)."""
    if _QUIET.get():
        return kind  # type: ignore[return-value]  # read by no one: the replay discards it
    return Happened(kind, **facts)


# -- the game -------------------------------------------------------------------------------------

class Game:
    """A game: the events so far and the state they give. ``apply`` is the only way to change it."""

    #: When a list, ``apply`` appends each event's notes to it: what a writer (the store) keeps of the last
    #: actions' words beside its snapshot, so that a reader need not replay the game to say them.
    said: list[list[str]] | None = None
    #: The game's version as the store read or wrote it (``referee.store_format.version_of``), None when no store
    #: gave one: what a table saw, for the turn guard (``Seen.version``).
    version: str | None = None
    #: The words of its last actions as the store keeps them beside its snapshot (each action a list of notes as
    #: JSON), when a store read or wrote them: what a face shows without reading the game again.
    recent: list[list[Any]] | None = None

    def __init__(self, setup: Setup) -> None:
        #: The events this object holds: all of them after a replay, only the new ones after ``resume``.
        self.events: list[Event] = []
        #: How many events came before ``events[0]`` (0 unless resumed from a snapshot).
        self.base = 0
        #: How many undos the game has had: a virtual roll after an undo is a new roll (RULES.txt 6).
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

    @classmethod
    def replay(cls, events: Iterable[Event], words: bool = True) -> Game:
        """The game those events give; the same events always give the same state.

        What each event but the last did is not said in words: nobody can read it (``state.notes`` holds
        the last one's, and a replayed game keeps no ``said``), and saying it cost two thirds of a replay.
        An event refused on the way is replayed again with words, so the refusal is the one a replay
        saying everything gives. ``words`` is kept for the callers that asked for this (``words=False``)
        before it was what every replay does."""
        del words  # every replay is the quiet one
        iterator = iter(events)
        first = next(iterator, None)
        if not isinstance(first, Created):
            raise RulesError(refusal("first_event_not_creation"))
        game = cls(first.setup)
        rest = list(iterator)
        token = _QUIET.set(True)
        try:
            for event in rest[:-1]:
                game.apply(event)
        except Exception:  # whatever it was, the replay with words raises it as it is
            failed = True
        else:
            failed = False
        finally:
            _QUIET.reset(token)
        if failed:
            return cls._replay_saying_everything(first, rest)
        if rest:
            game.apply(rest[-1])
        return game

    @classmethod
    def _replay_saying_everything(cls, first: Created, rest: list[Event]) -> Game:
        """The replay of a refused event: every event said in words, so the refusal is the one the table met."""
        game = cls(first.setup)
        for event in rest:
            game.apply(event)
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
        except Exception:  # whatever it was, the replay with every sentence raises it as it is
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
            raise WrongPhase(refusal("game_already_created"))
        if state.phase is Phase.OVER:
            assert self.state.winner is not None
            raise GameOver(refusal("game_over", n=state.player(self.state.winner).score, player=self.state.winner))
        handler = getattr(self, _HANDLERS[type(event)])  # a KeyError for anything but the kinds of event below
        notes: list[str] = []
        handler(event, notes)
        self.events.append(event)
        state.events = self.count
        state.notes = notes
        if self.said is not None:
            self.said.append(notes)
        return notes

    def _expect(self, *phases: Phase, why: Callable[[], Message]) -> None:
        """WrongPhase saying ``why()`` ("cannot discard now.") and what the game waits for instead (the
        sentence is made only for a refusal: every event passes here)."""
        if self.state.phase not in phases:
            raise WrongPhase(refusal("cannot_now_waiting", refusal=why(), waiting=self.state.waiting_for()))

    def _apply_created(self, event: Created) -> None:
        setup = event.setup
        self.state.draw_pile = setup.deck.size - HAND_SIZE * len(setup.players)

    def _apply_roll_off(self, event: RollOff, notes: list[str]) -> None:
        self._expect(Phase.ROLL_OFF, why=lambda: refusal("cannot_roll_off_now"))
        state = self.state
        if event.first is not None:
            if event.rounds:
                raise RulesError(refusal("give_either_roll_off"))
            first = state.seat(event.first)
            notes.append(said("first_chosen", player=state.players[first].name))
        else:
            first = self.state.seat(check_roll_off(event.rounds, self.setup.players))
            for number, rnd in enumerate(event.rounds, start=1):
                rolls = ", ".join(f"{n} {r}" for n, r in rnd)
                notes.append(said("roll_off_round", rolls=rolls) if number == 1 else
                             said("re_roll", number=number - 1, rolls=rolls))
            notes.append(said("first_by_roll", player=state.players[first].name))
        state.turn = first
        state.phase = Phase.ACTION
        notes.append(state.waiting_for())

    def _check_player(self, name: str, doing: str, word: str = "") -> Player:
        """The player whose turn it is, or WrongPhase naming whose turn it is instead."""
        state = self.state
        player = state.player(name)
        assert state.current is not None
        if player is not state.current:
            raise WrongPhase(refusal("not_your_turn", current=state.current.name, player=player.name, refusal=cannot_words(doing, player.name, word)))
        return player

    def _apply_word(self, event: WordPlayed, notes: list[str]) -> None:
        self._expect(Phase.ACTION, Phase.LAST_WORDS, why=lambda: refusal("cannot_play_now", word=event.word))
        state = self.state
        player = self._check_player(event.player, "play", event.word)
        if not is_letters(event.word):
            raise WordRefused(refusal("word_not_letters", word=event.word))
        word = event.word.upper()
        oath = state.can_oath(player)
        self._check_word_fits(word, player.hand, oath)
        face_up = self._face_up_refusal(word)
        if not (event.legal or event.allowed or oath):
            reasons = reasons_words(event.reasons, state.setup.level)
            if face_up:
                raise WordRefused(refusal("allowed_cannot_hold", word=word, reasons=reasons, player=player.name, cards=face_up),
                                  (*event.reasons, "discard_pile"))
            raise WordRefused(refusal("word_not_allowed", word=word, reasons=reasons), event.reasons)
        expected = state.setup.deck.score(word)
        if event.score != expected:
            raise RulesError(refusal("scores_deck", word=word, expected=expected, score=event.score))
        if face_up and not event.allowed:
            raise CardsRefused(refusal("cannot_hold", player=player.name, word=word, cards=face_up), word)
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
            return said("plays_overruling_both", n=n, player=name, word=word, reasons=reasons, cards=face_up)
        if dictionary:
            return said("plays_overruling_dictionary", n=n, player=name, word=word, reasons=reasons)
        if cards:
            return said("plays_overruling_cards", n=n, player=name, word=word, cards=face_up)
        if oath and not event.legal:
            return said("plays_by_oath", n=n, player=name, word=word)
        return said("plays", n=n, player=name, word=word)

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
                    problems.append(refusal("only_discard_pile", letter=letter))
                elif seen == held:
                    problems.append(refusal("all_discard_pile", held=held, letter=letter))
                else:
                    problems.append(refusal("discard_pile_so_most", n=held - seen, seen=seen, held=held, letter=letter))
        return join_clauses(problems) if problems else None

    def _lay_face_up(self, letters: str) -> None:
        for letter in letters:
            self.state.face_up[letter] = self.state.face_up.get(letter, 0) + 1

    def _check_word_fits(self, word: str, hand: int, oath: bool) -> None:
        state = self.state
        shortest = 1 if oath else MIN_WORD_LETTERS
        if not shortest <= len(word) <= min(hand, HAND_SIZE):
            raise WordRefused(refusal("has_letter_word_here", n=len(word), word=word, least=shortest, most=min(hand, HAND_SIZE)),
                              ("too_short",) if len(word) < shortest else ("too_long",))
        over = None if state.setup.deck.can_spell(word) else state.setup.deck.over_limit(word)
        if over:
            raise WordRefused(refusal("deck_too_few", word=word, letters=over_words(over)), ("deck_limit",))
        if state.is_used(word):
            raise WordRefused(refusal("already_played_game", word=word), ("used",))

    def _apply_sanity(self, event: SanityRolled, notes: list[str]) -> None:
        self._expect(Phase.SANITY, why=lambda: refusal("cannot_roll_sanity_check"))
        state = self.state
        player = self._check_player(event.player, "sanity")
        check_roll(event.roll)
        pending = state.pending
        assert pending is not None
        passed = event.roll == DIE or event.roll >= pending.score
        target = state.setup.target
        reaches = player.score + pending.score >= target
        quiet = _QUIET.get()  # a quiet replay says nothing: the sentences are not even made (most of its cost)
        if quiet:
            pass
        elif passed:
            notes.append(said("sanity_passed", player=player.name, roll=event.roll, word=pending.word))
        else:
            notes.append(said("sanity_failed", player=player.name, roll=event.roll, word=pending.word))
        if reaches and not passed:
            if not quiet:
                notes.append(said("overshoot_scores_nothing", word=pending.word, score=player.score + pending.score,
                                  target=target))
        else:
            player.score += pending.score
            if pending.score:
                player.score_changed_at = self.count
            if not quiet:
                notes.append(said("scores", n=player.score, player=player.name, scored=pending.score))
        state.pending = None
        if not passed:
            player.pawns -= 1
            notes.append(said("loses_pawn", n=player.pawns, player=player.name)
                         if player.pawns else
                         said("loses_last_pawn", player=player.name))
        if passed and reaches:
            self._reach_target(player, notes)
        self._end_turn(player, notes)

    def _reach_target(self, player: Player, notes: list[str]) -> None:
        state = self.state
        if not state.setup.options.last_words:
            self._win(player, notes, said("wins_by_target", player=player.name, score=player.score),
                      Termination.TARGET)
            return
        if state.last_words is None:
            state.reached = player.name
            seats = [(state.turn + k) % len(state.players) for k in range(1, len(state.players))]  # type: ignore[operator]
            state.last_words = [s for s in seats if not state.players[s].out]
            if state.last_words:
                notes.append(said("last_words_begin", player=player.name, score=player.score, players=", ".join(state.players[s].name for s in state.last_words)))
            else:
                notes.append(said("last_words_begin_none", player=player.name, score=player.score))

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
                notes.append(said("draws_then_reshuffle", n=first, player=player.name, shuffled=shuffled, second=second))
            else:
                notes.append(said("reshuffle_then_draws", player=player.name, shuffled=shuffled, second=second))
        else:
            drawn = first
            if not _QUIET.get():
                notes.append(said("draws", n=drawn, player=player.name))
        if drawn < wanted:
            notes.append(said("piles_empty", n=player.hand + drawn, player=player.name))
        player.hand += drawn

    def _end_turn(self, player: Player, notes: list[str]) -> None:
        """After the sanity check or the discard: eliminations, drawing, the next turn."""
        state = self.state
        if state.phase is Phase.OVER:
            return
        if player.pawns == 0:
            player.out = True
            if player.hand:
                notes.append(said("out_hand_discarded", n=player.hand, player=player.name))
            if self._hand_out_and_last_standing(player, notes):
                return
        elif self._last_turn_of_game():  # the game ends now: nobody draws, however it ended (RULES.txt 6, the end)
            if self.setup.ending_draw:  # a game recorded before that ruling replays as it was
                self._draw(player, HAND_SIZE - player.hand, [])
        else:
            self._draw(player, HAND_SIZE - player.hand, notes)  # back up to 7 (a new hand after a discard)
        self._next_turn(notes)

    def _hand_out_and_last_standing(self, player: Player, notes: list[str]) -> bool:
        """A player who is out: the hand goes to the discard pile; True when that leaves one player with
        pawns, who has then won (RULES.txt 4; also when a player leaves, RULES.txt 6)."""
        state = self.state
        state.discard_pile += player.hand
        player.hand = 0
        standing = [p for p in state.players if not p.out]
        if len(standing) != 1:
            return False
        self._win(standing[0], notes, said("wins_last_standing", player=standing[0].name),
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
            why = said("wins_after_last_words_tied", n=best, player=winner.name)
        else:
            why = said("wins_after_last_words", n=best, player=winner.name)
        self._win(winner, notes, why, Termination.LAST_WORDS)

    def _apply_discard(self, event: Discarded, notes: list[str]) -> None:
        self._expect(Phase.ACTION, Phase.LAST_WORDS, why=lambda: refusal("cannot_discard_now"))
        state = self.state
        player = self._check_player(event.player, "discard")
        options = state.setup.options
        if event.letters is not None and not is_letters(event.letters):
            raise BadLetters(refusal("discard_not_letters", letters=event.letters))
        letters = event.letters.upper() if event.letters is not None else None
        if letters is None and (options.spell_binding or options.psychotherapy):
            raise BadLetters(refusal("spell_binding_psychotherapy_discard"))
        face_up = None
        if letters is not None:
            if len(letters) != player.hand:
                raise BadLetters(refusal("holds_card_but_letters", n=player.hand, player=player.name, letters=letters, count=len(letters)))
            over = state.setup.deck.over_limit(letters)
            if over:
                raise BadLetters(refusal("cannot_be_hand", letters=letters, detail=over_words(over)))
            face_up = self._face_up_refusal(letters)
            if face_up and not event.allowed:
                raise CardsRefused(refusal("cannot_be_players_hand", letters=letters, player=player.name, cards=face_up), letters)
        state.discard_pile += player.hand
        if letters:
            self._lay_face_up(letters)
        if letters and face_up:
            notes.append(said("discards_overruling_cards", player=player.name, letters=letters, cards=face_up))
        elif letters:
            notes.append(said("discards_letters", player=player.name, letters=letters))
        else:
            notes.append(said("discards", player=player.name))
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
            notes.append(said("no_psychotherapy_all_pawns", n=PAWNS, player=player.name))
        self._end_turn(player, notes)

    def _apply_bind_named(self, event: BindNamed, notes: list[str]) -> None:
        self._expect(Phase.SPELL_BINDING, why=lambda: refusal("cannot_name_spell_binding", word=event.word))
        state = self.state
        window = state.window
        assert window is not None and window.letters is not None and state.current is not None
        namer = state.player(event.by)
        if namer is state.current:
            raise WordRefused(refusal("discarded_only_other_players", player=namer.name))
        if namer.out:
            raise WordRefused(refusal("out_game_cannot_name", player=namer.name))
        if namer.name in window.passed:
            raise WordRefused(refusal("already_named_or_passed", player=namer.name))
        if not is_letters(event.word):
            raise WordRefused(refusal("word_not_letters", word=event.word))
        word = event.word.upper()
        missing = Counter(word) - Counter(window.letters)
        if missing:
            more = join_list([refusal("more_letters", n=n, letter=c) for c, n in sorted(missing.items())])
            raise WordRefused(refusal("cannot_made_needs", word=word, letters=window.letters, more=more))
        self._check_word_fits(word, HAND_SIZE, False)
        reasons = reasons_words(event.reasons, state.setup.level)
        if not event.legal and not event.allowed:
            raise WordRefused(refusal("not_legal_word", word=word, reasons=reasons),
                              event.reasons)
        if any(w == word for _, w, _ in window.named):
            raise WordRefused(refusal("already_named", word=word))
        expected = state.setup.deck.score(word)
        if event.score != expected:
            raise RulesError(refusal("scores_deck", word=word, expected=expected, score=event.score))
        window.named.append((namer.name, word, event.score))
        if event.allowed and not event.legal:
            notes.append(said("names_overruling_dictionary", n=event.score, namer=namer.name, word=word, player=state.current.name, reasons=reasons))
        else:
            notes.append(said("names", n=event.score, namer=namer.name, word=word, player=state.current.name))
        notes.append(state.waiting_for())

    def _apply_bind_passed(self, event: BindPassed, notes: list[str]) -> None:
        self._expect(Phase.SPELL_BINDING, why=lambda: refusal("cannot_pass_spell_binding"))
        state = self.state
        window = state.window
        assert window is not None and state.current is not None
        player = state.player(event.by)
        if player is state.current:
            raise RulesError(refusal("discarded_only_other_players", player=player.name))
        if player.out:
            raise RulesError(refusal("out_game_cannot_name", player=player.name))
        if player.name in window.passed or any(by == player.name for by, _, _ in window.named):
            raise RulesError(refusal("already_named_or_passed", player=player.name))
        window.passed.append(player.name)
        notes.append(said("passes_binding", player=player.name, discarder=state.current.name))
        notes.append(state.waiting_for())

    def _apply_bind_done(self, event: BindDone, notes: list[str]) -> None:
        self._expect(Phase.SPELL_BINDING, why=lambda: refusal("cannot_close_spell_binding"))
        state = self.state
        window = state.window
        player = state.current
        assert window is not None and player is not None
        if event.nothing_to_bind and window.named:
            raise RulesError(refusal("words_were_named_spell"))
        if event.nothing_to_bind:
            notes.append(said("nothing_to_bind", letters=window.letters))
            self._after_binding(player, notes)
            return
        if not window.named:
            notes.append(said("no_word_named"))
            self._after_binding(player, notes)
            return
        best = max(window.named, key=lambda named: named[2])  # max keeps the first on a tie: named first wins
        by, word, score = best
        state.used_words.append(word)
        state.pending = Pending(state.turn, word, score, forced=True)  # type: ignore[arg-type]
        state.phase = Phase.SANITY
        notes.append(said("must_play_bound", n=score, player=player.name, word=word, namer=by))
        notes.append(state.waiting_for())

    def _apply_psychotherapy(self, event: PsychotherapyRolled, notes: list[str]) -> None:
        self._expect(Phase.PSYCHOTHERAPY, why=lambda: refusal("cannot_roll_psychotherapy_now"))
        state = self.state
        player = self._check_player(event.player, "psychotherapy")
        window = state.window
        assert window is not None and window.letters is not None
        value = state.setup.deck.score(window.letters)
        if event.roll is None:
            notes.append(said("psychotherapy_passed", player=player.name))
        else:
            check_roll(event.roll)
            if event.roll > value and player.pawns < PAWNS:
                player.pawns += 1
                notes.append(said("psychotherapy_regains", player=player.name, roll=event.roll, value=value, pawns=player.pawns))
            else:
                notes.append(said("psychotherapy_fails", player=player.name, roll=event.roll, value=value))
        self._end_turn(player, notes)


    def _apply_left(self, event: PlayerLeft, notes: list[str]) -> None:
        """A player leaves (RULES.txt 6): out as if the last pawn were lost; the game goes on without them."""
        state = self.state
        if state.phase is Phase.ROLL_OFF:
            raise WrongPhase(refusal("game_not_started"))
        player = state.player(event.player)
        if player.out:
            raise RulesError(refusal("has_already_left_game", player=player.name) if player.left else
                             refusal("already_out_game", player=player.name))
        seat = state.players.index(player)
        current = seat == state.turn
        player.out = True
        player.left = True
        notes.append(said("leaves", n=player.score, player=player.name))
        if current and state.pending is not None:
            notes.append(said("pending_scores_nothing", word=state.pending.word))
            state.pending = None
        if current and state.window is not None:
            state.window = None
        if player.hand:
            notes.append(said("leaver_hand_discarded", n=player.hand, player=player.name))
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


#: Which of ``Game``'s steps applies each kind of event.
_HANDLERS: dict[type[Event], str] = {
    RollOff: "_apply_roll_off", WordPlayed: "_apply_word", SanityRolled: "_apply_sanity",
    Discarded: "_apply_discard", BindNamed: "_apply_bind_named", BindPassed: "_apply_bind_passed",
    BindDone: "_apply_bind_done",
    PsychotherapyRolled: "_apply_psychotherapy", PlayerLeft: "_apply_left",
}


@value(frozen=True)
class Seen:
    """What the table saw when it decided an action (RULES.txt 6, whose action): how many events the game
    had, whose turn it was, how many undos it had had. A field left None is not checked:
    ``Seen(player="Ann")`` only says the action is Ann's (``--as Ann``)."""

    events: int | None = None
    player: str | None = None
    undos: int | None = None
    #: The game's version as the table saw it (``Game.version``: its event count and chain digest, set by the
    #: store): any write since changes it, an undo, a redo or an amended roll included, even when the count
    #: comes back.
    version: str | None = None

    @classmethod
    def of(cls, game: Game) -> Seen:
        """What a table looking at ``game`` sees."""
        current = game.state.current
        player = None if current is None or game.state.is_over() else current.name
        return cls(game.count, player, game.generation, game.version)

    def moved(self, game: Game) -> bool:
        """True when ``game`` is no longer what was seen (another version, more or fewer events, another undo)."""
        return ((self.version is not None and game.version != self.version)
                or (self.events is not None and game.count != self.events)
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
            if state.is_over():  # the same game, over: it waits for nothing
                raise GameOver(state.waiting_for())
            if now is None:  # the same game, not started: what it waits for
                raise GameChanged(state.waiting_for())
            raise NotTheirTurn(refusal("not_named_turn", player=now, named=state.player(self.player).name))
        what = happened if happened is not None else refusal("game_moved_on")
        if now is None:
            raise GameChanged(refusal("moved_meanwhile", what=what, waiting=state.waiting_for()))
        raise GameChanged(refusal("moved_meanwhile_turn", what=what, player=now))


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
    """Refuse names a table could not tell apart (RULES.txt 6: whose action): a name mixing scripts whose
    letters look alike (a Cyrillic А in a Latin name), or two names that look the same."""
    for name in players:
        scripts = _scripts(name)
        if len(scripts) > 1:
            raise SetupError(refusal("player_name_mixes_letters", name=cut(name)))
    seen: dict[str, str] = {}
    for name in players:
        skeleton = name_skeleton(name)
        if skeleton in seen:
            raise SetupError(refusal("player_names_look_same", first=cut(seen[skeleton]), second=cut(name)))
        seen[skeleton] = name


def is_letters(text: object) -> bool:
    """True for a non-empty string of the letters A-Z only (checked before any case change:
    ``"ß".upper()`` is ``"SS"``)."""
    return isinstance(text, str) and text.isascii() and text.isalpha()


def check_roll(roll: object) -> int:
    if not isinstance(roll, int) or isinstance(roll, bool) or not 1 <= roll <= DIE:
        raise BadRoll(refusal("not_a_roll", roll=roll, most=DIE))
    return roll


def check_roll_off(rounds: tuple[tuple[tuple[str, int], ...], ...], players: tuple[str, ...]) -> str:
    """The winner of a roll-off; each round must be rolled by exactly those tied highest before."""
    if not rounds:
        raise RulesError(refusal("roll_off_needs_least"))
    contenders = list(players)
    for number, rnd in enumerate(rounds, start=1):
        names = [name for name, _ in rnd]
        if sorted(n.casefold() for n in names) != sorted(n.casefold() for n in contenders):
            raise RulesError(refusal("roll_off_round_rolled", number=number, players=", ".join(contenders), names=", ".join(names)))
        for _, roll in rnd:
            check_roll(roll)
        top = max(r for _, r in rnd)
        canon = {n.casefold(): n for n in contenders}
        contenders = [canon[n.casefold()] for n, r in rnd if r == top]
        if len(contenders) == 1:
            if number != len(rounds):
                raise RulesError(refusal("roll_off_decided_round", number=number))
            return contenders[0]
    raise RulesError(refusal("roll_off_still_tied", players=", ".join(contenders)))


def action_starts(events: list[Event]) -> list[int]:
    """Indexes of the events that start an action as the table sees it (a play with its roll is one)."""
    # The roll-off is part of the set-up: undoing it would leave a game no command can restart.
    return [i for i, e in enumerate(events) if e.starts_action and not isinstance(e, (Created, RollOff))]


def undo_point(events: list[Event], actions: int) -> int:
    """How many events remain after undoing the last ``actions`` actions."""
    if actions < 1:
        raise NothingToUndo(refusal("undo_needs_number_actions", actions=actions))
    starts = action_starts(events)
    if not starts:
        raise NothingToUndo(refusal("nothing_to_undo"))
    if actions > len(starts):
        raise NothingToUndo(refusal("only_action_undone_set", n=len(starts), actions=actions))
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
        raise NothingToUndo(refusal("nothing_to_redo") if not starts else
                            refusal("only_undone_action_redone", n=len(starts), actions=actions))
    end = starts[actions] - 1 if actions < len(starts) else len(redo)
    return events + redo[:end], redo[end:], redo[:end]


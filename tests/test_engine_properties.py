"""Property-based tests of the rules engine: random action sequences for random option sets.

Actions are drawn to fit the phase most of the time (words from a list of real words with their card
table scores, rolls 1..20, discards of plausible hands, Spell Binding names, Psychotherapy rolls),
and sometimes at random (wrong player, wrong phase, used words, gibberish). A refused action must
leave the game exactly as it was; an accepted one must keep every invariant of RULES.md, and the
game must replay from its events and undo to the state before any action.
"""
from __future__ import annotations

import copy
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from dictionaries.deck import STANDARD
from dictionaries.rules import HAND_SIZE
from referee.engine import (
    PAWNS,
    BindDone,
    BindNamed,
    Discarded,
    Event,
    Game,
    GameOver,
    Options,
    Phase,
    PlayerLeft,
    PsychotherapyRolled,
    RollOff,
    RulesError,
    SanityRolled,
    Setup,
    State,
    WordPlayed,
    check_roll_off,
    undo_point,
)

NAMES = ("Ann", "Bob", "Cy", "Dee")

#: Real words, 3 to 7 letters, each within the standard deck's counts.
WORDS = (
    "CAT", "DOG", "SUN", "LOOK", "TAPS", "TEN", "TOP", "RUM", "CHAMP", "COLUMNS", "COO", "STOP", "POTS",
    "SPOT", "POETS", "COAT", "TACO", "POSE", "COPE", "EARTH", "HEARTS", "SHORE", "OTHERS", "HEART",
    "WEARIER", "EARLIER", "FEATHER", "LEARNER", "BREAD", "WIZARD", "BRANCH", "GARDEN", "HILL", "FIRE",
    "MOON", "SNOW", "NUT", "OWL", "CLOUD", "CUP", "TREE", "RIVER", "STONE", "LIGHT", "NIGHT", "HAPPY",
    "TABLE", "PAPER", "MUSIC", "OCEAN", "BEACH", "WINTER", "SUMMER", "CASTLE", "DRAGON", "KNIGHT",
    "MAGIC", "SPELL", "WORD", "BOOK", "PAGE", "INK", "PEN", "LAMP", "DOOR", "WALL", "ROOF", "HORSE",
    "MOUSE", "TIGER", "LION", "WOLF", "FOX", "CROW", "RAVEN", "EAGLE", "FISH", "CRAB", "FROG", "ANT",
    "BEE", "MOTH", "FLY", "SEED", "ROOT", "LEAF", "BARK", "PINE", "OAK", "ELM", "ASH", "MOSS", "FERN",
    "SAND", "ROCK", "CAVE", "LAKE", "POND", "WAVE", "SHIP", "BOAT", "SAIL", "ROPE", "KNOT", "HOOK",
)
#: 7-letter hands for discards; several spell words above (Spell Binding) and their values spread
#: from 0 to 28 (Psychotherapy).
HANDS = ("OCLNUSM", "CATSPOE", "EARTHOS", "WEARIER", "COOSUSC", "BREADOO", "LOOKTEN", "HILFIRE")
DECK_CARDS = "".join(letter * STANDARD.count(letter) for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def snapshot(state: State) -> State:
    """A deep copy sharing the immutable Setup (its Deck holds mapping proxies deepcopy cannot copy)."""
    return copy.deepcopy(state, {id(state.setup): state.setup})


def formable(text: str, letters: str) -> bool:
    return not (Counter(text) - Counter(letters))


@st.composite
def hands(draw: st.DrawFn, size: int) -> str:
    if size == HAND_SIZE and draw(st.booleans()):
        return draw(st.sampled_from(HANDS))
    rnd = draw(st.randoms(use_true_random=False))
    return "".join(rnd.sample(DECK_CARDS, size))


@st.composite
def fitting_action(draw: st.DrawFn, state: State) -> Event:
    """An action that fits the phase (it may still be refused, e.g. a used word)."""
    names = [p.name for p in state.players]
    cur = state.current
    if state.phase is Phase.ROLL_OFF:
        return RollOff(first=draw(st.sampled_from(names)))
    assert cur is not None
    if state.phase in (Phase.ACTION, Phase.LAST_WORDS):
        kinds = ["word", "word", "word", "discard", "gibberish"]
        if state.can_oath(cur):
            kinds += ["gibberish"] * 3
        kind = draw(st.sampled_from(kinds))
        if kind == "word":
            text = draw(st.sampled_from(WORDS))
            return WordPlayed(cur.name, text, STANDARD.score(text), True)
        if kind == "gibberish":  # only the Unspellable Oath lets it through
            text = "".join(draw(st.lists(st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), min_size=1, max_size=7)))
            return WordPlayed(cur.name, text, STANDARD.score(text), False, ("not_a_word",))
        with_letters = draw(st.booleans()) or state.setup.options.spell_binding or state.setup.options.psychotherapy
        return Discarded(cur.name, draw(hands(cur.hand)) if with_letters else None)
    if state.phase is Phase.SANITY:
        # low rolls are drawn more often so that pawns are lost, players go out and the Oath comes up
        low: st.SearchStrategy[int] = st.integers(1, 20) | st.integers(1, 5)
        return SanityRolled(cur.name, draw(low))
    if state.phase is Phase.SPELL_BINDING:
        assert state.window is not None and state.window.letters is not None
        others = [p.name for p in state.players if p is not cur and not p.out]
        candidates = [w for w in WORDS if formable(w, state.window.letters)]
        if candidates and draw(st.integers(0, 2)) != 0:
            text = draw(st.sampled_from(candidates))
            return BindNamed(draw(st.sampled_from(others)), text, STANDARD.score(text), True)
        return BindDone()
    if state.phase is Phase.PSYCHOTHERAPY:
        return PsychotherapyRolled(cur.name, draw(st.none() | st.integers(1, 20)))
    raise AssertionError(state.phase)


@st.composite
def random_action(draw: st.DrawFn, state: State) -> Event:
    """Any action by anyone, in any phase: most are refused."""
    who = draw(st.sampled_from([p.name for p in state.players] + ["Zed"]))
    text = draw(st.sampled_from(WORDS + ("AT", "JAZZ", "ABSOLUTE")))
    return draw(st.sampled_from([
        WordPlayed(who, text, STANDARD.score(text), True),
        WordPlayed(who, text, STANDARD.score(text) + 1, True),
        SanityRolled(who, draw(st.integers(0, 21))),
        Discarded(who, draw(st.sampled_from(HANDS + ("ABC", None)))),
        BindNamed(who, text, STANDARD.score(text), True),
        BindDone(),
        PsychotherapyRolled(who, draw(st.none() | st.integers(0, 21))),
        RollOff(first=who),
    ]))


def check_invariants(before: State, event: Event, after: State) -> None:
    setup = after.setup
    target = setup.target
    # scores never negative and never go down; pawns 0..5, moving by at most one
    for b, a in zip(before.players, after.players):
        assert a.score >= b.score >= 0
        assert 0 <= a.pawns <= PAWNS and abs(a.pawns - b.pawns) <= 1
        assert a.out == (a.pawns == 0 or a.left)  # out: no pawns left, or left the game (RULES.md 6)
        assert not (b.out and not a.out)  # out stays out
        assert 0 <= a.hand <= HAND_SIZE
        if a.out:
            assert a.hand == 0
    # no word used twice; the used words only grow
    assert len(set(after.used_words)) == len(after.used_words)
    assert after.used_words[:len(before.used_words)] == before.used_words
    # every card is somewhere
    assert after.draw_pile >= 0 and after.discard_pile >= 0
    assert after.draw_pile + after.discard_pile + sum(p.hand for p in after.players) == setup.deck.size
    # at most one winner, never an eliminated player; the game is over exactly when there is one
    assert (after.winner is not None) == (after.phase is Phase.OVER)
    if after.winner is not None:
        assert not after.player(after.winner).out
        standing = [p for p in after.players if not p.out]
        if setup.options.last_words and after.reached is not None and len(standing) > 1:
            best = max(p.score for p in standing)
            assert after.player(after.winner).score == best
        elif len(standing) > 1:
            assert after.player(after.winner).score >= target  # won on the target, not by elimination
    else:
        assert after.current is not None and not after.current.out
        if not setup.options.last_words:
            assert all(p.score < target for p in after.players)  # reaching the target ends the game
    # the sanity check and rule 5, straight from RULES.md 3.3-3.5
    if isinstance(event, SanityRolled):
        assert before.pending is not None and before.current is not None
        value, roll = before.pending.score, event.roll
        b, a = before.current, after.player(before.current.name)
        passed = roll == 20 or roll >= value
        reaches = b.score + value >= target
        assert a.pawns == b.pawns - (0 if passed else 1)
        assert a.score == b.score + (0 if reaches and not passed else value)
        if passed and reaches and not setup.options.last_words:
            assert after.winner == b.name
    # Psychotherapy: strictly higher than the hand's value regains a pawn, never above 5
    if isinstance(event, PsychotherapyRolled):
        assert before.window is not None and before.window.letters is not None and before.current is not None
        b, a = before.current, after.player(before.current.name)
        value = STANDARD.score(before.window.letters)
        gained = event.roll is not None and event.roll > value and b.pawns < PAWNS
        assert a.pawns == b.pawns + (1 if gained else 0)
    if isinstance(event, PlayerLeft):
        assert after.player(event.player).left and after.player(event.player).hand == 0
    # only a sanity roll can cost a pawn; only a word can score
    if not isinstance(event, SanityRolled):
        for b, a in zip(before.players, after.players):
            assert a.score == b.score
            assert a.pawns >= b.pawns


options = st.builds(Options, oath=st.booleans(), spell_binding=st.booleans(), psychotherapy=st.booleans(),
                    last_words=st.booleans())


@pytest.mark.slow  # random games by the hundred
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), opts=options, n=st.integers(2, 4), target=st.sampled_from([15, 30, 50, 100]),
       steps=st.integers(5, 120), cards=st.booleans())
def test_random_games_keep_the_rules(data: st.DataObject, opts: Options, n: int, target: int, steps: int,
                                     cards: bool) -> None:
    game = Game(Setup(players=NAMES[:n], target=target, options=opts, card_accounting=cards))
    states = {len(game.events): snapshot(game.state)}  # the state after each number of events
    seen: set[str] = set()
    game.apply(data.draw(fitting_action(game.state)))  # the roll-off
    states[len(game.events)] = snapshot(game.state)
    for _ in range(steps):
        state = game.state
        action: Event
        wild = data.draw(st.integers(0, 9)) == 0
        if not state.is_over() and data.draw(st.integers(0, 40)) == 0:  # now and then a player leaves
            action = PlayerLeft(data.draw(st.sampled_from([p.name for p in state.players])))
        elif state.is_over() or wild:
            action = data.draw(random_action(state))
        else:
            action = data.draw(fitting_action(state))
        before = snapshot(state)
        count = len(game.events)
        try:
            game.apply(action)
        except RulesError as err:
            assert game.state == before, "a refused action changed the game"
            assert len(game.events) == count
            if before.is_over():
                assert isinstance(err, GameOver)
            continue
        assert not before.is_over(), "an action was accepted after the game was over"
        check_invariants(before, action, game.state)
        states[len(game.events)] = snapshot(game.state)
        seen.add(game.state.phase.value)
        if isinstance(action, WordPlayed) and not action.legal:
            seen.add("oath")
        if any(p.out for p in game.state.players):
            seen.add("someone out")
    for label in sorted(seen):
        event(label)

    # replaying the events gives the same state, with or without the words of the events before the last
    assert Game.replay(game.events).state == game.state
    assert Game.replay(game.events, words=False).state == game.state
    # log's words: each event's notes but the closing "waiting for" sentence, as a replay with words says them
    told: list[list[str]] = [[]]
    again = Game.replay(game.events[:1])
    for past in game.events[1:]:
        notes = again.apply(past)
        told.append(notes[:-1] if not again.state.is_over() else notes)
    assert Game.told(game.events) == told and all(note for notes in told for note in notes)
    # undoing the last k actions gives the state before them
    starts = len([e for e in game.events[1:] if e.starts_action and not isinstance(e, RollOff)])
    for k in range(1, min(starts, 4) + 1):
        point = undo_point(game.events, k)
        assert Game.replay(game.events[:point]).state == states[point]
        assert Game.replay(game.events[:point], words=False).state == states[point]
    if starts:
        k = data.draw(st.integers(1, starts))
        point = undo_point(game.events, k)
        assert Game.replay(game.events[:point]).state == states[point]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 6))
def test_virtual_roll_off_is_deterministic_and_valid(seed: int, n: int) -> None:
    players = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay")[:n]
    setup = Setup(players=players, dice="virtual", seed=seed)
    first, second = Game(setup).roll_off_virtual(), Game(setup).roll_off_virtual()
    assert first == second
    game = Game(setup)
    game.apply(first)
    # each round was rolled by exactly those tied highest in the round before
    contenders = list(players)
    for rnd in first.rounds:
        assert sorted(name for name, _ in rnd) == sorted(contenders)
        assert all(1 <= roll <= 20 for _, roll in rnd)
        top = max(roll for _, roll in rnd)
        contenders = [name for name, roll in rnd if roll == top]
    assert contenders == [game.state.current.name]  # type: ignore[union-attr]


@settings(max_examples=60, deadline=None)
@given(rolls=st.lists(st.integers(1, 20), min_size=3, max_size=3), reroll=st.lists(st.integers(1, 20), max_size=3))
def test_roll_off_check_accepts_exactly_the_valid_rounds(rolls: list[int], reroll: list[int]) -> None:
    players = ("Ann", "Bob", "Cy")
    first = tuple(zip(players, rolls))
    top = max(rolls)
    tied = [name for name, roll in first if roll == top]
    rounds: tuple[tuple[tuple[str, int], ...], ...] = (first,)
    if len(tied) == 1:
        assert check_roll_off(rounds, players) == tied[0]
        return
    try:
        check_roll_off(rounds, players)
    except RulesError:
        pass
    else:
        raise AssertionError("a tied roll-off was accepted")
    used = reroll[:len(tied)]
    second = tuple(zip(tied, used))
    rounds = (first, second)
    valid = len(used) == len(tied) and used.count(max(used)) == 1  # all the tied re-roll, one is highest
    try:
        winner = check_roll_off(rounds, players)
    except RulesError:
        assert not valid
    else:
        assert valid
        assert winner == max(second, key=lambda r: r[1])[0]


def test_random_hands_are_plausible() -> None:
    """The hand strategy only makes hands the deck can hold (else discards would all be refused)."""
    rnd = random.Random(1)
    for _ in range(50):
        hand = "".join(rnd.sample(DECK_CARDS, 7))
        assert not STANDARD.over_limit(hand)
    for hand in HANDS:
        assert len(hand) == 7 and not STANDARD.over_limit(hand)

"""Random games played through the library (``referee.Referee``) for the history's tests and benchmark, and an
independent count of their figures from the exported events (``export_document``): a fold over the event records
written for the tests from RULES.txt, sharing no code with ``referee.history.stats`` or the engine.

The bots deal themselves letters for the cards the referee says they hold, play a word the letters allow (or
discard), roll a random d20 (physical dice, so the rolls are the bots': many checks fail and players go out), name
words for Spell Binding, roll or skip Psychotherapy, and now and then leave. The players' names are drawn from a
small pool in random case, so one person appears as "Ann", "ANN" and "ann" across games.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from dictionaries.deck import STANDARD
from dictionaries.dictionary import Dictionary
from referee import Options, Referee, RollOff, RulesError, Setup, Store

POOL = ("Ann", "Bob", "Cy", "Dee", "Eve")


def spelled(rng: random.Random, name: str) -> str:
    return rng.choice((name, name.upper(), name.lower()))


def play_random_game(referee: Referee, dictionary: Dictionary, rng: random.Random, *, most_turns: int = 400,
                     options: Options | None = None, names: tuple[str, ...] = ()) -> int:
    """One game from start to end (or ``most_turns``); returns its number."""
    names = names or tuple(spelled(rng, n) for n in rng.sample(POOL, rng.randint(2, 4)))
    if options is None:
        options = Options(oath=rng.random() < 0.5, spell_binding=rng.random() < 0.5,
                          psychotherapy=rng.random() < 0.5, last_words=rng.random() < 0.5)
    setup = Setup(players=names, target=rng.choice((30, 60, 100)), options=options, card_accounting=False)
    result = referee.start(setup, RollOff(first=rng.choice(names)))
    gid = result.game_id
    bag = "".join(letter * count for letter, count in STANDARD.counts.items())
    for _turn in range(most_turns):
        state = result.state
        if state.is_over():
            break
        me = state.current
        assert me is not None
        hand = "".join(rng.sample(bag, 7))  # a hand the deck can hold
        try:
            if rng.random() < 0.01 and sum(not p.out for p in state.players) > 1:
                result = referee.leave(gid, rng.choice([p.name for p in state.players if not p.out]))
                continue
            if state.phase.value in ("action", "last_words"):
                words = [w for w in dictionary.rack(hand, state.setup.level, state.setup.deck)
                         if not state.is_used(w.word)]
                if words and rng.random() < 0.8:
                    word = rng.choice(words[:5]).word
                    result = referee.play(referee.prepare(gid, word), roll=rng.randint(1, 20))
                else:
                    letters = hand[:me.hand] if (options.spell_binding or options.psychotherapy) else None
                    result = referee.discard(gid, letters)
            elif state.phase.value == "spell_binding":
                window = state.window
                assert window is not None and window.letters
                found = [w for w in dictionary.rack(window.letters, state.setup.level, state.setup.deck)
                         if not state.is_used(w.word)]
                others = [p.name for p in state.players if not p.out and p.name != me.name]
                if found and others and rng.random() < 0.7:
                    result = referee.bind(referee.prepare(gid, rng.choice(found[:3]).word), rng.choice(others))
                result = referee.bind_done(gid)
            elif state.phase.value == "sanity":
                result = referee.roll(gid, rng.randint(1, 20))
            elif state.phase.value == "psychotherapy":
                result = referee.roll(gid, rng.randint(1, 20)) if rng.random() < 0.7 else referee.roll(gid, skip=True)
        except RulesError:
            result = referee.discard(gid, hand[:me.hand] if state.phase.value in ("action", "last_words")
                                     and (options.spell_binding or options.psychotherapy) else None)
    return gid


def random_games(path: Path, dictionary: Dictionary, seed: int, count: int) -> Store:
    """A games file with ``count`` random games (the last one may be left in play: ``most_turns``)."""
    store = Store(path)
    referee = Referee(store, lambda: dictionary)
    rng = random.Random(seed)
    for i in range(count):
        play_random_game(referee, dictionary, rng, most_turns=rng.randint(3, 30) if i == count - 1 else 400)
    return store


#: The players of the screenshots' game (docs/history_screenshots.py), and its seed: a close game of 29 turns in
#: which one player loses the last pawn, one leaves, and Last Words decide it by a point.
SHOWCASE = (("Cindi", "Paul", "Sue", "Bartholomew Featherstonehaugh"), 30)


def showcase_game(path: Path, dictionary: Dictionary) -> int:
    """The screenshots' finished game in a new games file; returns its number."""
    names, seed = SHOWCASE
    referee = Referee(Store(path), lambda: dictionary)
    return play_random_game(referee, dictionary, random.Random(seed), names=names,
                            options=Options(last_words=True, psychotherapy=True))


# -- the independent count ------------------------------------------------------------------------

def count_figures(document: dict[str, Any]) -> dict[str, Any]:
    """The figures of an exported game, counted from its event records by RULES.txt alone: per player (by seat)
    words, points scored by words, best and longest word, checks rolled and passed, the expected passes, pawns lost
    and regained, out and left; the turns; and the scores and pawns before each turn and at the end."""
    setup = document["setup"]
    names = setup["players"]
    target, points = setup["target"], setup["deck"]["points"]
    seat = {n.casefold(): i for i, n in enumerate(names)}
    n = len(names)
    score, pawns = [0] * n, [5] * n
    out, left = [False] * n, [False] * n
    words: list[list[tuple[str, int]]] = [[] for _ in names]   # (word, scored)
    rolled, passed, lost, regained = [0] * n, [0] * n, [0] * n, [0] * n
    expected = [0.0] * n
    pending: tuple[int, str, int] | None = None
    discarder, letters = -1, ""
    named: list[tuple[str, int]] = []
    series: list[tuple[list[int], list[int]]] = []
    turns = 0
    for record in document["events"][1:]:
        kind = record["type"]
        if kind in ("word_played", "discarded"):
            series.append((list(score), list(pawns)))
            turns += 1
        if kind == "word_played":
            pending = (seat[record["player"].casefold()], record["word"], record["score"])
        elif kind == "discarded":
            discarder, letters, named = seat[record["player"].casefold()], record["letters"] or "", []
        elif kind == "bind_named" and (record["legal"] or record["allowed"]):
            named.append((record["word"], record["score"]))
        elif kind == "bind_done" and named:
            chosen = named[0]  # the highest, the first named on a tie
            for candidate in named[1:]:
                if candidate[1] > chosen[1]:
                    chosen = candidate
            pending = (discarder, chosen[0], chosen[1])
        elif kind == "sanity_rolled":
            assert pending is not None
            who, word, value = pending
            pending = None
            ok = record["roll"] == 20 or record["roll"] >= value
            rolled[who] += 1
            passed[who] += ok
            expected[who] += sum(1 for roll in range(1, 21) if roll == 20 or roll >= value) / 20
            credited = 0 if (score[who] + value >= target and not ok) else value
            score[who] += credited
            words[who].append((word, credited))
            if not ok:
                pawns[who] -= 1
                lost[who] += 1
                out[who] = out[who] or pawns[who] == 0
        elif kind == "psychotherapy_rolled" and record["roll"] is not None:
            who = seat[record["player"].casefold()]
            if record["roll"] > sum(points[c] for c in letters) and pawns[who] < 5:
                pawns[who] += 1
                regained[who] += 1
        elif kind == "player_left":
            who = seat[record["player"].casefold()]
            out[who] = left[who] = True
            if pending is not None and pending[0] == who:
                pending = None
    series.append((list(score), list(pawns)))
    seats = []
    for i in range(n):
        best: tuple[str, int] | None = None
        longest: tuple[str, int] | None = None
        for word, credited in words[i]:
            if best is None or credited > best[1]:
                best = (word, credited)
            if longest is None or (len(word), credited) > (len(longest[0]), longest[1]):
                longest = (word, credited)
        seats.append({"name": names[i], "words": len(words[i]), "points": sum(c for _, c in words[i]),
                      "best": best, "longest": longest, "rolled": rolled[i], "passed": passed[i],
                      "expected": expected[i], "lost": lost[i], "regained": regained[i],
                      "eliminated": int(out[i] and not left[i]), "left": int(left[i]), "score": score[i],
                      "pawns": pawns[i]})
    return {"turns": turns, "seats": seats, "series": series}


def count_replays(monkeypatch: Any) -> list[int]:
    """From now on, the games whose figures are counted from their events (``referee.history.reading.figures_of``,
    the replay the kept figures spare), in order; the list grows as they are."""
    import referee.history.reading as reading

    replayed: list[int] = []
    original = reading.figures_of

    def counting(store: Store, game: int) -> Any:
        replayed.append(game)
        return original(store, game)

    monkeypatch.setattr(reading, "figures_of", counting)
    return replayed

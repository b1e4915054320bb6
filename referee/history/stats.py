"""The figures of a table's games, from each game's events by the engine's own replay: per game its turns, its end,
its best word and every player's score and pawns after each turn; per player (names matched case-insensitively)
games played and won, the best and the longest word, points per word, the sanity checks passed against the odds
their words gave, pawns lost and regained, and times eliminated. Pure: events in, values out (no store, no face).

Definitions, each once:

- a *turn* is a player's word or discard (a word forced by Spell Binding belongs to the discard's turn), so a
  game's length is its words played plus its discards;
- a *word* counts for the player who rolled its sanity check (a forced word for the discarder); what it *scored*
  is what it added to the score, 0 when the target rule took it (RULES.txt); the best word is the one that scored
  most (the first on a tie), the longest has most letters (then most points, then the first);
- the *odds* of a check: a d20 passes on a 20 or on a roll of at least the word's value, so a word of value v
  passes with probability (21 - min(max(v, 1), 20)) / 20; the expected passes are the sum of those;
- *pawns lost* are the pawns failed checks took; *regained* those Psychotherapy gave back; *eliminated* counts
  the games a player was out of by losing the last pawn (a player who left is counted apart, as *left*);
- a game still in play counts as in play: neither won nor lost.
"""
from __future__ import annotations

from dictionaries.rules import DIE
from referee.values import field, value

TYPE_CHECKING = False  # the engine is loaded when a game is counted, not when kept figures are read (``stats``)
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

    from referee.events import Event

#: The phases in which the game waits for a new turn (``referee.state.Phase``'s values): a point of the chart is
#: taken when one is reached.
_TURN_OVER = ("action", "last_words", "over")


def pass_chance(value: int) -> float:
    """The chance that a d20 passes the sanity check of a word worth ``value`` (RULES.txt: a 20 always passes,
    otherwise the roll must be at least the word's value)."""
    needs = min(max(value, 1), DIE)
    return (DIE + 1 - needs) / DIE


if TYPE_CHECKING:
    from typing import NamedTuple

    class _Word(NamedTuple):
        word: str
        player: str
        value: int
        scored: int
        passed: bool
        game: int
        turn: int
else:  # the same fields as a plain named tuple: a thousand games' words are read back at each ``stats``
    from collections import namedtuple

    _Word = namedtuple("_Word", ("word", "player", "value", "scored", "passed", "game", "turn"))


class Word(_Word):
    """A word as it was played: who played it, in which game and turn, its value, what it scored, its check."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        return {"word": self.word, "player": self.player, "points": self.scored, "value": self.value,
                "passed": self.passed, "game": self.game, "turn": self.turn}

    def record(self) -> list[Any]:
        return list(self)

    @classmethod
    def of_record(cls, data: list[Any] | None) -> Word | None:
        return None if data is None else cls._make(data)


@value(frozen=True)
class Point:
    """The game after a turn (turn 0: the start): whose turn it was and what they did, and each seat's score, pawns
    and whether they are out."""

    turn: int
    player: str | None
    word: str | None
    scores: tuple[int, ...]
    pawns: tuple[int, ...]
    out: tuple[bool, ...]


@value()
class PlayerFigures:
    """One player's figures, over one game or added up over many (``add``)."""

    name: str
    games: int = 0
    won: int = 0
    in_play: int = 0
    words: int = 0
    points: int = 0
    best: Word | None = None
    longest: Word | None = None
    checks: int = 0
    passed: int = 0
    expected: float = 0.0
    pawns_lost: int = 0
    pawns_regained: int = 0
    eliminated: int = 0
    left: int = 0

    @property
    def lost(self) -> int:
        """Games over that this player did not win."""
        return self.games - self.won - self.in_play

    @property
    def average(self) -> float | None:
        """Points scored per word played (None before the first word)."""
        return self.points / self.words if self.words else None

    def note_word(self, word: Word) -> None:
        self.words += 1
        self.points += word.scored
        if self.best is None or word.scored > self.best.scored:
            self.best = word
        if self.longest is None or (len(word.word), word.scored) > (len(self.longest.word), self.longest.scored):
            self.longest = word

    def add(self, other: PlayerFigures) -> None:
        """Add ``other``'s figures (a later game's: its best and longest words win only when strictly better).
        Written out field by field: over a thousand games a loop of ``setattr`` was most of ``stats``."""
        self.games += other.games
        self.won += other.won
        self.in_play += other.in_play
        self.words += other.words
        self.points += other.points
        self.checks += other.checks
        self.passed += other.passed
        self.pawns_lost += other.pawns_lost
        self.pawns_regained += other.pawns_regained
        self.eliminated += other.eliminated
        self.left += other.left
        self.expected += other.expected
        if other.best is not None and (self.best is None or other.best.scored > self.best.scored):
            self.best = other.best
        if other.longest is not None and (self.longest is None or (len(other.longest.word), other.longest.scored)
                                          > (len(self.longest.word), self.longest.scored)):
            self.longest = other.longest

    def record(self) -> list[Any]:
        """Every figure exactly (the expected passes unrounded), in the order of the fields, for
        ``referee.history.kept``."""
        return [self.name, self.games, self.won, self.in_play, self.words, self.points,
                self.best.record() if self.best else None, self.longest.record() if self.longest else None,
                self.checks, self.passed, self.expected, self.pawns_lost, self.pawns_regained, self.eliminated,
                self.left]

    @classmethod
    def of_record(cls, data: list[Any]) -> PlayerFigures:
        best, longest = data[6], data[7]
        data[6] = None if best is None else Word._make(best)
        data[7] = None if longest is None else Word._make(longest)
        return cls(*data)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "games": self.games, "won": self.won, "lost": self.lost, "in_play": self.in_play,
            "words": self.words, "points": self.points,
            "points_per_word": None if self.average is None else round(self.average, 2),
            "best_word": None if self.best is None else self.best.to_json(),
            "longest_word": None if self.longest is None else self.longest.to_json(),
            "sanity_checks": {"rolled": self.checks, "passed": self.passed, "expected": round(self.expected, 2)},
            "pawns_lost": self.pawns_lost, "pawns_regained": self.pawns_regained,
            "eliminated": self.eliminated, "left": self.left,
        }


@value()
class GameFigures:
    """One game's figures: its length, how it ended, its best word, each player's figures in it and the points
    of its chart (the start, then after each turn)."""

    game: int
    players: tuple[str, ...]
    target: int
    turns: int = 0
    over: bool = False
    winner: str | None = None
    ending: str | None = None  # "target", "last_standing" or "last_words" (``referee.state.Termination``)
    best: Word | None = None
    seats: list[PlayerFigures] = field(default_factory=list)
    points: list[Point] = field(default_factory=list)
    #: (the point's index, the seat) where a player went out: by losing the last pawn, or by leaving.
    eliminations: list[tuple[int, int]] = field(default_factory=list)
    departures: list[tuple[int, int]] = field(default_factory=list)

    def record(self) -> list[Any]:
        """The figures but the chart's points, exactly, for ``referee.history.kept``."""
        return [self.game, list(self.players), self.target, self.turns, self.over, self.winner, self.ending,
                self.best.record() if self.best else None, [p.record() for p in self.seats]]

    @classmethod
    def of_record(cls, data: list[Any]) -> GameFigures:
        """A game's figures from its ``record`` (no chart: ``points`` and the marks are empty)."""
        game, players, target, turns, over, winner, ending, best, seats = data
        return cls(game, tuple(players), target, turns, over, winner, ending, Word.of_record(best),
                   [PlayerFigures.of_record(p) for p in seats])

    def to_json(self, chart: bool = False, seats: bool = True) -> dict[str, Any]:
        """The game's figures as JSON values (``seats``: each player's figures in it too; ``chart``: the points)."""
        data: dict[str, Any] = {
            "game": self.game, "players": list(self.players), "target": self.target, "turns": self.turns,
            "state": "over" if self.over else "in_play", "winner": self.winner, "ending": self.ending,
            "best_word": None if self.best is None else self.best.to_json(),
        }
        if seats:
            data["figures"] = [p.to_json() for p in self.seats]
        if chart:
            data["turns_chart"] = [{"turn": p.turn, "player": p.player, "word": p.word, "scores": list(p.scores),
                                    "pawns": list(p.pawns)} for p in self.points]
            data["eliminated"] = [{"turn": self.points[i].turn, "player": self.players[s]} for i, s in self.eliminations]
            data["left"] = [{"turn": self.points[i].turn, "player": self.players[s]} for i, s in self.departures]
        return data


def game_figures(game_id: int, events: Sequence[Event]) -> GameFigures:
    """The figures of the game those events make (the first is its creation), by replaying them with the engine
    and reading its state after each event: the same scores, pawns and end as ``status`` shows."""
    from referee.events import _QUIET, Created, Discarded, SanityRolled, WordPlayed
    from referee.rules import Game

    created = events[0]
    if not isinstance(created, Created):
        raise ValueError("a game's events start with its creation")
    setup = created.setup
    game = Game(setup)
    state = game.state
    n = len(setup.players)
    figures = GameFigures(game_id, setup.players, setup.target,
                          seats=[PlayerFigures(name, games=1) for name in setup.players])
    seats = figures.seats

    def point(player: str | None, word: str | None) -> None:
        figures.points.append(Point(figures.turns, player, word, tuple(p.score for p in state.players),
                                    tuple(p.pawns for p in state.players), tuple(p.out for p in state.players)))

    point(None, None)
    scores = [0] * n
    pawns = [p.pawns for p in state.players]
    out = [False] * n
    turn_player: str | None = None
    turn_word: str | None = None
    token = _QUIET.set(True)  # what each event did is not said: only the state is read
    try:
        for event in events[1:]:
            pending = state.pending
            game.apply(event)
            if isinstance(event, WordPlayed | Discarded):
                figures.turns += 1
                turn_player, turn_word = state.player(event.player).name, None
            if isinstance(event, SanityRolled) and pending is not None:
                seat = pending.player
                scored = state.players[seat].score - scores[seat]
                passed = event.roll == DIE or event.roll >= pending.score
                word = Word(pending.word, state.players[seat].name, pending.score, scored, passed, game_id,
                            figures.turns)
                seats[seat].note_word(word)
                seats[seat].checks += 1
                seats[seat].passed += passed
                seats[seat].expected += pass_chance(pending.score)
                turn_word = pending.word
                if figures.best is None or word.scored > figures.best.scored:
                    figures.best = word
            went: list[tuple[int, bool]] = []
            for seat, p in enumerate(state.players):
                scores[seat] = p.score
                if p.pawns < pawns[seat]:
                    seats[seat].pawns_lost += pawns[seat] - p.pawns
                elif p.pawns > pawns[seat]:
                    seats[seat].pawns_regained += p.pawns - pawns[seat]
                pawns[seat] = p.pawns
                if p.out and not out[seat]:
                    out[seat] = True
                    went.append((seat, p.left))
            at = len(figures.points)  # a player out between turns is marked at the next point
            if state.phase.value in _TURN_OVER and turn_player is not None:
                point(turn_player, turn_word)
                turn_player = turn_word = None
            elif state.phase.value in _TURN_OVER and went:  # a leave between turns: the last point says it
                last = figures.points.pop()
                point(last.player, last.word)
                at -= 1
            for seat, left in went:
                if left:
                    seats[seat].left += 1
                    figures.departures.append((at, seat))
                else:
                    seats[seat].eliminated += 1
                    figures.eliminations.append((at, seat))
    finally:
        _QUIET.reset(token)
    _mark_points(figures)
    outcome = state.outcome
    figures.over = state.phase.value == "over"
    if outcome is not None:
        figures.winner, figures.ending = outcome.winner, outcome.termination.value
    for seat, p in enumerate(state.players):
        seats[seat].won = int(figures.winner == p.name)
        seats[seat].in_play = int(not figures.over)
    return figures


def _mark_points(figures: GameFigures) -> None:
    """A player who went out between turns (a leave while another player's word waited for its roll) is marked at
    the next point taken; one who went out after the last point, at the last point."""
    last = len(figures.points) - 1
    figures.eliminations = [(min(i, last), s) for i, s in figures.eliminations]
    figures.departures = [(min(i, last), s) for i, s in figures.departures]


def table_figures(games: Iterable[GameFigures]) -> list[PlayerFigures]:
    """Every player's figures over ``games``, a name's spellings matched case-insensitively (shown as in the latest
    game given), most games won first, then most games, then by name."""
    found: dict[str, PlayerFigures] = {}
    for game in games:
        for figures in game.seats:
            key = figures.name.casefold()
            mine = found.get(key)
            if mine is None:
                mine = found[key] = PlayerFigures(figures.name)
            mine.name = figures.name
            mine.add(figures)
    return sorted(found.values(), key=lambda p: (-p.won, -p.games, p.name.casefold()))


def best_of(games: Iterable[GameFigures]) -> Word | None:
    """The word that scored most in all those games (the first played on a tie)."""
    best: Word | None = None
    for game in games:
        if game.best is not None and (best is None or game.best.scored > best.scored):
            best = game.best
    return best


__all__ = ["GameFigures", "PlayerFigures", "Point", "Word", "best_of", "game_figures", "pass_chance",
           "table_figures"]

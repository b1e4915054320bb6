"""``uw-referee stats`` in words and as JSON, without Click: the lines and the document both the Click command
(``referee.history.cli``) and the quick path (``referee.quick``: ``stats`` and ``stats --json`` answered without
loading Click) print, to the byte."""
from __future__ import annotations

import json

from dictionaries.i18n import _, ngettext
from referee.history.stats import GameFigures, PlayerFigures, Word, best_of
from referee.terminal import json_text, shown

TYPE_CHECKING = False  # typing costs a tenth of a quick stats: its names are for the checkers
if TYPE_CHECKING:
    from typing import Any


def word_text(word: Word) -> str:
    """A word with what it scored and where, in plain text."""
    # TRANSLATORS: a word with what it scored and where: "CHAMP (15 points, game 3)".
    return ngettext("{word} ({n} point, game {game})", "{word} ({n} points, game {game})", word.scored).format(
        word=word.word, n=word.scored, game=word.game)


def best_of_all(word: Word) -> str:
    """The best word of all the games shown, in a sentence of plain text."""
    return _("Best word of all: {word} by {player}").format(word=word_text(word), player=word.player)



def _word(word: Word) -> str:
    return word_text(word)


def player_lines(p: PlayerFigures) -> list[str]:
    """One player's records: a line of games, then one line per figure."""
    lines = [shown(p.name + ": " + ngettext("{n} game: {won} won, {lost} lost, {in_play} in play",
                                           "{n} games: {won} won, {lost} lost, {in_play} in play", p.games).format(
        n=p.games, won=p.won, lost=p.lost, in_play=p.in_play))]
    if p.best is not None and p.longest is not None and p.average is not None:
        lines.append("    " + _("best word: {word}").format(word=_word(p.best)))
        lines.append("    " + _("longest word: {word}").format(word=_word(p.longest)))
        lines.append("    " + ngettext("{average:.1f} points per word over {n} word",
                                       "{average:.1f} points per word over {n} words", p.words).format(
            average=p.average, n=p.words))
        lines.append("    " + ngettext("sanity checks: {passed} of {n} passed; their words' odds gave {expected:.2f}",
                                       "sanity checks: {passed} of {n} passed; their words' odds gave {expected:.2f}",
                                       p.checks).format(passed=p.passed, n=p.checks, expected=p.expected))
    else:
        lines.append("    " + _("no word played yet"))
    lines.append("    " + _("pawns: {lost} lost, {regained} regained").format(lost=p.pawns_lost,
                                                                              regained=p.pawns_regained))
    lines.append("    " + ngettext("eliminated {n} time", "eliminated {n} times", p.eliminated).format(n=p.eliminated)
                 + ("; " + ngettext("left {n} game", "left {n} games", p.left).format(n=p.left) if p.left else ""))
    return lines


def game_line(g: GameFigures) -> str:
    """One game in a line: its number, players, length and how it ended, then its best word (each sentence a
    message of its own, for translators)."""
    names = ", ".join(g.players)
    if g.winner is None:
        text = ngettext("Game {game} ({players}): in play after {n} turn.",
                        "Game {game} ({players}): in play after {n} turns.", g.turns)
    elif g.ending == "last_standing":
        text = ngettext("Game {game} ({players}): {winner} won as the last player with pawns after {n} turn.",
                        "Game {game} ({players}): {winner} won as the last player with pawns after {n} turns.",
                        g.turns)
    elif g.ending == "last_words":
        text = ngettext("Game {game} ({players}): {winner} won after Last Words, {n} turn.",
                        "Game {game} ({players}): {winner} won after Last Words, {n} turns.", g.turns)
    else:
        text = ngettext("Game {game} ({players}): {winner} won at the target after {n} turn.",
                        "Game {game} ({players}): {winner} won at the target after {n} turns.", g.turns)
    line = text.format(game=g.game, players=names, winner=g.winner, n=g.turns)
    if g.best is not None:
        line += " " + _("Best word: {word} by {player}.").format(word=_word(g.best), player=g.best.player)
    return shown(line)


def stats_lines(games: list[GameFigures], players: list[PlayerFigures], db: str | None = None) -> list[str]:
    """``stats`` in words: the players' records, then each game in a line, then the best word of them all (with
    none, how to start one in ``db``, the database as ``--db`` gives it)."""
    if not games:
        from referee.paths import quote_around, suggested

        referee = suggested("", db)
        # TRANSLATORS: {referee} is "uw-referee" (with --db PATH when the games are elsewhere), {q} the quote around it.
        command = _("{q}{referee} new NAME NAME{q}").format(q=quote_around(referee), referee=referee)
        return [_("No games yet: start one with {command}.").format(command=shown(command))]
    over = sum(1 for g in games if g.over)
    lines = [ngettext("{n} game: {over} over, {in_play} in play.", "{n} games: {over} over, {in_play} in play.",
                      len(games)).format(n=len(games), over=over, in_play=len(games) - over), "", _("Players")]
    for p in players:
        lines.extend("  " + line for line in player_lines(p))
    lines += ["", _("Games")]
    lines.extend("  " + game_line(g) for g in games)
    best = best_of(games)
    if best is not None:
        lines += ["", shown(best_of_all(best))]
    return lines


def stats_json(games: list[GameFigures], players: list[PlayerFigures], seats: bool = False) -> dict[str, Any]:
    """``stats --json``: every player's records, every game's figures (``seats``: each player's figures in each game
    too, as ``--game N`` gives them: over every game they repeat the players' records game by game, which cost more
    than the rest of the command), the best word of them all."""
    best = best_of(games)
    return {"players": [p.to_json() for p in players], "games": [g.to_json(seats=seats) for g in games],
            "best_word": None if best is None else best.to_json()}


def stats_json_text(games: list[GameFigures], players: list[PlayerFigures], seats: bool = False) -> str:
    """``stats_json`` as ``stats --json`` prints it: indented as every ``--json``, but each game on a line of its
    own (written by the C encoder: indenting a thousand games in Python was most of the command's time)."""
    data = stats_json(games, players, seats)
    rows = data["games"]
    marker = "\u0000uw-games\u0000"
    head = json_text({**data, "games": marker})
    if not rows:
        return head.replace(json.dumps(marker), "[]")
    lines = ",\n    ".join(json.dumps(row, ensure_ascii=False) for row in rows)
    return head.replace(json.dumps(marker), "[\n    " + lines + "\n  ]")


def quick_stats(db: str | None, as_json: bool) -> int | None:
    """``uw-referee stats [--json]`` for ``referee.quick`` (no Click): the exit status, or None when anything goes
    wrong (nothing printed: the Click command reads again and says why, with its exit status)."""
    from referee.history.reading import read_table
    from referee.store_pg import open_store
    from referee.terminal import EXIT_OK, write

    try:
        games, players = read_table(open_store(db, read_only=True), None)
    except Exception:  # any failure is the Click command's to explain
        return None
    if as_json:
        write([stats_json_text(games, players)])
    else:
        write(stats_lines(games, players, db))
    return EXIT_OK


__all__ = ["best_of_all", "quick_stats", "word_text", "game_line", "player_lines", "stats_json", "stats_json_text", "stats_lines"]
